"""Events of ridm: what can happen at its table, as facts the log keeps."""

from __future__ import annotations

from dataclasses import dataclass

from ...tracker.events import Event, register


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


register(SanityChanged, OperatorDeployed, ChargeAdded, ChargesSpent, SkillActivated, TimersTicked, TimerExpired, DeployZoneChanged, ActionPlayed)
