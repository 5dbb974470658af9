"""Render a game's rulebook source: Jinja over ``templates/<game>/rulebook.md.j2`` → Markdown.

The template sees the game definition and nothing else typed by hand: ``game``, ``rules``,
``deck``, ``card_types``, ``zones``, ``phases``, ``keywords``, ``sample_decks`` (the file names of
the game's own decks, which the ```` ```decks ```` block draws), plus small filters that turn
definition values into Chinese (``face``, ``owner``, ``capacity``, ``kind``, ``value_range``).
``StrictUndefined`` makes a misspelt name an error instead of an empty string. Templates render
in the sandbox of ``pipeline.layout.env`` (a game folder's rulebook is as untrusted as its cards).

A game folder may carry its own ``templates/rulebook.md.j2`` / ``templates/glossary.yaml`` (the
same ``templates/`` its card layouts use); otherwise the shipped ones for the game's id are used.

Example::

    >>> src = render_source("ridm")
    >>> "理智" in src.markdown
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import limits
from engine.decks import deck_files
from engine.definitions import FieldSpec, GameDefinition, Zone, load_game
from engine.errors import CardpressError
from engine.i18n import N_, _
from engine.paths import UnsafePath, card_data_root, confine, templates_root
from engine.yamlio import line_of, load_yaml
from pipeline.layout.env import (CardpressEnvironment, TemplateFailure, failure, load, make_environment,
                                 own_templates_dir, render, template_roots)

from .errors import RulebookTemplateError

RULEBOOK_TEMPLATE = "rulebook.md.j2"
GLOSSARY_FILE = "glossary.yaml"
#: The starter rulebook and glossary a game folder begins with (``cardpress new`` copies them).
STARTER = Path("_common", "starter")

_FACE = {"up": "正面朝上", "down": "背面朝上", "hidden": "仅持有者可见", "mixed": "正反面皆有"}
_KIND = {"int": "数值", "str": "文字", "text": "规则文本", "enum": "选项", "bool": "是/否"}


@dataclass(frozen=True)
class GlossaryEntry:
    """One glossary term: its definition (already rendered), aliases and related terms."""

    term: str
    definition: str
    see: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.term, *self.aliases)


@dataclass(frozen=True)
class RulebookSource:
    """A rendered rulebook: the Markdown text and the glossary, for one game definition."""

    game: GameDefinition
    markdown: str
    glossary: tuple[GlossaryEntry, ...]
    template_path: Path


# ---------------------------------------------------------------------------- filters


def _face(face: str) -> str:
    return _FACE.get(face, face)


def _owner(zone: Zone) -> str:
    return "双方共用" if zone.shared else "每位玩家各一"


def _capacity(n: int | None) -> str:
    return "不限" if n is None else f"{n}张"


def _limit(n: int | None) -> str:
    return "不限" if n is None else str(n)


def _kind(spec: FieldSpec) -> str:
    return _KIND.get(spec.kind, spec.kind)


def _value_range(spec: FieldSpec) -> str:
    if spec.kind == "enum":
        return "、".join(spec.label_of(v) for v in spec.values)
    if spec.kind == "int":
        if spec.min is not None and spec.max is not None:
            return f"{spec.min}–{spec.max}"
        if spec.max is not None:
            return f"≤{spec.max}"
        if spec.min is not None:
            return f"≥{spec.min}"
        return "整数"
    if spec.kind == "str" and spec.max_len:
        return f"至多{spec.max_len}字"
    return "—"


# ---------------------------------------------------------------------------- rendering


def _template_dirs(game: GameDefinition) -> tuple[list[Path], str, Path]:
    """Search path, template name and the template's path for a game."""
    root = templates_root()
    own = _own_dir(game)
    if own is not None and (own / RULEBOOK_TEMPLATE).is_file():
        return [own, root], RULEBOOK_TEMPLATE, own / RULEBOOK_TEMPLATE
    path = root / game.id / RULEBOOK_TEMPLATE
    if not path.is_file():
        if own is None and not _own_folder(game):
            raise RulebookTemplateError(_("no rulebook for game {game!r}: {path} does not exist").format(game=game.id, path=path))
        # A game folder without a rulebook of its own gets the starter that ``cardpress new``
        # writes (its tables are made from the folder's game.yaml); its own templates/ wins.
        starter = root / STARTER
        return [starter, root], RULEBOOK_TEMPLATE, starter / RULEBOOK_TEMPLATE
    return [root], f"{game.id}/{RULEBOOK_TEMPLATE}", path


def _own_folder(game: GameDefinition) -> bool:
    """Whether ``game`` is a designer's folder (not a shipped game's)."""
    if game.folder is None:
        return False
    try:
        Path(game.folder).resolve().relative_to(card_data_root().resolve())
    except ValueError:
        return True
    return False


def _environment(search_path: list[Path], roots: list[Path]) -> CardpressEnvironment:
    return make_environment(
        search_path, roots,
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        extensions=["jinja2.ext.do"],
        autoescape=False,  # Markdown, not HTML: the Markdown stage escapes on output.
        filters=dict(face=_face, owner=_owner, capacity=_capacity, limit=_limit, kind=_kind,
                     value_range=_value_range),
    )


def template_context(game: GameDefinition) -> dict[str, Any]:
    """What every rulebook template and glossary definition can use."""
    return {
        "game": game,
        "rules": game.rules,
        "deck": game.deck,
        "card_types": game.card_types,
        "zones": game.zones,
        "phases": game.phases,
        "keywords": game.keywords,
        "sample_decks": [p.stem for p in deck_files(game)],
    }


def _render(env: CardpressEnvironment, name: str, ctx: dict[str, Any], path: Path) -> str:
    try:
        return render(load(env, [name]), ctx)
    except TemplateFailure as exc:
        raise RulebookTemplateError(_("{where}: {message}").format(where=exc.where or path, message=exc.message)) from None


def _own_dir(game: GameDefinition) -> Path | None:
    """A game folder's own ``templates/`` (as for card layouts), if it has one."""
    try:
        return own_templates_dir(game.folder)
    except UnsafePath as exc:
        raise RulebookTemplateError(str(exc)) from None


def glossary_path(game: GameDefinition) -> Path:
    own = _own_dir(game)
    if own is not None and (own / GLOSSARY_FILE).is_file():
        return own / GLOSSARY_FILE
    shipped = templates_root() / game.id / GLOSSARY_FILE
    if not shipped.is_file() and _own_folder(game):
        return templates_root() / STARTER / GLOSSARY_FILE
    return shipped


def _glossary_problem(path: Path, container: Any, key: Any, message: str) -> RulebookTemplateError:
    line = line_of(container, key)
    if line:
        return RulebookTemplateError(_("{path}, line {line}: {error}").format(path=path, line=line, error=message))
    return RulebookTemplateError(_("{where}: {message}").format(where=path, message=message))


def load_glossary(game: GameDefinition, env: CardpressEnvironment | None = None) -> tuple[GlossaryEntry, ...]:
    """Read ``glossary.yaml`` (a list of {term, definition, see, aliases}); render each definition.

    Definitions are Jinja too, so ``{{ rules.outpost_hp }}`` works there as in the rulebook.
    The file is read by the project's lined YAML loader: errors name their line, and a term
    such as ``NO`` stays the text "NO". A game without a glossary file gets its keywords'
    summaries.
    """
    path = glossary_path(game)
    env = env or _environment([templates_root()], template_roots(game.folder))
    ctx = template_context(game)
    if not path.is_file():
        return tuple(GlossaryEntry(k.term, k.summary) for k in game.keywords)
    try:
        confine(path, template_roots(game.folder), N_("glossary"))  # load_yaml below bounds the read
    except UnsafePath as exc:
        raise RulebookTemplateError(str(exc)) from None
    try:
        raw = load_yaml(path)
    except CardpressError as exc:
        raise RulebookTemplateError(_("glossary: {error}").format(error=exc)) from None
    if raw is None:
        raw = []
    if not isinstance(raw, list):
        raise _glossary_problem(path, raw, None, _("expected a list of entries with 'term' and 'definition'"))
    entries, seen = [], set()
    for i, item in enumerate(raw, 1):
        if not isinstance(item, dict) or item.get("term") in (None, "") or item.get("definition") in (None, ""):
            raise _glossary_problem(path, raw, i - 1, _("entry {n} needs 'term' and 'definition'").format(n=i))
        unknown = set(item) - {"term", "definition", "see", "aliases"}
        if unknown:
            bad = sorted(map(str, unknown))[0]
            raise _glossary_problem(path, item, bad, _("entry {n}: unknown key {key!r} (an entry has term, "
                                                       "definition, see, aliases)").format(n=i, key=bad))
        term = str(item["term"])
        if term in seen:
            raise _glossary_problem(path, item, "term", _("term {term!r} is defined twice").format(term=term))
        seen.add(term)
        lists = {}
        for key in ("see", "aliases"):
            value = item.get(key) or []
            if isinstance(value, str) or not isinstance(value, list):
                raise _glossary_problem(path, item, key, _("entry {term!r}: {key!r} must be a list of terms").format(term=term, key=key))
            lists[key] = tuple(str(v) for v in value)
        if len(str(item["definition"])) > limits.MAX_FIELD_CHARS:
            raise _glossary_problem(path, item, "definition", _("entry {term!r}: the definition is longer than "
                                                                "{limit:,} characters")
                                    .format(term=term, limit=limits.MAX_FIELD_CHARS))
        try:
            template = env.from_named_string(str(item["definition"]), str(path))
            definition = render(template, ctx).strip()
        except Exception as exc:  # noqa: BLE001 - syntax errors compile here; render errors are TemplateFailure
            problem = failure(exc)
            line = line_of(item, "definition")
            if line and problem.file == str(path) and problem.line:
                line += problem.line - 1  # a line inside a multi-line definition
            raise RulebookTemplateError(_("{path}, line {line}: entry {term!r}, definition: {error}")
                                        .format(path=path, line=line, term=term, error=problem.message)) from None
        entries.append(GlossaryEntry(term, definition, lists["see"], lists["aliases"]))
    known = {n for e in entries for n in e.names}
    for e, item in zip(entries, raw):
        for s in e.see:
            if s not in known:
                raise _glossary_problem(path, item, "see", _("entry {term!r} refers to unknown term {see!r} in 'see'")
                                        .format(term=e.term, see=s))
    return tuple(sorted(entries, key=glossary_key))


#: Said above every printed glossary, so a reader knows where to look for a term.
GLOSSARY_ORDER_NOTE = "术语按汉语拼音字母顺序排列。"


def glossary_key(entry: GlossaryEntry) -> tuple:
    """Dictionary order (音序, as in 现代汉语词典): by the first character's Hanyu Pinyin syllable,
    then its tone (hao3 before hao4), then the character; then the second character likewise.
    Marks such as △ are skipped; Latin letters and digits sort as the syllable they spell
    (G.O.I sits among the g syllables)."""
    from pypinyin import Style, lazy_pinyin

    key = []
    for ch in entry.term:
        if not ch.isalnum():
            continue
        syllable = lazy_pinyin(ch, style=Style.TONE3, neutral_tone_with_five=True)[0].lower()
        letters = syllable.rstrip("012345")
        tone = int(syllable[len(letters):] or 0) if letters != syllable else 0
        if key and not ("\u3400" <= ch <= "\u9fff") and key[-1][2].isascii():
            key[-1] = (key[-1][0] + letters, 0, key[-1][2] + ch)  # a Latin word is one syllable
        else:
            key.append((letters, tone, ch))
    return (tuple(key), entry.term)


def render_source(game: GameDefinition | str | Path) -> RulebookSource:
    """Render the rulebook Markdown and glossary of ``game`` (a definition, shipped id or folder)."""
    definition = game if isinstance(game, GameDefinition) else load_game(game)
    search, name, path = _template_dirs(definition)
    env = _environment(search, template_roots(definition.folder))
    text = _render(env, name, template_context(definition), path)
    return RulebookSource(definition, text, load_glossary(definition, env), path)
