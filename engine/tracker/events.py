"""Events: frozen facts, named in the past tense, that the reducer folds into a ``State``.

This module holds the base class and the events every game shares (the turn flow, notes,
rolls, the end); each game's own events live in ``engine/games/<game>/events.py`` and are
made known with ``register``.

An event carries every number it needs (``CostGained(amount=11)``, not "gain the turn number"),
so replaying a log never re-runs a rule: the rules decide once, when the command is given,
and the log remembers the decision and its ``reason``.

Events serialise to plain JSON records ``{"type": "CostGained", "player": 0, ...}``; sequences
are tuples in memory and lists on disk.
"""

from __future__ import annotations

from engine.i18n import _
from typing import Any

from .records import Record, record
from . import codec


@record(kw_only=True)
class Event(Record):
    """Base of every event. ``reason`` says why it happened (a rule, a card, a player's command)."""

    reason: str = ""


# ---------------------------------------------------------------------------- every game


@record(kw_only=True)
class GameStarted(Event):
    game: str
    ruleset: str
    players: tuple[str, ...]
    first: int = 0
    #: What every player starts with, as (field of the game's ``Player``, value) pairs:
    #: (("cost", 5), ("carries_left", 3)).
    starting: tuple[tuple[str, int], ...] = ()
    #: Each player's deck list as (card id, copies), in seat order; empty when no deck was given.
    #: Pieces enter the board from it by card id or name.
    decks: tuple[tuple[tuple[str, int], ...], ...] = ()
    #: The game's own setup fact (a public level pile, deck sizes…), applied right after the
    #: kernel has seated the players.
    setup: Event | None = None


@record(kw_only=True)
class TurnBegan(Event):
    turn: int
    round: int
    player: int


@record(kw_only=True)
class PhaseEntered(Event):
    phase: str


@record(kw_only=True)
class ReminderGiven(Event):
    """A rule the players must carry out themselves (draw, place an outpost…), shown on the board."""

    text: str
    player: int | None = None


@record(kw_only=True)
class NoteAdded(Event):
    text: str


@record(kw_only=True)
class DieRolled(Event):
    """A die of ``faces`` sides (2 = a coin) came up ``result`` (1-based). Drawn once, when the
    command was given, so a replay shows the same result."""

    faces: int
    result: int
    player: int | None = None


@record(kw_only=True)
class Conceded(Event):
    player: int


@record(kw_only=True)
class WinDeclared(Event):
    """``player`` won by a card's or an organisation's special condition; ``reason`` names it."""

    player: int


@record(kw_only=True)
class GameEnded(Event):
    """``winner`` None = a draw (both players lost at once)."""

    winner: int | None


# ---------------------------------------------------------------------------- (de)serialisation

#: Every event class by name: the kernel's here, each game's as its module registers them.
EVENT_TYPES: dict[str, type[Event]] = {}


def register(*classes: type[Event]) -> None:
    """Make events known to the store and the codec (a game's ``events.py`` calls this)."""
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, Event)) or cls is Event:
            raise TypeError(f"{cls!r} is not an event class")
        known = EVENT_TYPES.get(cls.__name__)
        if known is not None and known is not cls:
            raise TypeError(f"two events named {cls.__name__}")
        EVENT_TYPES[cls.__name__] = cls
    codec.register(*classes)


register(*(cls for cls in list(globals().values())
           if isinstance(cls, type) and issubclass(cls, Event) and cls is not Event))


def _games_loaded() -> None:
    """Every game's events are registered before a record is read (a store holds any game's)."""
    from ..games import load_all

    load_all()


def _upcast(record: dict) -> dict:
    """A record as this cardpress writes it. Stores of schema 3 wrote a game's setup (a level
    pile, deck sizes) as extra keys of ``GameStarted``; they are read into that game's setup
    event (its rules' ``LEGACY_SETUP``, whose fields bear those names). A log is never
    rewritten: old records are read as new ones."""
    if record.get(codec.TAG) != "GameStarted":
        return record
    known = set(GameStarted.__dataclass_fields__) | {codec.TAG}
    extra = {k: v for k, v in record.items() if k not in known}
    if not extra:
        return record
    from ..games import game_module, rulesets

    record = {k: v for k, v in record.items() if k in known}
    legacy = {k: v for k, v in extra.items() if v}            # empty ones were another game's defaults
    if not legacy:
        return record
    ruleset = record.get("ruleset")
    cls = getattr(game_module(ruleset), "LEGACY_SETUP", None) if ruleset in rulesets() else None
    if cls is None or not set(legacy) <= set(cls.__dataclass_fields__):
        raise codec.CodecError("", _("a GameStarted of ruleset {ruleset!r} has no field {field!r}").format(ruleset=ruleset, field=next(iter(legacy))))
    record["setup"] = {codec.TAG: cls.__name__, **legacy}
    return record


def to_record(event: Event) -> dict[str, Any]:
    """``CostGained(player=0, amount=11)`` → ``{"type": "CostGained", "player": 0, "amount": 11, ...}``."""
    return codec.encode(event)


def from_record(record: Any, path: str = "") -> Event:
    """Inverse of ``to_record``, checking every field against the event's type hints.

    Raises ``codec.CodecError`` (naming the field) for an unknown type or a value that does not fit.
    """
    if type(record) is not dict or codec.TAG not in record:
        raise codec.CodecError(path, _("expected an event record with a \"type\""))
    tag = record[codec.TAG]
    if type(tag) is str and tag not in EVENT_TYPES:
        _games_loaded()
    return codec.decode(_upcast(record), Event, path)
