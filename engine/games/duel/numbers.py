"""The numbers of duel: the ``rules:`` block of its ``game.yaml``."""

from __future__ import annotations

from typing import Literal

from ...model import Model


class DuelRules(Model):
    ruleset: Literal["duel"]
    starting_life: int
    opening_hand: int
    hand_limit: int
    max_fighters: int
    descents_per_turn: int
    direct_descent_max_rank: int
    draw_skills_per_turn: int
    draw_skill_fill_to: int
    in_turn_skills_per_turn: int
    #: The two "send N hand cards to the netherworld, draw 1" in-turn skills.
    in_turn_skill_discard_small: int
    in_turn_skill_discard_large: int
    first_turn_battle_damage: int


NUMBERS = DuelRules
