"""Located problems and the exceptions that carry them.

Every problem a user can fix names where it is: file, line (YAML) or row (CSV/XLSX),
card id and field. Library code collects problems and raises; it never prints or exits.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from .i18n import _


@dataclass(frozen=True, slots=True)
class Location:
    """Where a value came from. ``line`` is 1-based (YAML); ``row`` is 1-based (CSV/XLSX, header = 1)."""

    file: Path | None = None
    line: int | None = None
    row: int | None = None

    def __str__(self) -> str:
        text = str(self.file) if self.file else "<input>"
        if self.line is not None:
            text = _("{where}, line {line}").format(where=text, line=self.line)
        if self.row is not None:
            text = _("{where}, row {row}").format(where=text, row=self.row)
        return text


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the user's data, with everything needed to find it."""

    message: str
    where: Location = Location()
    card: str | None = None
    field: str | None = None
    #: Which rule found it (``"deck-size"``…), for code that sorts problems by rule: the message
    #: is in the user's language, so it is no key. Not part of the problem's identity.
    rule: str | None = dataclasses.field(default=None, compare=False)

    def __str__(self) -> str:
        # Each connective is its own message: Chinese joins them with its own punctuation
        # ("文件，第 3 行：卡牌 'x'，字段 'y'：…").
        text = str(self.where)
        if self.card:
            text = _("{where}, card {card!r}").format(where=text, card=self.card)
        if self.field:
            text = _("{where}, field {field!r}").format(where=text, field=self.field)
        return _("{where}: {message}").format(where=text, message=self.message)


class CardpressError(Exception):
    """Base class of every error cardpress reports to a user."""


class DataError(CardpressError):
    """The user's game data has one or more problems; all of them are listed."""

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__(self._text())

    def _text(self) -> str:
        if len(self.problems) == 1:
            return str(self.problems[0])
        lines = [_("{count} problems:").format(count=len(self.problems))]
        lines += [f"  - {p}" for p in self.problems]
        return "\n".join(lines)


class GameNotFound(CardpressError):
    """``GAME`` is neither a shipped game id nor a folder holding a ``game.yaml``."""
