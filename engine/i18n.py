"""The interface in the user's language: one message catalogue, Simplified Chinese and English.

Every message a user reads is written in the code in English and passed through ``_``::

    raise DataError(Problem(_("the game has no cards"), where))
    say(_("{cards} cards built in {seconds:.1f} s").format(cards=n, seconds=t))

(placeholders are named and filled *after* translation, so a translation may reorder them).
English is the source text, so it is complete by construction; the Chinese of each message is in
the gettext catalogues ``engine/locale/zh_CN/LC_MESSAGES/*.po`` (one per part of the program:
``cli.po``, ``engine.po``…; the format every translation tool opens: Poedit, Weblate,
``msgfmt --check``). They are read here directly — a few milliseconds, once, and only when
Chinese is in use — so there is no compiled ``.mo`` to keep in step.
Command help (Typer's help texts and docstrings) is translated the same way by
``pipeline.cli`` as the command line is parsed; a test checks that every message and every help
text of the CLI has its Chinese, with the same placeholders.

The language is, first match wins: ``using`` (a block of code: the table page, whose players
read Chinese whatever the host's locale), ``set_language`` (the CLI's ``--lang``),
``$CARDPRESS_LANG``, then the locale (``$LC_ALL``, ``$LC_MESSAGES``, ``$LANG``, ``$LANGUAGE``):
Chinese for a ``zh`` locale, English otherwise.

A table of messages made at import time marks each with ``N_`` (found by the catalogue test,
translated where it is shown: ``_(TABLE[key])``).
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Iterator

LANGUAGES = ("zh_CN", "en")
CATALOGUES = Path(__file__).resolve().parent / "locale" / "zh_CN" / "LC_MESSAGES"

_chosen: str | None = None
_block: ContextVar[str | None] = ContextVar("cardpress_language", default=None)
_catalogue: dict[str, str] | None = None
_ALIASES = {"zh": "zh_CN", "zh_cn": "zh_CN", "zh-cn": "zh_CN", "zh_hans": "zh_CN", "zh-hans": "zh_CN",
            "chinese": "zh_CN", "中文": "zh_CN", "en": "en", "en_us": "en", "en-us": "en", "en_gb": "en",
            "english": "en"}


class UnknownLanguage(ValueError):
    """A language that is not zh_CN or en."""


def normalise(lang: str) -> str:
    """``zh``, ``zh-CN``, ``zh_CN.UTF-8``… → ``zh_CN``; ``en``, ``en_US``… → ``en``."""
    key = lang.strip().split(".")[0].split("@")[0].lower()
    if key in _ALIASES:
        return _ALIASES[key]
    if key.startswith("zh"):
        return "zh_CN"
    if key.startswith("en"):
        return "en"
    raise UnknownLanguage(f"unknown language {lang!r}: use zh_CN or en")


def _from_environment() -> str:
    env = os.environ.get("CARDPRESS_LANG")
    if env:
        try:
            return normalise(env)
        except UnknownLanguage:
            pass
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(name)
        if value:
            first = value.split(":")[0]
            return "zh_CN" if first.lower().startswith("zh") else "en"
    return "en"


def language() -> str:
    """The language messages are given in now: ``zh_CN`` or ``en``."""
    return _block.get() or _chosen or _from_environment()


@contextmanager
def using(lang: str) -> Iterator[None]:
    """Messages made in this block (this thread or task) are in ``lang``."""
    token = _block.set(normalise(lang))
    try:
        yield
    finally:
        _block.reset(token)


def N_(message: str) -> str:
    """Mark a message made before the language is known; translate it where it is shown."""
    return message


def set_language(lang: str | None) -> str:
    """Choose the language (None: back to the environment's); returns the one in force."""
    global _chosen
    _chosen = normalise(lang) if lang else None
    return language()


def _(message: str) -> str:
    """``message`` in the user's language (English is the source; unknown: as written)."""
    if language() == "en":
        return message
    return _zh().get(message) or message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural English message for ``n``, or its Chinese (one form)."""
    if language() != "en":
        found = _zh().get(singular)
        if found:
            return found
    return singular if n == 1 else plural


def catalogue_files() -> list[Path]:
    return sorted(CATALOGUES.glob("*.po"))


def _zh() -> dict[str, str]:
    global _catalogue
    if _catalogue is None:
        merged: dict[str, str] = {}
        for path in catalogue_files():
            try:
                merged.update(read_po(path.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError, ValueError):
                continue  # a damaged catalogue: its messages stay English
        _catalogue = merged
    return _catalogue


# ------------------------------------------------------------------------------ .po files

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _unquote(line: str, number: int) -> str:
    m = _STRING.fullmatch(line.strip())
    if not m:
        raise ValueError(f"line {number}: expected a quoted string, got {line.strip()[:40]!r}")
    return re.sub(r"\\(.)", lambda e: _ESCAPES.get(e.group(1), "\\" + e.group(1)), m.group(1))


def read_po(text: str) -> dict[str, str]:
    """``{msgid: msgstr}`` of a gettext catalogue: its translated entries (not fuzzy ones, not
    the header). For plural entries the first form is kept under the singular msgid."""
    entries: dict[str, str] = {}
    fields: dict[str, str] = {}
    current: str | None = None
    fuzzy = False

    def finish() -> None:
        nonlocal fuzzy
        msgid = fields.get("msgid")
        msgstr = fields.get("msgstr", fields.get("msgstr[0]", ""))
        if msgid and msgstr and not fuzzy:
            key = f"{fields['msgctxt']}\x04{msgid}" if "msgctxt" in fields else msgid
            entries[key] = msgstr
        fields.clear()
        fuzzy = False

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("#"):
            if "msgid" in fields:
                finish()  # comments open the next entry
            if line.startswith("#,") and "fuzzy" in line:
                fuzzy = True
            continue
        if line.startswith('"'):
            if current is None:
                raise ValueError(f"line {number}: a string continues nothing")
            fields[current] += _unquote(line, number)
            continue
        keyword, _sep, rest = line.partition(" ")
        if keyword not in ("msgctxt", "msgid", "msgid_plural", "msgstr") and not keyword.startswith("msgstr["):
            raise ValueError(f"line {number}: unknown keyword {keyword!r}")
        if keyword in ("msgctxt", "msgid") and any(k.startswith("msgstr") for k in fields):
            finish()  # a new entry with no comment between: its flags start afresh
        current = keyword
        fields[keyword] = _unquote(rest, number)
    if fields:
        finish()
    return entries
