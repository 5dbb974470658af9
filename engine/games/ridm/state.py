"""ridm on the board: sanity, charges, skill timers and each turn's deployments."""

from __future__ import annotations

from dataclasses import dataclass

from ...tracker import events as kev
from ...tracker.state import Player as BasePlayer, State as BaseState, game_classes, reducer, replace, with_player as _with_player
from .events import SanityChanged, OperatorDeployed, ChargeAdded, ChargesSpent, SkillActivated, TimersTicked, TimerExpired, DeployZoneChanged, ActionPlayed

RULESET = "ridm"


@dataclass(frozen=True, slots=True)
class Timer:
    """A skill in effect: ``left`` turns of its owner remain."""

    operator: str
    skill: str
    left: int


@dataclass(frozen=True, slots=True)
class RidmPlayer(BasePlayer):
    sanity: int = 0
    charges: int = 0
    timers: tuple[Timer, ...] = ()
    deployments_used: int = 0
    skill_slot_charges_used: int = 0
    enemy_in_deploy: bool = False


@dataclass(frozen=True, slots=True)
class RidmState(BaseState):
    pass


State = RidmState


game_classes(RULESET, RidmState, RidmPlayer, Timer)


@reducer(kev.TurnBegan, ruleset=RULESET)
def _turn(s: State, e: kev.TurnBegan) -> State:
    return replace(s, players=tuple(replace(p, deployments_used=0, skill_slot_charges_used=0) for p in s.players))


@reducer(SanityChanged)
def _sanity(s: State, e: SanityChanged) -> State:
    return _with_player(s, e.player, sanity=s.players[e.player].sanity + e.delta)


@reducer(OperatorDeployed)
def _deployed(s: State, e: OperatorDeployed) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, deployments_used=p.deployments_used + (1 if e.active else 0))


@reducer(ChargeAdded)
def _charge(s: State, e: ChargeAdded) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, charges=p.charges + e.count,
                        skill_slot_charges_used=p.skill_slot_charges_used + (1 if e.skill_slot else 0))


@reducer(ChargesSpent)
def _charges_spent(s: State, e: ChargesSpent) -> State:
    return _with_player(s, e.player, charges=s.players[e.player].charges - e.count)


@reducer(SkillActivated)
def _activated(s: State, e: SkillActivated) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, timers=p.timers + (Timer(e.operator, e.skill, e.duration),))


@reducer(TimersTicked)
def _ticked(s: State, e: TimersTicked) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, timers=tuple(replace(t, left=t.left - e.amount) for t in p.timers))


@reducer(TimerExpired)
def _expired(s: State, e: TimerExpired) -> State:
    p = s.players[e.player]
    timers = list(p.timers)
    for i, t in enumerate(timers):
        if t.operator == e.operator and t.skill == e.skill:
            del timers[i]
            break
    return _with_player(s, e.player, timers=tuple(timers))


@reducer(DeployZoneChanged)
def _deploy_zone(s: State, e: DeployZoneChanged) -> State:
    return _with_player(s, e.player, enemy_in_deploy=e.enemy_present)


@reducer(ActionPlayed)
def _action(s: State, e: ActionPlayed) -> State:
    return s
