"""The tracker's errors: small named classes a caller can tell apart (see ``engine.errors``)."""

from __future__ import annotations

from ..errors import CardpressError


class TrackerError(CardpressError):
    """Base of the live-game tracker's errors."""


class IllegalCommand(TrackerError):
    """A command the rules (or the state of the game) refuse; nothing was changed."""


class GameOver(IllegalCommand):
    """The game has ended: only undo, redo and reading the game are allowed."""


class UnknownCommand(IllegalCommand):
    """No such command for this game."""


class BadArgument(IllegalCommand):
    """A command argument (typed at the table, or sent by the page) cannot be read as its kind."""
