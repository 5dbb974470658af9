"""A designer's own game on the board: the counters its game.yaml declares."""

from __future__ import annotations


from ...tracker.records import record
from ...tracker.state import Player as BasePlayer, State as BaseState, game_classes, reducer, with_player as _with_player
from .events import CounterChanged

RULESET = "generic"


@record
class GenericPlayer(BasePlayer):
    #: (counter id, value) pairs in definition order.
    counters: tuple[tuple[str, int], ...] = ()

    def counter(self, name: str) -> int:
        return dict(self.counters).get(name, 0)


@record
class GenericState(BaseState):
    pass


State = GenericState


game_classes(RULESET, GenericState, GenericPlayer)


@reducer(CounterChanged)
def _counter(s: State, e: CounterChanged) -> State:
    p = s.players[e.player]
    values = dict(p.counters)
    values[e.counter] = values.get(e.counter, 0) + e.delta
    return _with_player(s, e.player, counters=tuple(values.items()))
