"""Events of a designer's own game (the generic ruleset): what can happen at its table, as facts the log keeps."""

from __future__ import annotations


from ...tracker.records import record
from ...tracker.events import Event, register


@record(kw_only=True)
class CounterChanged(Event):
    """A designer-defined counter (game.yaml ``rules.counters``) of ``player`` changed."""

    player: int
    counter: str
    delta: int


register(CounterChanged)
