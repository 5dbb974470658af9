"""The message catalogue (issue 12 §5): every message and help text has its Chinese, with the
same placeholders; the language follows --lang, $CARDPRESS_LANG and the locale."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine import i18n

REPO = Path(__file__).resolve().parent.parent
SOURCES = [REPO / "engine", REPO / "pipeline"]
#: Click's and Typer's own words a user of cardpress meets that no ``_()`` of ours names (their calls
#: go through engine.i18n: pipeline.cli.lang). Typer's own Click (``typer._click``) writes its usage
#: errors as f-strings, without gettext: those are matched by ``pipeline.cli.lang.CLICK_MESSAGES`` (N_-marked
#: there, so extracted like any message); these are the words Typer still passes to ``gettext``.
CLICK_WORDS = {"Usage:", "Aborted!", "No such command {name!r}."}


def _calls():
    for root in SOURCES:
        for path in sorted(root.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "N_", "ngettext"):
                    yield path, node


def _code_messages() -> dict[str, str]:
    """msgid → where it is used (file:line), from every ``_()``, ``N_()`` and ``ngettext()``."""
    found = {}
    for path, node in _calls():
        # ngettext: the singular is the msgid (its Chinese has one form; the .po's msgid_plural
        # is the English plural).
        arg = node.args[0] if node.args else None
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found.setdefault(arg.value, f"{path.relative_to(REPO)}:{node.lineno}")
    return found


def _help_messages() -> set[str]:
    import typer

    from pipeline.cli.app import app
    from pipeline.cli.lang import help_texts

    return help_texts(typer.main.get_command(app))


def _fields(text: str) -> list[tuple[str, str, str]]:
    try:
        return sorted((name, spec or "", conv or "") for _lit, name, spec, conv in string.Formatter().parse(text)
                      if name is not None)
    except ValueError:  # not a format string (a lone brace): its braces must match as they are
        return [("braces", str(text.count("{")), str(text.count("}")))]


def _catalogue() -> dict[str, str]:
    merged = {}
    for path in i18n.catalogue_files():
        merged.update(i18n.read_po(path.read_text(encoding="utf-8")))
    return merged


def test_every_message_is_written_out_where_it_is_translated():
    """``_(f"…{x}")`` cannot be in a catalogue: the text must be a literal, filled after."""
    bad = []
    for path, node in _calls():
        args = node.args[: 2 if node.func.id == "ngettext" else 1]
        if not args or not all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args):
            bad.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not bad, "messages that are not literal strings: " + ", ".join(bad)


def test_every_message_and_help_text_has_its_chinese():
    catalogue = _catalogue()
    wanted = dict(_code_messages())
    wanted.update((text, "CLI help") for text in _help_messages() if text not in wanted)
    missing = [f"{where}: {text!r}" for text, where in sorted(wanted.items(), key=lambda kv: kv[1])
               if text not in catalogue]
    assert not missing, f"{len(missing)} messages without Chinese, e.g.:\n" + "\n".join(missing[:25])


def test_translations_keep_the_placeholders():
    wrong = [f"{msgid!r} → {msgstr!r}" for msgid, msgstr in _catalogue().items()
             if _fields(msgid) != _fields(msgstr)]
    assert not wrong, "\n".join(wrong[:25])


def test_the_catalogue_has_no_entry_nothing_uses():
    used = set(_code_messages()) | _help_messages() | CLICK_WORDS
    stale = sorted(set(_catalogue()) - used)
    assert not stale, f"{len(stale)} entries no message uses: {stale[:20]}"


def test_the_catalogue_reads_as_babel_reads_it():
    from babel.messages.pofile import read_po

    files = i18n.catalogue_files()
    assert files, "no catalogue"
    for path in files:
        with open(path, "rb") as fh:
            catalog = read_po(fh)
        theirs = {m.id if isinstance(m.id, str) else m.id[0]: (m.string if isinstance(m.string, str) else m.string[0])
                  for m in catalog if m.id and m.string and not m.fuzzy}
        assert i18n.read_po(path.read_text(encoding="utf-8")) == theirs, path.name


def test_read_po_handles_continuations_escapes_and_fuzzy():
    text = ('msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\n'
            'msgid "a {n}\\n"\n"b"\nmsgstr "甲 {n}\\n"\n"乙"\n\n'
            '#, fuzzy\nmsgid "c"\nmsgstr "丙"\n\nmsgid "d \\"q\\""\nmsgstr "丁 “q”"\n')
    assert i18n.read_po(text) == {"a {n}\nb": "甲 {n}\n乙", 'd "q"': "丁 “q”"}
    with pytest.raises(ValueError, match="line 2"):
        i18n.read_po('msgid "x"\nmsgstr x\n')


@pytest.mark.parametrize("env, expected", [
    ({"LANG": "zh_CN.UTF-8"}, "zh_CN"), ({"LANG": "C.UTF-8"}, "en"), ({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US"}, "zh_CN"),
    ({"LANG": "zh_CN.UTF-8", "CARDPRESS_LANG": "en"}, "en"), ({}, "en"),
])
def test_the_language_follows_the_environment(monkeypatch, env, expected):
    for name in ("CARDPRESS_LANG", "LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    previous = i18n._chosen
    i18n.set_language(None)
    try:
        assert i18n.language() == expected
    finally:
        i18n._chosen = previous


def test_using_a_language_for_a_block_wins_and_ends_with_it():
    previous = i18n._chosen
    try:
        i18n.set_language("en")
        with i18n.using("zh"):
            assert i18n.language() == "zh_CN"
        assert i18n.language() == "en"
        with pytest.raises(i18n.UnknownLanguage):
            i18n.set_language("klingon")
    finally:
        i18n._chosen = previous


def _cli(*args: str):
    from pipeline.cli.app import app

    previous = i18n._chosen
    try:
        return CliRunner().invoke(app, list(args))
    finally:
        i18n._chosen = previous
        from pipeline.cli.lang import translate
        import typer

        translate(typer.main.get_command(app), force=True)


@pytest.mark.parametrize("lang, words", [("zh_CN", "错误"), ("en", "error")])
def test_an_error_reads_in_the_language_asked(lang, words, tmp_path):
    result = _cli("--lang", lang, "check", str(tmp_path / "no-such-game"))
    assert result.exit_code == 1
    assert words in result.output
    assert "no-such-game" in result.output


@pytest.mark.parametrize("lang, words", [("zh_CN", "检查"), ("en", "Check a game")])
def test_help_reads_in_the_language_asked(lang, words):
    result = _cli("--lang", lang, "check", "--help")
    assert result.exit_code == 0, result.output
    assert words in result.output


def test_an_unknown_language_is_refused_by_name():
    result = _cli("--lang", "klingon", "check", "duel")
    assert result.exit_code != 0
    assert "klingon" in result.output and "zh_CN" in result.output
