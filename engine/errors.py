"""Located problems and the exceptions that carry them.

Every problem a user can fix names where it is: file, line (YAML) or row (CSV/XLSX),
card id and field. Library code collects problems and raises; it never prints or exits.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Location:
    """Where a value came from. ``line`` is 1-based (YAML); ``row`` is 1-based (CSV/XLSX, header = 1)."""

    file: Path | None = None
    line: int | None = None
    row: int | None = None

    def __str__(self) -> str:
        parts = [str(self.file) if self.file else "<input>"]
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.row is not None:
            parts.append(f"row {self.row}")
        return ":".join(parts[:1]) + ("".join(f", {p}" for p in parts[1:]))


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the user's data, with everything needed to find it."""

    message: str
    where: Location = Location()
    card: str | None = None
    field: str | None = None

    def __str__(self) -> str:
        bits = [str(self.where)]
        if self.card:
            bits.append(f"card {self.card!r}")
        if self.field:
            bits.append(f"field {self.field!r}")
        return f"{', '.join(bits)}: {self.message}"


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
        lines = [f"{len(self.problems)} problems:"]
        lines += [f"  - {p}" for p in self.problems]
        return "\n".join(lines)


class GameNotFound(CardpressError):
    """``GAME`` is neither a shipped game id nor a folder holding a ``game.yaml``."""
