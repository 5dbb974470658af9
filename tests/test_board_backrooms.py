"""The backrooms board (issue 7 §1): pieces, summon, equip, attack, explore, stun, effects on
values, pieces leaving — all on the pure decider (no store), with small cards of our own."""

from __future__ import annotations

import dataclasses
import json

import pytest

from engine.cards import Card
from engine.tracker import IllegalCommand
from engine.tracker.events import from_record
from engine.tracker.state import fold

from track_helpers import LEVELS, InlineGame, status


def _card(id, type, name, **values):
    return Card(id=id, type=type, name=name, values={"id": id, "type": type, "name": name, **values})


UNIT = dict(number="T", affiliation="通用")
CARDS = {c.id: c for c in (
    _card("grunt", "entity", "蛮兵", cost=2, attack=3, hp=4, carry=2, race="异形", **UNIT),
    _card("brute", "entity", "巨兽", cost=3, attack=5, hp=5, carry=1, race="异形", **UNIT),
    _card("scout", "character", "侦察员", cost=1, attack=1, hp=2, carry=2, race="人类", **UNIT),
    _card("hound", "entity", "猎犬", cost=1, attack=2, hp=2, carry=0, race="犬形", **UNIT),
    _card("lurker", "entity", "潜伏者", cost=2, attack=1, hp=3, carry=0, text="本卡可背面放置于你的特殊放置区。", **UNIT),
    _card("water", "item", "杏仁水", cost=1, text="回复2点生命值。", **UNIT),
    _card("shrine", "item", "神龛", cost=2, text="放置于你的特殊放置区。", **UNIT),
    _card("trick", "effect", "诡计", cost=3, text="对方弃1张牌。", **UNIT),
    _card("crowbar", "equipment", "撬棍", cost=1, text="攻击值+1。", **UNIT),
    _card("torch", "equipment", "手电筒", cost=0, **UNIT),
    _card("base", "outpost", "阿尔法基地", **UNIT),
)}
DECK = {"grunt": 3, "brute": 2, "scout": 3, "hound": 3, "lurker": 1, "water": 3, "shrine": 3, "trick": 1,
        "crowbar": 2, "torch": 3, "base": 3}


def game(**kw) -> InlineGame:
    g = InlineGame("backrooms", decks={"A": DECK, "B": DECK}, cards=CARDS, levels=LEVELS, **kw)
    g.next_to(1, "main")
    return g


def units(g, owner=0):
    return [p for p in g.state.pieces if p.owner == owner and p.kind == "unit"]


def piece(g, pid):
    return g.state.piece(pid)


def rich(g, owner, amount=40):
    g.do("gain", player=g.state.players[owner].name, amount=amount, why="测试")


# ---------------------------------------------------------------------------- outposts are pieces


def test_each_player_starts_with_an_outpost_piece_of_the_games_hp():
    g = game()
    a1, b1 = g.state.pieces
    assert (a1.id, a1.kind, a1.hp, a1.max_hp, a1.owner) == ("A1", "outpost", 20, 20, 0)
    assert (b1.id, b1.owner) == ("B1", 1)
    s = status(g)
    assert [o["id"] for o in s["players"][0]["outposts"]] == ["A1"]
    assert s["players"][0]["units"] == [] and s["players"][0]["specials"] == []


def test_outpost_commands_name_an_outpost_by_player_or_by_piece_id():
    g = game()
    from engine.tracker.describe import describe

    g.do("damage", player="B", amount=5)
    out = g.do("damage", player="B1", amount=2, why="炸弹")
    assert describe(out[0], ("A", "B")) == "B的前哨站1受到2点伤害（B1）" and out[0].reason == "炸弹"
    assert piece(g, "B1").hp == 13 and g.state.players[1].outposts == (13,)
    g.do("repair", player="B1", amount=4)
    assert piece(g, "B1").hp == 17
    g.do("heal", piece="B1", amount=9)
    assert piece(g, "B1").hp == 20, "healing an outpost stops at its printed HP"
    with pytest.raises(IllegalCommand, match="full 20 HP"):
        g.do("repair", player="B", amount=1)
    g.do("repair", player="B", amount=3, beyond_max=True, why="加固")
    assert piece(g, "B1").hp == 23


def test_place_names_an_outpost_card_and_gives_it_the_next_id():
    g = game()
    g.do("place", player="A", card="阿尔法")
    placed = g.state.pieces[-1]
    assert (placed.id, placed.card, placed.name, placed.hp) == ("A2", "base", "阿尔法基地", 20)
    g.do("place", player="A")
    assert g.state.pieces[-1].id == "A3" and g.state.pieces[-1].name == "前哨站"
    assert [o["hp"] for o in status(g)["players"][0]["outposts"]] == [20, 20, 20]


def test_a_level_cut_takes_outpost_pieces_and_carry_brings_the_same_piece_back():
    g = game()
    g.do("damage", player="A", amount=6)
    g.do("summon", card="grunt")
    g.next_to(11, "draw")
    assert [p.id for p in g.state.pieces if p.kind == "outpost"] == []
    assert [p.id for p in units(g)] == ["A2"], "units stay through a cut"
    g.do("carry", player="A")
    back = piece(g, "A1")
    assert back is not None and back.hp == 14 and g.state.players[0].carries_left == 2
    g.do("place", player="B")
    assert g.state.pieces[-1].id == "B2"


def test_an_old_log_of_outpost_events_still_folds_to_what_it_meant():
    """Records written by cardpress before outposts were pieces (damage, repair, place, a
    destroyed outpost, a level cut, a carry) fold to the same HPs, counts and costs."""
    records = json.loads(OLD_LOG)
    state = fold(from_record(r) for r in records)
    a, b = state.players
    assert (a.outposts, a.outposts_destroyed, a.carries_left, a.cost) == ((16,), 0, 2, 39)
    assert (b.outposts, b.outposts_destroyed, b.carries_left, b.cost) == ((20,), 1, 3, 47)
    assert [(p.id, p.hp) for p in state.pieces] == [("A1", 16), ("B3", 20)]
    assert state.pieces_made == (1, 3)


# ---------------------------------------------------------------------------- summon


def test_summon_pays_the_cost_and_puts_a_piece_with_the_cards_values_in_the_first_free_slot():
    g = game()
    assert g.state.players[0].cost == 6
    out = g.do("summon", card="蛮")
    assert [type(e).__name__ for e in out] == ["CostSpent", "BackroomsPieceEntered"]
    p = piece(g, "A2")
    assert (p.card, p.name, p.slot, p.cost, p.attack, p.hp, p.max_hp, p.carry) == ("grunt", "蛮兵", 1, 2, 3, 4, 4, 2)
    assert g.state.players[0].cost == 4
    unit = status(g)["players"][0]["units"][0]
    assert {k: unit[k] for k in ("id", "card", "name", "cost", "attack", "hp", "max_hp", "carry", "slot")} == \
        {"id": "A2", "card": "grunt", "name": "蛮兵", "cost": 2, "attack": 3, "hp": 4, "max_hp": 4, "carry": 2, "slot": 1}
    assert unit["equipment"] == [] and not (unit["attacked"] or unit["explored"] or unit["stunned"])


def test_summon_is_refused_outside_the_main_phase_and_the_owners_turn():
    g = InlineGame("backrooms", decks={"A": DECK, "B": DECK}, cards=CARDS, levels=LEVELS)
    with pytest.raises(IllegalCommand, match="only in 主要阶段"):
        g.do("summon", card="grunt")
    g.next_to(1, "main")
    with pytest.raises(IllegalCommand, match="it is A's turn, not B's"):
        g.do("summon", card="grunt", player="B")
    g.next_to(1, "battle")
    with pytest.raises(IllegalCommand, match="only in 主要阶段"):
        g.do("summon", card="grunt")


def test_summon_is_refused_beyond_the_pool_and_changes_nothing():
    g = game()
    g.do("spend", player="A", amount=4)
    before = g.state
    with pytest.raises(IllegalCommand, match="A has 2 cost; 巨兽 costs 3"):
        g.do("summon", card="brute")
    assert g.state == before


def test_a_full_side_refuses_a_sixth_unit_the_number_comes_from_game_yaml():
    g = game()
    rich(g, 0)
    for card in ("grunt", "grunt", "grunt", "hound", "hound"):
        g.do("summon", card=card)
    assert len(units(g)) == g.ctx.numbers.unit_slots == 5
    g.do("draw", player="A", why="a sixth card in hand, so the slots are what refuses")
    with pytest.raises(IllegalCommand, match="all 5 unit slots of A are full"):
        g.do("summon", card="scout")


def test_unit_slots_and_special_slots_are_read_from_the_rules():
    g = game()
    rules = g.ctx.defn.rules.model_copy(update={"unit_slots": 2, "special_slots": 1})
    g.ctx = dataclasses.replace(g.ctx, defn=g.ctx.defn.model_copy(update={"rules": rules}))
    g.do("summon", card="hound")
    g.do("summon", card="scout")
    with pytest.raises(IllegalCommand, match="all 2 unit slots"):
        g.do("summon", card="hound")
    g.do("summon", card="lurker", special=True)
    with pytest.raises(IllegalCommand, match="all 1 special slots"):
        g.do("summon", card="shrine")


def test_slot_option_and_taken_slots():
    g = game()
    g.do("summon", card="hound", slot=3)
    assert piece(g, "A2").slot == 3
    with pytest.raises(IllegalCommand, match="unit slot 3 of A is taken"):
        g.do("summon", card="hound", slot=3)
    with pytest.raises(IllegalCommand, match="there are 5 unit slots; no slot 6"):
        g.do("summon", card="hound", slot=6)
    g.do("summon", card="hound")
    assert piece(g, "A3").slot == 1


def test_copies_on_the_board_and_in_the_discard_never_exceed_the_deck_list():
    g = game()
    rich(g, 0)
    g.do("summon", card="brute")
    g.do("destroy", piece="A2", why="测试")
    g.do("summon", card="brute")
    with pytest.raises(IllegalCommand, match="A's deck has 2 巨兽; 2 already on the board or in the discard"):
        g.do("summon", card="brute")
    g.do("return_", piece="A3", why="撤离")
    g.do("summon", card="brute")      # back in the hand: it may come again
    assert piece(g, "A4").card == "brute"


def test_summon_looks_cards_up_in_the_deck_list_with_did_you_mean():
    g = game()
    with pytest.raises(IllegalCommand, match="did you mean"):
        g.do("summon", card="grnt")
    with pytest.raises(IllegalCommand, match="is equipment: put it on a unit with equip"):
        g.do("summon", card="crowbar")
    small = InlineGame("backrooms", decks={"A": {"hound": 1}, "B": {"hound": 1}}, cards=CARDS, levels=LEVELS)
    small.next_to(1, "main")
    with pytest.raises(IllegalCommand, match="in A's deck"):
        small.do("summon", card="grunt")


def test_items_are_used_or_stay_as_their_text_says_and_effects_lie_face_down_for_free():
    g = game()
    out = g.do("summon", card="water")
    assert [type(e).__name__ for e in out] == ["CostSpent", "BackroomsCardPlayed"]
    assert g.state.players[0].discard == ("water",) and g.state.players[0].cost == 5
    g.do("summon", card="shrine")
    s = piece(g, "A2")
    assert (s.kind, s.slot, g.state.players[0].cost) == ("special", 1, 3)
    g.do("summon", card="trick", special=True)
    t = piece(g, "A3")
    assert (t.kind, t.slot, t.face_down, g.state.players[0].cost) == ("special", 2, True, 3)
    with pytest.raises(IllegalCommand, match="text does not let it lie in a special slot"):
        g.do("summon", card="grunt", special=True)
    g.do("summon", card="lurker", special=True)
    assert piece(g, "A4").kind == "special" and piece(g, "A4").hp == 3
    assert [p["id"] for p in status(g)["players"][0]["specials"]] == ["A2", "A3", "A4"]


def test_an_effect_from_the_hand_answers_in_the_opponents_turn_but_is_laid_face_down_only_in_ones_own():
    g = game()
    g.next_to(1, "battle")
    out = g.do("summon", card="trick", player="B")
    assert [type(e).__name__ for e in out] == ["CostSpent", "BackroomsCardPlayed"]
    assert g.state.players[1].cost == 2 and g.state.players[1].discard == ("trick",)
    with pytest.raises(IllegalCommand, match="it is A's turn, not B's"):
        g.do("summon", card="trick", player="B", special=True)
    with pytest.raises(IllegalCommand, match="it is A's turn, not B's"):
        g.do("summon", card="water", player="B")


# ---------------------------------------------------------------------------- equip


def test_equipment_uses_carry_pays_its_cost_and_is_refused_at_the_carry_value():
    g = game()
    g.do("summon", card="brute")                 # carry 1, cost 3 → 3 left
    out = g.do("equip", card="撬棍", unit="A2")
    assert [type(e).__name__ for e in out] == ["CostSpent", "BackroomsPieceEntered"]
    assert g.state.players[0].cost == 2
    eq = piece(g, "A3")
    assert (eq.kind, eq.host, eq.card) == ("equipment", "A2", "crowbar")
    with pytest.raises(IllegalCommand, match="carries 1/1: no room for 手电筒"):
        g.do("equip", card="torch", unit="巨兽")
    unit = status(g)["players"][0]["units"][0]
    assert unit["equipment"] == [{"id": "A3", "card": "crowbar", "name": "撬棍"}]
    g.do("summon", card="hound")
    with pytest.raises(IllegalCommand, match="carries 0/0"):
        g.do("equip", card="torch", unit="A4")


def test_equip_refusals_turn_phase_and_non_units():
    g = game()
    g.do("summon", card="grunt")
    g.do("summon", card="shrine")
    with pytest.raises(IllegalCommand, match="not a unit in a unit slot"):
        g.do("equip", card="torch", unit="A3")
    g.next_to(2, "main")
    with pytest.raises(IllegalCommand, match="it is B's turn, not A's"):
        g.do("equip", card="torch", unit="A2")


def test_equipment_goes_to_the_discard_with_its_unit():
    g = game()
    g.do("summon", card="grunt")
    g.do("equip", card="torch", unit="A2")
    g.do("equip", card="crowbar", unit="A2")
    g.do("damage", player="A2", amount=4, why="陷阱")
    assert g.state.piece("A2") is None and g.state.piece("A3") is None and g.state.piece("A4") is None
    assert sorted(g.state.players[0].discard) == ["crowbar", "grunt", "torch"]


# ---------------------------------------------------------------------------- attack


def battle_pair(a="grunt", b="brute"):
    """A summons a on turn 1, B summons b on turn 2; it is turn 3, A's battle phase."""
    g = game()
    g.do("summon", card=a)
    g.next_to(2, "main")
    g.do("summon", card=b)
    g.next_to(3, "battle")
    return g


def test_attack_deals_the_attack_and_takes_the_defenders_attack_back():
    g = battle_pair("grunt", "grunt")     # 3/4 against 3/4
    out = g.do("attack", unit="A2", target="B2")
    assert [type(e).__name__ for e in out] == ["BackroomsUnitAttacked", "BackroomsPieceDamaged",
                                               "BackroomsPieceDamaged"]
    assert (piece(g, "A2").hp, piece(g, "B2").hp) == (1, 1)
    assert piece(g, "A2").attacked and "已攻击" in "\n".join(g.ctx.rules.board_lines(status(g), g.ctx))


def test_counter_damage_can_destroy_both():
    g = battle_pair("brute", "brute")     # 5/5 against 5/5
    g.do("attack", unit="巨兽", target="B2")
    assert g.state.piece("A2") is None and g.state.piece("B2") is None
    assert g.state.players[0].discard == ("brute",) and g.state.players[1].discard == ("brute",)


def test_a_unit_attacks_at_most_once_per_turn_and_again_next_turn():
    g = battle_pair("grunt", "grunt")
    g.do("attack", unit="A2", target="B2")
    with pytest.raises(IllegalCommand, match="already attacked this turn"):
        g.do("attack", unit="A2", target="B2")
    g.next_to(5, "battle")
    assert not piece(g, "A2").attacked


def test_attack_only_in_the_battle_phase_of_the_attackers_turn():
    g = game()
    g.do("summon", card="grunt")
    with pytest.raises(IllegalCommand, match="only in 战斗阶段"):
        g.do("attack", unit="A2", target="B1")
    g.next_to(2, "battle")
    with pytest.raises(IllegalCommand, match="it is B's turn, not A's"):
        g.do("attack", unit="A2", target="B1")


def test_an_outpost_is_shielded_while_a_unit_stands_before_it():
    g = battle_pair("grunt", "hound")
    with pytest.raises(IllegalCommand, match="shielded by B2 猎犬"):
        g.do("attack", unit="A2", target="B1")
    g.do("attack", unit="A2", target="B2")        # 3 vs 2/2: the hound is destroyed, grunt takes 2
    assert g.state.piece("B2") is None and piece(g, "A2").hp == 2
    g.next_to(5, "battle")
    g.do("attack", unit="A2", target="B1")
    assert piece(g, "B1").hp == 17 and piece(g, "A2").hp == 2, "an outpost has no attack to strike back"


def test_an_explored_unit_cannot_attack_be_attacked_or_targeted_and_does_not_shield_its_outpost():
    g = game()
    g.do("summon", card="grunt")
    g.next_to(2, "main")
    g.do("summon", card="scout")
    g.next_to(3, "battle")
    with pytest.raises(IllegalCommand, match="shielded by B2 侦察员"):
        g.do("attack", unit="A2", target="B1")
    g.next_to(4, "main")
    g.do("explore", unit="侦察员")
    g.next_to(4, "battle")
    with pytest.raises(IllegalCommand, match="exploring until its owner.s next turn: it cannot attack"):
        g.do("attack", unit="B2", target="A2")
    g.next_to(5, "battle")          # A's turn: the scout explores until B's next turn begins
    assert piece(g, "B2").explored
    with pytest.raises(IllegalCommand, match="exploring until its owner.s next turn: it cannot be attacked"):
        g.do("attack", unit="A2", target="B2")
    for name, args in (("damage", {"player": "B2", "amount": 1}), ("buff", {"piece": "B2", "delta": "+1"}),
                       ("heal", {"piece": "B2", "amount": 1}), ("stun", {"piece": "B2"}),
                       ("destroy", {"piece": "B2"})):
        with pytest.raises(IllegalCommand, match="exploring until its owner.s next turn: it cannot be"):
            g.do(name, **args)
    g.do("attack", unit="A2", target="B1")
    assert piece(g, "B1").hp == 17, "the explorer does not stand before its outpost"
    g.next_to(6, "draw")
    assert not piece(g, "B2").explored


def test_stunned_units_cannot_attack_or_explore_until_their_owners_turn_has_ended():
    g = game()
    g.do("summon", card="scout")
    g.next_to(2, "main")
    g.do("stun", piece="A2", why="闪光弹")              # stunned in B's turn …
    g.next_to(3, "main")
    assert piece(g, "A2").stunned, "… it misses its owner's next turn"
    with pytest.raises(IllegalCommand, match="stunned this turn: it cannot explore"):
        g.do("explore", unit="A2")
    g.next_to(3, "battle")
    with pytest.raises(IllegalCommand, match="stunned this turn: it cannot attack"):
        g.do("attack", unit="A2", target="B1")
    g.next_to(4, "draw")
    assert not piece(g, "A2").stunned
    g.next_to(5, "main")
    g.do("stun", piece="A2")
    with pytest.raises(IllegalCommand, match="already stunned"):
        g.do("stun", piece="A2")
    g.next_to(6, "draw")
    assert not piece(g, "A2").stunned, "stunned in its own turn: it recovers when that turn ends"


def test_attacking_outposts_destroys_them_counts_them_and_ends_the_game():
    g = game()
    g.do("summon", card="grunt")
    g.do("buff", piece="A2", delta="+30", why="测试：巨力")
    g.next_to(2, "main")
    g.do("place", player="B")
    g.do("place", player="B")
    for n, turn in enumerate((3, 5, 7)):
        g.next_to(turn, "battle")
        target = [p.id for p in g.state.pieces if p.owner == 1 and p.kind == "outpost"][0]
        out = g.do("attack", unit="A2", target=target)
        assert g.state.players[1].outposts_destroyed == n + 1
    names = [type(e).__name__ for e in out]
    assert names == ["BackroomsUnitAttacked", "OutpostDamaged", "OutpostDestroyed", "GameEnded"]
    assert g.state.over and g.state.winner == 0 and "摧毁3座" in g.state.end_reason


# ---------------------------------------------------------------------------- explore


def test_only_humans_explore_and_the_end_phase_reminds_of_the_optional_search():
    g = game()
    g.do("summon", card="hound")
    with pytest.raises(IllegalCommand, match="not human"):
        g.do("explore", unit="A2")
    g.do("summon", card="scout")
    g.do("explore", unit="A3")
    with pytest.raises(IllegalCommand, match="exploring until its owner.s next turn: it cannot explore"):
        g.do("explore", unit="A3")
    g.next_to(1, "battle")
    with pytest.raises(IllegalCommand, match="exploring until its owner.s next turn: it cannot attack"):
        g.do("attack", unit="A3", target="B1")
    g.next_to(1, "end")
    assert "A3 侦察员探索完成：A可从牌组检索1张道具或装备" in g.state.reminders
    g.next_to(2, "battle")
    assert piece(g, "A3").explored, "still exploring through the opponent's turn"
    g.next_to(3, "draw")
    assert not piece(g, "A3").explored


def test_explore_only_in_the_main_phase_of_its_owners_turn():
    g = game()
    g.do("summon", card="scout")
    g.next_to(1, "battle")
    with pytest.raises(IllegalCommand, match="only in 主要阶段"):
        g.do("explore", unit="A2")
    g.next_to(2, "main")
    with pytest.raises(IllegalCommand, match="it is B's turn, not A's"):
        g.do("explore", unit="A2")


# ---------------------------------------------------------------------------- effects on values


def test_buff_changes_attack_or_hp_and_is_logged_with_its_reason():
    g = game()
    g.do("summon", card="grunt")
    out = g.do("buff", piece="A2", delta="+2", why="撬棍")
    assert out[0].reason == "撬棍" and piece(g, "A2").attack == 5
    g.do("buff", piece="A2", delta="-9", why="衰弱")
    assert piece(g, "A2").attack == 0, "attack never goes below 0"
    with pytest.raises(IllegalCommand, match="has 0 attack already"):
        g.do("buff", piece="A2", delta="-1")
    g.do("buff", piece="A2", delta="+2", hp=True, why="护甲")
    assert (piece(g, "A2").hp, piece(g, "A2").max_hp) == (6, 6)
    g.do("buff", piece="A2", delta="-6", hp=True, why="辐射")
    assert g.state.piece("A2") is None, "HP at 0 destroys the unit"
    with pytest.raises(IllegalCommand, match="one value at a time"):
        g.do("buff", piece="A1", delta="+1", attack=True, hp=True)
    g.do("summon", card="grunt")
    g.do("equip", card="torch", unit="A3")
    with pytest.raises(IllegalCommand, match="no attack or HP to change"):
        g.do("buff", piece="A4", delta="+1")


def test_a_name_both_sides_have_means_the_acting_players_piece():
    g = battle_pair("grunt", "grunt")
    g.do("attack", unit="蛮兵", target="B2")
    assert piece(g, "A2").attacked and not piece(g, "B2").attacked
    with pytest.raises(IllegalCommand, match="could be any of: A2 蛮兵、B2 蛮兵"):
        g.do("damage", player="蛮兵", amount=1)


def test_damage_and_heal_any_piece_heal_caps_at_printed_hp():
    g = game()
    g.do("summon", card="grunt")
    g.do("damage", player="A2", amount=3, why="陷阱")
    assert piece(g, "A2").hp == 1
    out = g.do("heal", piece="A2", amount=5, why="杏仁水")
    assert piece(g, "A2").hp == 4 and "至多回复至4" in out[0].reason
    with pytest.raises(IllegalCommand, match="full 4 HP"):
        g.do("heal", piece="A2", amount=1)
    g.do("heal", piece="A2", amount=2, beyond_max=True, why="强化")
    assert piece(g, "A2").hp == 6
    g.do("summon", card="shrine")
    with pytest.raises(IllegalCommand, match="has no HP"):
        g.do("damage", player="A3", amount=1)


# ---------------------------------------------------------------------------- leaving the board


def test_destroy_discard_return_and_remove():
    g = game()
    rich(g, 0)
    g.do("summon", card="grunt")
    g.do("summon", card="hound")
    g.do("summon", card="shrine")
    g.do("summon", card="scout")
    g.do("equip", card="torch", unit="A5")
    g.do("destroy", piece="A2", why="现实故障")
    g.do("discard", piece="A4", why="使用完毕")
    g.do("return_", piece="A5", why="撤离")
    g.do("remove", piece="A3", why="虚空")
    assert [p.id for p in g.state.pieces] == ["A1", "B1"]
    assert g.state.players[0].discard == ("grunt", "shrine", "torch")
    with pytest.raises(IllegalCommand, match="an outpost: it can be destroyed"):
        g.do("discard", piece="B1")
    g.do("destroy", piece="B1", why="效果")
    assert g.state.players[1].outposts_destroyed == 1 and g.state.over


def test_ids_stay_fixed_and_are_never_reused_after_a_piece_leaves():
    g = game()
    g.do("summon", card="hound")
    g.do("summon", card="hound")
    g.do("destroy", piece="A2")
    g.do("summon", card="hound")
    assert [p.id for p in units(g)] == ["A3", "A4"]
    assert piece(g, "A3").slot == 2 and piece(g, "A4").slot == 1


def test_undo_restores_the_exact_state_and_the_log_folds_to_it():
    g = battle_pair("grunt", "brute")
    before, n = g.state, len(g.events)
    g.do("attack", unit="A2", target="B2")
    g.undo()
    assert g.state == before and fold(g.events) == before and len(g.events) == n


def test_a_board_with_pieces_survives_the_snapshot_codec():
    from engine.tracker import codec
    from engine.tracker.state import State

    g = game()
    g.do("summon", card="grunt")
    g.do("equip", card="torch", unit="A2")
    g.do("summon", card="trick", special=True)
    g.next_to(11, "draw")                      # a cut: the outposts wait in ``cut_out``
    assert g.state.cut_out
    text = codec.canonical(codec.encode(g.state))
    assert codec.decode(json.loads(text), State) == g.state


# ---------------------------------------------------------------------------- what players read


def test_board_lines_and_log_lines_show_the_pieces_in_chinese():
    from engine.tracker.describe import describe

    g = game()
    g.do("summon", card="grunt")
    g.do("equip", card="撬棍", unit="A2")
    g.do("damage", player="A2", amount=2)
    g.do("summon", card="shrine")
    lines = g.ctx.rules.board_lines(status(g), g.ctx)
    text = "\n".join(lines)
    assert "A2 蛮兵 攻3 HP2/4 承载1/2 [装备：A3 撬棍]" in text
    assert "单位（1/5）：1号 A2 蛮兵" in text and "特殊（1/5）：1号 A4 神龛" in text
    assert "前哨：A1 前哨站 HP20/20" in text
    said = [describe(e, ("A", "B")) for e in g.events[-6:]]
    assert "A将A2 蛮兵（攻3 HP4 承载2）放入单位区1号位" in said[0] or any("蛮兵" in x for x in said)
    assert "A2受到2点伤害" in said and "A将A3 撬棍装备于A2" in said


def test_the_cli_offers_the_board_commands(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli.track import app
    from track_helpers import write_backrooms_game

    folder = write_backrooms_game(tmp_path / "g")
    db = str(tmp_path / "t.sqlite")
    run = lambda *a: CliRunner().invoke(app, [*a, "--db", db])
    new = CliRunner().invoke(app, ["new", str(folder), "--players", "A", "B", "--deck", f"A={folder}/decks/a.yaml",
                                   "--deck", f"B={folder}/decks/b.yaml", "--db", db])
    assert new.exit_code == 0, new.output
    for _ in range(2):
        assert run("next").exit_code == 0
    result = run("summon", "道具1", "--special", "--slot", "2")
    assert result.exit_code == 0, result.output
    status = json.loads(run("status", "--json").output)
    assert status["players"][0]["specials"][0]["id"] == "A2" and status["players"][0]["specials"][0]["slot"] == 2
    assert status["players"][0]["cost"] == 5


OLD_LOG = r'''[{"type":"GameStarted","reason":"开局：费用5，首个层级：Level 0","game":"backrooms","ruleset":"backrooms","players":["A","B"],"first":0,"starting":[["cost",5],["carries_left",3]],"decks":[],"setup":{"type":"LevelPileLaid","reason":"公共层级牌堆洗好，正面朝上","level_pile":["Level 0","Level 1","Level 2"]}},{"type":"OutpostPlaced","reason":"开局：各放置1座前哨站","player":0,"hp":20,"piece":"","card":"","name":"","attack":0},{"type":"OutpostPlaced","reason":"开局：各放置1座前哨站","player":1,"hp":20,"piece":"","card":"","name":"","attack":0},{"type":"TurnBegan","reason":"第1轮（第1回合）开始，行动方：A","turn":1,"round":1,"player":0},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"抽牌阶段","text":"第1轮不抽牌（A开局已抽5张）","player":0},{"type":"ReminderGiven","reason":"层级倒计时","text":"5回合后切出层级：下一层级是Level 1","player":null},{"type":"ReminderGiven","reason":"开局抽牌","text":"开局：先手A抽5张，后手B抽6张","player":null},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第1轮）的费用","player":0,"amount":1},{"type":"ReminderGiven","reason":"准备阶段","text":"A获得1费用（共6）","player":0},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null},{"type":"OutpostDamaged","reason":"攻击/效果伤害","player":1,"index":0,"amount":7},{"type":"OutpostRepaired","reason":"卡牌效果","player":1,"index":0,"amount":3},{"type":"CostSpent","reason":"summon","player":0,"amount":2},{"type":"OutpostPlaced","reason":"建立前哨站（免费）","player":1,"hp":20,"piece":"B2","card":"","name":"","attack":0},{"type":"OutpostDamaged","reason":"攻击/效果伤害","player":1,"index":1,"amount":20},{"type":"OutpostDestroyed","reason":"前哨站生命值降至0（≤0即摧毁）","player":1,"index":1},{"type":"ChainLinkAdded","reason":"发动效果","player":0,"text":"抽牌","negates":null},{"type":"ChainLinkResolved","reason":"连锁后发先至：连锁1处理","link":1,"text":"抽牌","negated":false},{"type":"ChainCleared","reason":"连锁处理完毕","order":[1]},{"type":"PhaseEntered","reason":"主要阶段结束","phase":"battle"},{"type":"ReminderGiven","reason":"战斗阶段","text":"场上每个单位至多攻击一次。","player":null},{"type":"PhaseEntered","reason":"战斗阶段结束","phase":"end"},{"type":"ReminderGiven","reason":"结束阶段","text":"发动结束阶段效果，背面放置的也可以。","player":null},{"type":"TurnBegan","reason":"第2轮（第1回合）开始，行动方：B","turn":2,"round":1,"player":1},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"抽牌阶段","text":"B抽1张牌","player":1},{"type":"ReminderGiven","reason":"层级倒计时","text":"5回合后切出层级：下一层级是Level 1","player":null},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第2轮）的费用","player":1,"amount":2},{"type":"ReminderGiven","reason":"准备阶段","text":"B获得2费用（共7）","player":1},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null},{"type":"PhaseEntered","reason":"主要阶段结束","phase":"battle"},{"type":"ReminderGiven","reason":"战斗阶段","text":"场上每个单位至多攻击一次。","player":null},{"type":"PhaseEntered","reason":"战斗阶段结束","phase":"end"},{"type":"ReminderGiven","reason":"结束阶段","text":"发动结束阶段效果，背面放置的也可以。","player":null},{"type":"TurnBegan","reason":"第3轮（第2回合）开始，行动方：A","turn":3,"round":2,"player":0},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"抽牌阶段","text":"A抽1张牌","player":0},{"type":"ReminderGiven","reason":"层级倒计时","text":"4回合后切出层级：下一层级是Level 1","player":null},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第3轮）的费用","player":0,"amount":3},{"type":"ReminderGiven","reason":"准备阶段","text":"A获得3费用（共7）","player":0},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null},{"type":"PhaseEntered","reason":"主要阶段结束","phase":"battle"},{"type":"ReminderGiven","reason":"战斗阶段","text":"场上每个单位至多攻击一次。","player":null},{"type":"PhaseEntered","reason":"战斗阶段结束","phase":"end"},{"type":"ReminderGiven","reason":"结束阶段","text":"发动结束阶段效果，背面放置的也可以。","player":null},{"type":"TurnBegan","reason":"第4轮（第2回合）开始，行动方：B","turn":4,"round":2,"player":1},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"抽牌阶段","text":"B抽1张牌","player":1},{"type":"ReminderGiven","reason":"层级倒计时","text":"4回合后切出层级：下一层级是Level 1","player":null},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第4轮）的费用","player":1,"amount":4},{"type":"ReminderGiven","reason":"准备阶段","text":"B获得4费用（共11）","player":1},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null},{"type":"PhaseEntered","reason":"主要阶段结束","phase":"battle"},{"type":"ReminderGiven","reason":"战斗阶段","text":"场上每个单位至多攻击一次。","player":null},{"type":"PhaseEntered","reason":"战斗阶段结束","phase":"end"},{"type":"ReminderGiven","reason":"结束阶段","text":"发动结束阶段效果，背面放置的也可以。","player":null},{"type":"TurnBegan","reason":"第5轮（第3回合）开始，行动方：A","turn":5,"round":3,"player":0},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"抽牌阶段","text":"A抽1张牌","player":0},{"type":"ReminderGiven","reason":"层级倒计时","text":"3回合后切出层级：下一层级是Level 1","player":null},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第5轮）的费用","player":0,"amount":5},{"type":"ReminderGiven","reason":"准备阶段","text":"A获得5费用（共12）","player":0},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null},{"type":"PhaseEntered","reason":"主要阶段结束","phase":"battle"},{"type":"ReminderGiven","reason":"战斗阶段","text":"场上每个单位至多攻击一次。","player":null},{"type":"PhaseEntered","reason":"战斗阶段结束","phase":"end"},{"type":"ReminderGiven","reason":"结束阶段","text":"发动结束阶段效果，背面放置的也可以。","player":null},{"type":"TurnBegan","reason":"第6轮（第3回合）开始，行动方：B","turn":6,"round":3,"player":1},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"抽牌阶段","text":"B抽1张牌","player":1},{"type":"ReminderGiven","reason":"层级倒计时","text":"3回合后切出层级：下一层级是Level 1","player":null},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第6轮）的费用","player":1,"amount":6},{"type":"ReminderGiven","reason":"准备阶段","text":"B获得6费用（共17）","player":1},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null},{"type":"PhaseEntered","reason":"主要阶段结束","phase":"battle"},{"type":"ReminderGiven","reason":"战斗阶段","text":"场上每个单位至多攻击一次。","player":null},{"type":"PhaseEntered","reason":"战斗阶段结束","phase":"end"},{"type":"ReminderGiven","reason":"结束阶段","text":"发动结束阶段效果，背面放置的也可以。","player":null},{"type":"TurnBegan","reason":"第7轮（第4回合）开始，行动方：A","turn":7,"round":4,"player":0},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"抽牌阶段","text":"A抽1张牌","player":0},{"type":"ReminderGiven","reason":"层级倒计时","text":"2回合后切出层级：下一层级是Level 1","player":null},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第7轮）的费用","player":0,"amount":7},{"type":"ReminderGiven","reason":"准备阶段","text":"A获得7费用（共19）","player":0},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null},{"type":"PhaseEntered","reason":"主要阶段结束","phase":"battle"},{"type":"ReminderGiven","reason":"战斗阶段","text":"场上每个单位至多攻击一次。","player":null},{"type":"PhaseEntered","reason":"战斗阶段结束","phase":"end"},{"type":"ReminderGiven","reason":"结束阶段","text":"发动结束阶段效果，背面放置的也可以。","player":null},{"type":"TurnBegan","reason":"第8轮（第4回合）开始，行动方：B","turn":8,"round":4,"player":1},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"抽牌阶段","text":"B抽1张牌","player":1},{"type":"ReminderGiven","reason":"层级倒计时","text":"2回合后切出层级：下一层级是Level 1","player":null},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第8轮）的费用","player":1,"amount":8},{"type":"ReminderGiven","reason":"准备阶段","text":"B获得8费用（共25）","player":1},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null},{"type":"PhaseEntered","reason":"主要阶段结束","phase":"battle"},{"type":"ReminderGiven","reason":"战斗阶段","text":"场上每个单位至多攻击一次。","player":null},{"type":"PhaseEntered","reason":"战斗阶段结束","phase":"end"},{"type":"ReminderGiven","reason":"结束阶段","text":"发动结束阶段效果，背面放置的也可以。","player":null},{"type":"TurnBegan","reason":"第9轮（第5回合）开始，行动方：A","turn":9,"round":5,"player":0},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"抽牌阶段","text":"A抽1张牌","player":0},{"type":"ReminderGiven","reason":"层级倒计时","text":"1回合后切出层级：下一层级是Level 1","player":null},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第9轮）的费用","player":0,"amount":9},{"type":"ReminderGiven","reason":"准备阶段","text":"A获得9费用（共28）","player":0},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null},{"type":"PhaseEntered","reason":"主要阶段结束","phase":"battle"},{"type":"ReminderGiven","reason":"战斗阶段","text":"场上每个单位至多攻击一次。","player":null},{"type":"PhaseEntered","reason":"战斗阶段结束","phase":"end"},{"type":"ReminderGiven","reason":"结束阶段","text":"发动结束阶段效果，背面放置的也可以。","player":null},{"type":"TurnBegan","reason":"第10轮（第5回合）开始，行动方：B","turn":10,"round":5,"player":1},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"抽牌阶段","text":"B抽1张牌","player":1},{"type":"ReminderGiven","reason":"层级倒计时","text":"1回合后切出层级：下一层级是Level 1","player":null},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第10轮）的费用","player":1,"amount":10},{"type":"ReminderGiven","reason":"准备阶段","text":"B获得10费用（共35）","player":1},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null},{"type":"PhaseEntered","reason":"主要阶段结束","phase":"battle"},{"type":"ReminderGiven","reason":"战斗阶段","text":"场上每个单位至多攻击一次。","player":null},{"type":"PhaseEntered","reason":"战斗阶段结束","phase":"end"},{"type":"ReminderGiven","reason":"结束阶段","text":"发动结束阶段效果，背面放置的也可以。","player":null},{"type":"TurnBegan","reason":"第11轮（第6回合）开始，行动方：A","turn":11,"round":6,"player":0},{"type":"LevelCut","reason":"第6回合开始：每5回合切出层级","cut_out":"Level 0","cut_in":"Level 1","level_index":1},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"层级切换","text":"层级切出：当前层级为Level 1","player":null},{"type":"ReminderGiven","reason":"抽牌阶段","text":"A抽1张牌","player":0},{"type":"ReminderGiven","reason":"层级倒计时","text":"5回合后切出层级：下一层级是Level 2","player":null},{"type":"ReminderGiven","reason":"层级切出后","text":"A须放置新前哨站或带入前哨（剩余3次）","player":0},{"type":"ReminderGiven","reason":"层级切出后","text":"B须放置新前哨站或带入前哨（剩余3次）","player":1},{"type":"OutpostCarried","reason":"带入下一层级（本局剩余2次）","player":0,"index":0},{"type":"OutpostPlaced","reason":"层级切出后放置新前哨站","player":1,"hp":20,"piece":"B3","card":"","name":"","attack":0},{"type":"OutpostDamaged","reason":"攻击/效果伤害","player":0,"index":0,"amount":4},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第11轮）的费用","player":0,"amount":11},{"type":"ReminderGiven","reason":"准备阶段","text":"A获得11费用（共39）","player":0},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null},{"type":"PhaseEntered","reason":"主要阶段结束","phase":"battle"},{"type":"ReminderGiven","reason":"战斗阶段","text":"场上每个单位至多攻击一次。","player":null},{"type":"PhaseEntered","reason":"战斗阶段结束","phase":"end"},{"type":"ReminderGiven","reason":"结束阶段","text":"发动结束阶段效果，背面放置的也可以。","player":null},{"type":"TurnBegan","reason":"第12轮（第6回合）开始，行动方：B","turn":12,"round":6,"player":1},{"type":"PhaseEntered","reason":"回合开始","phase":"draw"},{"type":"ReminderGiven","reason":"抽牌阶段","text":"B抽1张牌","player":1},{"type":"ReminderGiven","reason":"层级倒计时","text":"5回合后切出层级：下一层级是Level 2","player":null},{"type":"PhaseEntered","reason":"抽牌阶段结束","phase":"prepare"},{"type":"CostGained","reason":"准备阶段：获得等于当前轮数（第12轮）的费用","player":1,"amount":12},{"type":"ReminderGiven","reason":"准备阶段","text":"B获得12费用（共47）","player":1},{"type":"PhaseEntered","reason":"准备阶段结束","phase":"main"},{"type":"ReminderGiven","reason":"主要阶段","text":"召唤卡牌、使用效果与道具，次数不限。","player":null}]'''
