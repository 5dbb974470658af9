"""How the events of generic read in the log (Chinese, as at the table)."""

from __future__ import annotations

from ...tracker.describe import Name, sentence
from .events import CounterChanged


@sentence(CounterChanged)
def _counter_changed(e: CounterChanged, n: Name) -> str:
    return f"{n(e.player)}的{e.counter} {e.delta:+d}"
