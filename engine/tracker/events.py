"""Events: frozen facts, named in the past tense, that the reducer folds into a ``State``.

An event carries every number it needs (``CostGained(amount=11)``, not "gain the turn number"),
so replaying a log never re-runs a rule: the rules decide once, when the command is given,
and the log remembers the decision and its ``reason``.

Events serialise to plain JSON records ``{"type": "CostGained", "player": 0, ...}``; sequences
are tuples in memory and lists on disk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import codec


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """Base of every event. ``reason`` says why it happened (a rule, a card, a player's command)."""

    reason: str = ""


# ---------------------------------------------------------------------------- every game


@dataclass(frozen=True, slots=True, kw_only=True)
class GameStarted(Event):
    game: str
    ruleset: str
    players: tuple[str, ...]
    first: int = 0
    #: What every player starts with, as (resource, value) pairs: (("cost", 5), ("carries_left", 3)).
    starting: tuple[tuple[str, int], ...] = ()
    #: backrooms: the public level pile, in cut order (display names).
    level_pile: tuple[str, ...] = ()
    #: duel: cards in each player's deck after the opening hand (empty = not tracked).
    deck_sizes: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnBegan(Event):
    turn: int
    round: int
    player: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PhaseEntered(Event):
    phase: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ReminderGiven(Event):
    """A rule the players must carry out themselves (draw, place an outpost…), shown on the board."""

    text: str
    player: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class NoteAdded(Event):
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DieRolled(Event):
    """A die of ``faces`` sides (2 = a coin) came up ``result`` (1-based). Drawn once, when the
    command was given, so a replay shows the same result."""

    faces: int
    result: int
    player: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Conceded(Event):
    player: int


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEnded(Event):
    """``winner`` None = a draw (both players lost at once)."""

    winner: int | None


# ---------------------------------------------------------------------------- backrooms


@dataclass(frozen=True, slots=True, kw_only=True)
class CostGained(Event):
    player: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CostSpent(Event):
    player: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class LevelCut(Event):
    """The current public level was cut out and ``level_index`` of the pile cut in.

    Every player's outposts leave with the cut-out level; each must place or carry one.
    """

    cut_out: str
    cut_in: str
    level_index: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OutpostPlaced(Event):
    player: int
    hp: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OutpostCarried(Event):
    """After a cut: ``index`` of the cut-out outposts goes on into the new level with its HP."""

    player: int
    index: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OutpostDamaged(Event):
    player: int
    index: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OutpostRepaired(Event):
    player: int
    index: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OutpostDestroyed(Event):
    player: int
    index: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ChainLinkAdded(Event):
    player: int
    text: str
    #: 1-based link this one negates when it resolves (a "negate an effect" response).
    negates: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class ChainLinkNegated(Event):
    link: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ChainLinkResolved(Event):
    link: int
    text: str
    negated: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ChainCleared(Event):
    """Every link has resolved; ``order`` is the resolution order shown to the players."""

    order: tuple[int, ...]


# ---------------------------------------------------------------------------- duel


@dataclass(frozen=True, slots=True, kw_only=True)
class LifeChanged(Event):
    player: int
    delta: int


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsMoved(Event):
    """``count`` cards of ``player`` went from one zone to another (deck, hand, field, netherworld, source)."""

    player: int
    source: str
    dest: str
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawFailed(Event):
    """``player`` had to draw from an empty deck (a loss in duel)."""

    player: int


@dataclass(frozen=True, slots=True, kw_only=True)
class DescentMade(Event):
    player: int
    rank: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillUsed(Event):
    """A duel rule skill: ``kind`` is draw1/fill (draw skills) or send2/send3/sendall/pierce (in-turn)."""

    player: int
    kind: str
    draw_skill: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class AttackResolved(Event):
    """A duel attack worked out by the combat rules; ``summary`` says how. The deaths and the
    battle damage follow as their own events."""

    player: int
    summary: str
    pierce_used: bool = False


# ---------------------------------------------------------------------------- ridm


@dataclass(frozen=True, slots=True, kw_only=True)
class SanityChanged(Event):
    player: int
    delta: int


@dataclass(frozen=True, slots=True, kw_only=True)
class OperatorDeployed(Event):
    player: int
    operator: str
    #: False when a card effect deployed it (does not use the turn's active deployment).
    active: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class ChargeAdded(Event):
    player: int
    count: int
    #: True for the once-per-turn skill-slot charge.
    skill_slot: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class ChargesSpent(Event):
    player: int
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class SkillActivated(Event):
    player: int
    operator: str
    skill: str
    duration: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TimersTicked(Event):
    player: int
    amount: int


@dataclass(frozen=True, slots=True, kw_only=True)
class TimerExpired(Event):
    player: int
    operator: str
    skill: str


@dataclass(frozen=True, slots=True, kw_only=True)
class DeployZoneChanged(Event):
    """Whether an enemy operator now stands in ``player``'s deploy zone (costs sanity at turn end)."""

    player: int
    enemy_present: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionPlayed(Event):
    player: int
    name: str
    requirement: int


# ---------------------------------------------------------------------------- generic


@dataclass(frozen=True, slots=True, kw_only=True)
class CounterChanged(Event):
    """A designer-defined counter (game.yaml ``rules.counters``) of ``player`` changed."""

    player: int
    counter: str
    delta: int


# ---------------------------------------------------------------------------- (de)serialisation

EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in list(globals().values())
    if isinstance(cls, type) and issubclass(cls, Event) and cls is not Event
}


codec.register(*EVENT_TYPES.values())


def to_record(event: Event) -> dict[str, Any]:
    """``CostGained(player=0, amount=11)`` → ``{"type": "CostGained", "player": 0, "amount": 11, ...}``."""
    return codec.encode(event)


def from_record(record: Any, path: str = "") -> Event:
    """Inverse of ``to_record``, checking every field against the event's type hints.

    Raises ``codec.CodecError`` (naming the field) for an unknown type or a value that does not fit.
    """
    if type(record) is not dict or codec.TAG not in record:
        raise codec.CodecError(path, "expected an event record with a \"type\"")
    return codec.decode(record, Event, path)
