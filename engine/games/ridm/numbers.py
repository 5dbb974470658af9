"""The numbers of ridm: the ``rules:`` block of its ``game.yaml``."""

from __future__ import annotations

from typing import Literal

from ...model import Model


class RidmRules(Model):
    ruleset: Literal["ridm"]
    starting_sanity: int
    opening_hand: int
    draw_per_turn: int
    active_deployments_per_turn: int
    skill_slot_charges_per_turn: int
    prep_to_hand_max: int
    sanity_loss_enemy_in_deploy: int
    timer_tick: int
    #: Block lost by the loser of an exchange (attacker on a failed attack, defender otherwise).
    block_loss: int
    #: Charges gained by putting one hand card face down into the charge slot.
    charge_per_card: int


NUMBERS = RidmRules
