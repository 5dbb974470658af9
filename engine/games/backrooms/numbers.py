"""The numbers of The Backrooms TCG: the ``rules:`` block of its ``game.yaml``."""

from __future__ import annotations

from typing import Literal

from ...model import Model


class BackroomsRules(Model):
    ruleset: Literal["backrooms"]
    starting_cost: int
    #: Cost gained at each prepare phase = the turn number (counted across both players).
    cost_gain: Literal["turn_number"] = "turn_number"
    opening_hand_first: int
    opening_hand_second: int
    draw_per_turn: int
    level_cycle_rounds: int
    outpost_hp: int
    outposts_destroyed_to_lose: int
    outpost_carries_per_game: int
    unit_slots: int
    special_slots: int
    #: A unit with HP at or below this is destroyed (house clarification of "below 0").
    unit_destroyed_at_hp: int = 0
    cost_phase: str = "prepare"


NUMBERS = BackroomsRules
