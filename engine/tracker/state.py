"""State and the reducer: ``apply(state, event) -> state``, a pure fold that only copies.

The reducer never decides anything: it writes down what an event says happened. Rules
(what a command produces, what a phase triggers, who lost) live in ``engine.rules.<game>``.

One ``PlayerState`` shape serves all three games; each game reads and shows only its own
resources (see ``engine.rules.<game>.player_json``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Callable, Iterable

from . import codec
from . import events as ev


_FIELDS: dict[type, tuple[str, ...]] = {}


def replace(obj, **changes):
    """``dataclasses.replace`` for our frozen, slotted state classes, 4× faster.

    The reducer copies state on every event, so replaying a long game is mostly this call;
    the stdlib version re-runs ``__init__`` with its argument handling for every field. These
    classes have no ``__post_init__`` and no init-only fields, so copying the slots is exact.
    """
    cls = type(obj)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    new = object.__new__(cls)
    setter = object.__setattr__
    for name in names:
        setter(new, name, changes.pop(name) if name in changes else getattr(obj, name))
    if changes:
        raise TypeError(f"{cls.__name__} has no field(s) {sorted(changes)}")
    return new


@dataclass(frozen=True, slots=True)
class Link:
    """One link of a backrooms effect chain; ``number`` is 1-based in activation order."""

    number: int
    player: int
    text: str
    negates: int | None = None
    negated: bool = False


@dataclass(frozen=True, slots=True)
class Timer:
    """A ridm skill in effect: ``left`` turns of its owner remain."""

    operator: str
    skill: str
    left: int


@dataclass(frozen=True, slots=True)
class PlayerState:
    name: str
    # backrooms
    cost: int = 0
    outposts: tuple[int, ...] = ()
    outposts_destroyed: int = 0
    carries_left: int = 0
    #: HP of the outposts that left with the last cut-out level (carry candidates).
    cut_out_outposts: tuple[int, ...] = ()
    must_place_outpost: bool = False
    # duel
    life: int = 0
    deck: int | None = None
    hand: int = 0
    field: int = 0
    netherworld: int = 0
    decked_out: bool = False
    descents_used: int = 0
    draw_skills_used: int = 0
    in_turn_skills_used: int = 0
    #: duel: which in-turn skills were used this turn (each option at most once).
    in_turn_skill_kinds: tuple[str, ...] = ()
    pierce: bool = False
    # ridm
    sanity: int = 0
    charges: int = 0
    timers: tuple[Timer, ...] = ()
    deployments_used: int = 0
    skill_slot_charges_used: int = 0
    enemy_in_deploy: bool = False
    # generic: (counter id, value) pairs in definition order
    counters: tuple[tuple[str, int], ...] = ()

    def counter(self, name: str) -> int:
        return dict(self.counters).get(name, 0)


@dataclass(frozen=True, slots=True)
class State:
    game: str = ""
    ruleset: str = ""
    players: tuple[PlayerState, ...] = ()
    first: int = 0
    turn: int = 0
    round: int = 0
    active: int = 0
    phase: str = ""
    over: bool = False
    winner: int | None = None
    end_reason: str = ""
    #: What the rules remind the players of in the current phase (reset on each phase).
    reminders: tuple[str, ...] = ()
    # backrooms
    level_pile: tuple[str, ...] = ()
    level_index: int = 0
    cuts: int = 0
    chain: tuple[Link, ...] = ()
    last_resolution: tuple[str, ...] = ()

    @property
    def started(self) -> bool:
        return bool(self.players)

    @property
    def level(self) -> str | None:
        return self.level_pile[self.level_index] if self.level_pile else None

    def player(self, index: int) -> PlayerState:
        return self.players[index]

    def other(self, index: int) -> int:
        return (index + 1) % len(self.players)


#: Snapshots store states through the codec, checked field by field on the way back in.
codec.register(Link, Timer, PlayerState, State)


# ---------------------------------------------------------------------------- reducer

Handler = Callable[[State, ev.Event], State]
_HANDLERS: dict[type, Handler] = {}


def _on(cls: type) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        _HANDLERS[cls] = fn
        return fn

    return register


def _with_player(state: State, index: int, **changes) -> State:
    players = list(state.players)
    players[index] = replace(players[index], **changes)
    return replace(state, players=tuple(players))


def apply(state: State, event: ev.Event) -> State:
    """The state after ``event``. Pure: ``state`` is never modified."""
    return _HANDLERS[type(event)](state, event)


def fold(events: Iterable[ev.Event], state: State | None = None) -> State:
    """Apply ``events`` in order, from ``state`` (default: before the game)."""
    state = State() if state is None else state
    handlers = _HANDLERS
    for event in events:
        state = handlers[type(event)](state, event)
    return state


@_on(ev.GameStarted)
def _started(s: State, e: ev.GameStarted) -> State:
    start = dict(e.starting)
    players = tuple(
        PlayerState(name=name, deck=e.deck_sizes[i] if e.deck_sizes else None, **start)
        for i, name in enumerate(e.players)
    )
    return State(game=e.game, ruleset=e.ruleset, players=players, first=e.first, active=e.first,
                 level_pile=e.level_pile)


@_on(ev.TurnBegan)
def _turn(s: State, e: ev.TurnBegan) -> State:
    fresh = tuple(
        replace(p, descents_used=0, draw_skills_used=0, in_turn_skills_used=0, in_turn_skill_kinds=(), pierce=False,
                deployments_used=0, skill_slot_charges_used=0)
        for p in s.players
    )
    return replace(s, turn=e.turn, round=e.round, active=e.player, players=fresh, phase="", reminders=())


@_on(ev.PhaseEntered)
def _phase(s: State, e: ev.PhaseEntered) -> State:
    return replace(s, phase=e.phase, reminders=())


@_on(ev.ReminderGiven)
def _reminder(s: State, e: ev.ReminderGiven) -> State:
    return replace(s, reminders=s.reminders + (e.text,))


@_on(ev.NoteAdded)
@_on(ev.DieRolled)
def _log_only(s: State, e: ev.Event) -> State:
    return s  # a fact for the log; the board does not change


@_on(ev.Conceded)
def _conceded(s: State, e: ev.Conceded) -> State:
    return s


@_on(ev.GameEnded)
def _ended(s: State, e: ev.GameEnded) -> State:
    return replace(s, over=True, winner=e.winner, end_reason=e.reason)


# backrooms ------------------------------------------------------------------


@_on(ev.CostGained)
def _cost_gained(s: State, e: ev.CostGained) -> State:
    return _with_player(s, e.player, cost=s.players[e.player].cost + e.amount)


@_on(ev.CostSpent)
def _cost_spent(s: State, e: ev.CostSpent) -> State:
    return _with_player(s, e.player, cost=s.players[e.player].cost - e.amount)


@_on(ev.LevelCut)
def _level_cut(s: State, e: ev.LevelCut) -> State:
    players = tuple(replace(p, cut_out_outposts=p.outposts, outposts=(), must_place_outpost=True) for p in s.players)
    return replace(s, players=players, level_index=e.level_index, cuts=s.cuts + 1)


@_on(ev.OutpostPlaced)
def _placed(s: State, e: ev.OutpostPlaced) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, outposts=p.outposts + (e.hp,), must_place_outpost=False)


@_on(ev.OutpostCarried)
def _carried(s: State, e: ev.OutpostCarried) -> State:
    p = s.players[e.player]
    rest = p.cut_out_outposts[:e.index] + p.cut_out_outposts[e.index + 1:]
    return _with_player(s, e.player, outposts=p.outposts + (p.cut_out_outposts[e.index],),
                        cut_out_outposts=rest, carries_left=p.carries_left - 1, must_place_outpost=False)


@_on(ev.OutpostDamaged)
def _damaged(s: State, e: ev.OutpostDamaged) -> State:
    hp = list(s.players[e.player].outposts)
    hp[e.index] -= e.amount
    return _with_player(s, e.player, outposts=tuple(hp))


@_on(ev.OutpostRepaired)
def _repaired(s: State, e: ev.OutpostRepaired) -> State:
    hp = list(s.players[e.player].outposts)
    hp[e.index] += e.amount
    return _with_player(s, e.player, outposts=tuple(hp))


@_on(ev.OutpostDestroyed)
def _destroyed(s: State, e: ev.OutpostDestroyed) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, outposts=p.outposts[:e.index] + p.outposts[e.index + 1:],
                        outposts_destroyed=p.outposts_destroyed + 1)


@_on(ev.ChainLinkAdded)
def _link_added(s: State, e: ev.ChainLinkAdded) -> State:
    link = Link(number=len(s.chain) + 1, player=e.player, text=e.text, negates=e.negates)
    return replace(s, chain=s.chain + (link,), last_resolution=())


@_on(ev.ChainLinkNegated)
def _link_negated(s: State, e: ev.ChainLinkNegated) -> State:
    chain = tuple(replace(l, negated=True) if l.number == e.link else l for l in s.chain)
    return replace(s, chain=chain)


@_on(ev.ChainLinkResolved)
def _link_resolved(s: State, e: ev.ChainLinkResolved) -> State:
    line = f"{e.link}. {e.text}" + ("（已被无效，不产生效果）" if e.negated else "")
    return replace(s, chain=tuple(l for l in s.chain if l.number != e.link),
                   last_resolution=s.last_resolution + (line,))


@_on(ev.ChainCleared)
def _chain_cleared(s: State, e: ev.ChainCleared) -> State:
    return replace(s, chain=())


# duel -----------------------------------------------------------------------


@_on(ev.LifeChanged)
def _life(s: State, e: ev.LifeChanged) -> State:
    return _with_player(s, e.player, life=s.players[e.player].life + e.delta)


#: Zones a duel ``CardsMoved`` counts; "source" cards (under a ranked-up fighter) are in no zone.
COUNTED_ZONES = ("deck", "hand", "field", "netherworld")


@_on(ev.CardsMoved)
def _moved(s: State, e: ev.CardsMoved) -> State:
    p = s.players[e.player]
    changes = {}
    if e.source in COUNTED_ZONES and not (e.source == "deck" and p.deck is None):
        changes[e.source] = getattr(p, e.source) - e.count
    if e.dest in COUNTED_ZONES and not (e.dest == "deck" and p.deck is None):
        changes[e.dest] = changes.get(e.dest, getattr(p, e.dest)) + e.count
    return _with_player(s, e.player, **changes)


@_on(ev.DrawFailed)
def _draw_failed(s: State, e: ev.DrawFailed) -> State:
    return _with_player(s, e.player, decked_out=True)


@_on(ev.DescentMade)
def _descent(s: State, e: ev.DescentMade) -> State:
    return _with_player(s, e.player, descents_used=s.players[e.player].descents_used + 1)


@_on(ev.SkillUsed)
def _skill(s: State, e: ev.SkillUsed) -> State:
    p = s.players[e.player]
    if e.draw_skill:
        return _with_player(s, e.player, draw_skills_used=p.draw_skills_used + 1)
    return _with_player(s, e.player, in_turn_skills_used=p.in_turn_skills_used + 1,
                        in_turn_skill_kinds=p.in_turn_skill_kinds + (e.kind,), pierce=p.pierce or e.kind == "pierce")


@_on(ev.AttackResolved)
def _attack(s: State, e: ev.AttackResolved) -> State:
    # Pierce from the in-turn skill lasts for the next attack only.
    return _with_player(s, e.player, pierce=False) if e.pierce_used else s


@_on(ev.CounterChanged)
def _counter(s: State, e: ev.CounterChanged) -> State:
    p = s.players[e.player]
    values = dict(p.counters)
    values[e.counter] = values.get(e.counter, 0) + e.delta
    return _with_player(s, e.player, counters=tuple(values.items()))


# ridm -----------------------------------------------------------------------


@_on(ev.SanityChanged)
def _sanity(s: State, e: ev.SanityChanged) -> State:
    return _with_player(s, e.player, sanity=s.players[e.player].sanity + e.delta)


@_on(ev.OperatorDeployed)
def _deployed(s: State, e: ev.OperatorDeployed) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, deployments_used=p.deployments_used + (1 if e.active else 0))


@_on(ev.ChargeAdded)
def _charge(s: State, e: ev.ChargeAdded) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, charges=p.charges + e.count,
                        skill_slot_charges_used=p.skill_slot_charges_used + (1 if e.skill_slot else 0))


@_on(ev.ChargesSpent)
def _charges_spent(s: State, e: ev.ChargesSpent) -> State:
    return _with_player(s, e.player, charges=s.players[e.player].charges - e.count)


@_on(ev.SkillActivated)
def _activated(s: State, e: ev.SkillActivated) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, timers=p.timers + (Timer(e.operator, e.skill, e.duration),))


@_on(ev.TimersTicked)
def _ticked(s: State, e: ev.TimersTicked) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, timers=tuple(replace(t, left=t.left - e.amount) for t in p.timers))


@_on(ev.TimerExpired)
def _expired(s: State, e: ev.TimerExpired) -> State:
    p = s.players[e.player]
    timers = list(p.timers)
    for i, t in enumerate(timers):
        if t.operator == e.operator and t.skill == e.skill:
            del timers[i]
            break
    return _with_player(s, e.player, timers=tuple(timers))


@_on(ev.DeployZoneChanged)
def _deploy_zone(s: State, e: ev.DeployZoneChanged) -> State:
    return _with_player(s, e.player, enemy_in_deploy=e.enemy_present)


@_on(ev.ActionPlayed)
def _action(s: State, e: ev.ActionPlayed) -> State:
    return s


_missing = set(ev.EVENT_TYPES.values()) - set(_HANDLERS)
assert not _missing, f"events without a reducer: {_missing}"
