"""Events of The Backrooms TCG: what can happen at its table, as facts the log keeps."""

from __future__ import annotations

from dataclasses import dataclass

from ...tracker.events import Event, register


@dataclass(frozen=True, slots=True, kw_only=True)
class LevelPileLaid(Event):
    """Setup: the public level pile, in cut order (display names), lies face up for everyone."""

    level_pile: tuple[str, ...]


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


register(LevelPileLaid, CostGained, CostSpent, LevelCut, OutpostPlaced, OutpostCarried, OutpostDamaged, OutpostRepaired, OutpostDestroyed, ChainLinkAdded, ChainLinkNegated, ChainLinkResolved, ChainCleared)
