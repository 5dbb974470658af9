"""Events of a designer's own game (the generic ruleset): what can happen at its table, as facts the log keeps."""

from __future__ import annotations

from dataclasses import dataclass

from ...tracker.events import Event, register


@dataclass(frozen=True, slots=True, kw_only=True)
class CounterChanged(Event):
    """A designer-defined counter (game.yaml ``rules.counters``) of ``player`` changed."""

    player: int
    counter: str
    delta: int


register(CounterChanged)
