"""Events of duel: what can happen at its table, as facts the log keeps."""

from __future__ import annotations

from dataclasses import dataclass

from ...tracker.events import Event, register


@dataclass(frozen=True, slots=True, kw_only=True)
class DecksCounted(Event):
    """Setup: cards in each player's deck after the opening hand."""

    deck_sizes: tuple[int, ...]


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


register(DecksCounted, LifeChanged, CardsMoved, DrawFailed, DescentMade, SkillUsed, AttackResolved)
