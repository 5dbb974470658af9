"""The Backrooms TCG on the board: each player's cost and outposts, the public level pile, the effect chain."""

from __future__ import annotations

from dataclasses import dataclass

from ...tracker.state import Player as BasePlayer, State as BaseState, game_classes, reducer, replace, with_player as _with_player
from .events import LevelPileLaid, CostGained, CostSpent, LevelCut, OutpostPlaced, OutpostCarried, OutpostDamaged, OutpostRepaired, OutpostDestroyed, ChainLinkAdded, ChainLinkNegated, ChainLinkResolved, ChainCleared

RULESET = "backrooms"


@dataclass(frozen=True, slots=True)
class Link:
    """One link of the effect chain; ``number`` is 1-based in activation order."""

    number: int
    player: int
    text: str
    negates: int | None = None
    negated: bool = False


@dataclass(frozen=True, slots=True)
class BackroomsPlayer(BasePlayer):
    cost: int = 0
    outposts: tuple[int, ...] = ()
    outposts_destroyed: int = 0
    carries_left: int = 0
    #: HP of the outposts that left with the last cut-out level (carry candidates).
    cut_out_outposts: tuple[int, ...] = ()
    must_place_outpost: bool = False


@dataclass(frozen=True, slots=True)
class BackroomsState(BaseState):
    #: The public level pile, in cut order (display names), face up for everyone.
    level_pile: tuple[str, ...] = ()
    level_index: int = 0
    cuts: int = 0
    chain: tuple[Link, ...] = ()
    last_resolution: tuple[str, ...] = ()

    @property
    def level(self) -> str | None:
        return self.level_pile[self.level_index] if self.level_pile else None


State = BackroomsState


game_classes(RULESET, BackroomsState, BackroomsPlayer, Link)


@reducer(LevelPileLaid)
def _pile(s: State, e: LevelPileLaid) -> State:
    return replace(s, level_pile=e.level_pile)


@reducer(CostGained)
def _cost_gained(s: State, e: CostGained) -> State:
    return _with_player(s, e.player, cost=s.players[e.player].cost + e.amount)


@reducer(CostSpent)
def _cost_spent(s: State, e: CostSpent) -> State:
    return _with_player(s, e.player, cost=s.players[e.player].cost - e.amount)


@reducer(LevelCut)
def _level_cut(s: State, e: LevelCut) -> State:
    players = tuple(replace(p, cut_out_outposts=p.outposts, outposts=(), must_place_outpost=True) for p in s.players)
    return replace(s, players=players, level_index=e.level_index, cuts=s.cuts + 1)


@reducer(OutpostPlaced)
def _placed(s: State, e: OutpostPlaced) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, outposts=p.outposts + (e.hp,), must_place_outpost=False)


@reducer(OutpostCarried)
def _carried(s: State, e: OutpostCarried) -> State:
    p = s.players[e.player]
    rest = p.cut_out_outposts[:e.index] + p.cut_out_outposts[e.index + 1:]
    return _with_player(s, e.player, outposts=p.outposts + (p.cut_out_outposts[e.index],),
                        cut_out_outposts=rest, carries_left=p.carries_left - 1, must_place_outpost=False)


@reducer(OutpostDamaged)
def _damaged(s: State, e: OutpostDamaged) -> State:
    hp = list(s.players[e.player].outposts)
    hp[e.index] -= e.amount
    return _with_player(s, e.player, outposts=tuple(hp))


@reducer(OutpostRepaired)
def _repaired(s: State, e: OutpostRepaired) -> State:
    hp = list(s.players[e.player].outposts)
    hp[e.index] += e.amount
    return _with_player(s, e.player, outposts=tuple(hp))


@reducer(OutpostDestroyed)
def _destroyed(s: State, e: OutpostDestroyed) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, outposts=p.outposts[:e.index] + p.outposts[e.index + 1:],
                        outposts_destroyed=p.outposts_destroyed + 1)


@reducer(ChainLinkAdded)
def _link_added(s: State, e: ChainLinkAdded) -> State:
    link = Link(number=len(s.chain) + 1, player=e.player, text=e.text, negates=e.negates)
    return replace(s, chain=s.chain + (link,), last_resolution=())


@reducer(ChainLinkNegated)
def _link_negated(s: State, e: ChainLinkNegated) -> State:
    chain = tuple(replace(l, negated=True) if l.number == e.link else l for l in s.chain)
    return replace(s, chain=chain)


@reducer(ChainLinkResolved)
def _link_resolved(s: State, e: ChainLinkResolved) -> State:
    line = f"{e.link}. {e.text}" + ("（已被无效，不产生效果）" if e.negated else "")
    return replace(s, chain=tuple(l for l in s.chain if l.number != e.link),
                   last_resolution=s.last_resolution + (line,))


@reducer(ChainCleared)
def _chain_cleared(s: State, e: ChainCleared) -> State:
    return replace(s, chain=())
