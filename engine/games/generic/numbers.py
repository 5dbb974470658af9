"""The numbers of a designer's own game: counters declared in ``game.yaml``."""

from __future__ import annotations

from typing import Literal

from ...model import Model


class Counter(Model):
    """A per-player number the tracker keeps for a designer's own game (life, mana, score…)."""

    label: str
    start: int = 0
    #: The player loses when the counter falls to this value or below (None: never).
    lose_at: int | None = None


class GenericRules(Model):
    """Tracking for any game: turns, rounds and phases from the definition, plus counters.
    ``cardpress new`` writes one; the three shipped games have rules modules of their own."""

    ruleset: Literal["generic"]
    counters: dict[str, Counter] = {}


NUMBERS = GenericRules
