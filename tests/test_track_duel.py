"""Duel at the table: scripted games against the rules (RULES.md §2)."""

from __future__ import annotations

import pytest

from engine.tracker import IllegalCommand
from engine.tracker.view import live_status

from track_helpers import advance_to, event_types, new_game


def test_first_turn_skips_turn_start_and_draw_and_battle_damage_is_zero(tmp_path):
    live = new_game(tmp_path, "duel")
    s = live_status(live)
    assert (s["turn"], s["phase"], s["active"]) == (1, "main", "A")
    assert [p["life"] for p in s["players"]] == [20, 20]
    assert [p["deck"] for p in s["players"]] == [35, 35] and [p["hand"] for p in s["players"]] == [5, 5]
    assert any("战斗伤害为0" in r for r in s["reminders"])
    out = live.do("battle", player="B", amount=6)
    assert out.events[0].delta == 0 and "先手第一回合" in out.events[0].reason
    assert live.state.players[1].life == 20
    advance_to(live, 2, "main")
    live.do("battle", player="A", amount=6)
    assert live.state.players[0].life == 14


def test_second_turn_goes_through_every_phase_and_draw_skill_once(tmp_path):
    live = new_game(tmp_path, "duel")
    live.do("next")  # main → turn_end
    out = live.do("next")
    assert [e.phase for e in out.events if type(e).__name__ == "PhaseEntered"] == ["turn_start"]
    live.do("next")
    assert live.state.phase == "draw"
    live.do("draw_skill", player="B", kind="fill")   # hand 5 → fill to 3 draws nothing
    assert live.state.players[1].hand == 5
    with pytest.raises(IllegalCommand, match="already used the draw skill"):
        live.do("draw_skill", player="B", kind="draw1")
    with pytest.raises(IllegalCommand, match="turn"):
        live.do("draw_skill", player="A")


def test_descents_two_per_turn_only_rank_0_1_and_at_most_five_fighters(tmp_path):
    live = new_game(tmp_path, "duel")
    live.do("descend", player="A", rank=0)
    live.do("descend", player="A", rank=1)
    assert live_status(live)["players"][0]["descents_used"] == 2
    with pytest.raises(IllegalCommand, match="2/2 descents"):
        live.do("descend", player="A")
    with pytest.raises(IllegalCommand, match="rank it up"):
        live.do("descend", player="A", rank=2)
    live.do("rank_up", player="A", rank=2)        # unlimited, not a descent
    assert live.state.players[0].field == 2 and live.state.players[0].hand == 2
    with pytest.raises(IllegalCommand, match="B's"):
        live.do("descend", player="B")
    # Fill the field over several turns.
    for turn in (3, 5):
        advance_to(live, turn, "main")
        live.do("draw", player="A", cards=2)
        live.do("descend", player="A")
        if live.state.players[0].field < 5:
            live.do("descend", player="A")
    assert live.state.players[0].field == 5
    advance_to(live, 7, "main")
    with pytest.raises(IllegalCommand, match="at most 5"):
        live.do("descend", player="A")
    live.do("slain", player="A", fighters=1, assists=1)
    assert live.state.players[0].field == 4 and live.state.players[0].netherworld == 2  # the assist too


def test_in_turn_skills_two_per_turn_and_hand_limit_sends_to_netherworld(tmp_path):
    live = new_game(tmp_path, "duel")
    live.do("draw", player="A")                     # hand 6 = limit
    out = live.do("draw", player="A")               # at the limit → netherworld
    assert out.events[0].dest == "netherworld" and "上限" in out.events[0].reason
    live.do("skill", player="A", kind="send2")
    p = live.state.players[0]
    assert (p.hand, p.netherworld, p.in_turn_skills_used) == (5, 3, 1)
    live.do("skill", player="A", kind="pierce")
    assert live.state.players[0].pierce
    with pytest.raises(IllegalCommand, match="2/2 in-turn skills"):
        live.do("skill", player="A", kind="send3")
    advance_to(live, 3, "main")
    assert live.state.players[0].in_turn_skills_used == 0 and not live.state.players[0].pierce


def test_turn_end_reminds_of_the_hand_limit(tmp_path):
    live = new_game(tmp_path, "duel")
    live.do("move", player="A", source="deck", dest="hand", cards=3)   # 5 + 3 at a limit of 6
    live.do("next")
    assert any("手牌上限6张" in r and "A现有6张" in r for r in live.state.reminders)


def test_life_zero_loses_with_reason(tmp_path):
    live = new_game(tmp_path, "duel")
    out = live.do("life", player="B", delta="-20", why="效果伤害")
    assert event_types(out) == ["LifeChanged", "GameEnded"]
    s = live_status(live)
    assert s["over"] and s["winner"] == "A" and "生命值降至0" in s["end_reason"]


def test_drawing_from_an_empty_deck_loses(tmp_path):
    live = new_game(tmp_path, "duel")
    live.do("move", player="B", source="deck", dest="netherworld", cards=35)
    out = live.do("draw", player="B")
    assert event_types(out) == ["DrawFailed", "GameEnded"]
    assert live.state.winner == 0 and "空牌库" in live.state.end_reason


def test_concede_ends_the_game(tmp_path):
    live = new_game(tmp_path, "duel")
    live.do("concede", player="A")
    s = live_status(live)
    assert s["over"] and s["winner"] == "B" and "认输" in s["end_reason"]


# ---------------------------------------------------------------------------- combat


def test_combat_table():
    from engine.games.duel.rules import resolve_attack

    ready_win = resolve_attack(5, 3)
    assert (ready_win.target_dies, ready_win.attacker_dies, ready_win.damage_to, ready_win.damage) == (True, False, "defender", 2)
    tie = resolve_attack(4, 4)
    assert (tie.target_dies, tie.attacker_dies, tie.damage_to, tie.damage) == (True, True, "attacker", 0)
    lose = resolve_attack(3, 5)
    assert (lose.attacker_dies, lose.damage_to, lose.damage) == (True, "attacker", 2)
    wound = resolve_attack(3, 5, guard=True)
    assert (wound.target_wounded, wound.target_dies, wound.damage_to) == (True, False, None)
    assert resolve_attack(3, 5, guard=True, wounded=True).target_dies
    slain = resolve_attack(6, 5, guard=True)
    assert (slain.target_dies, slain.damage_to) == (True, None)
    pierced = resolve_attack(6, 5, guard=True, pierce=True)
    assert (pierced.damage_to, pierced.damage) == ("defender", 1)
    dent = resolve_attack(3, 5, guard=True, pierce=True)
    assert (dent.target_wounded, dent.guard_drop, dent.damage_to) == (True, 3, None)


def test_attack_applies_deaths_assists_and_damage_and_uses_up_pierce(tmp_path):
    live = new_game(tmp_path, "duel")
    live.do("descend", player="A")
    with pytest.raises(IllegalCommand, match="no fighter on the field to attack"):
        live.do("attack", player="A", attack=5, target=3)
    advance_to(live, 2, "main")                          # B's turn
    live.do("descend", player="B")
    live.do("descend", player="B")
    out = live.do("attack", player="B", attack=7, target=3, assists=1)
    assert event_types(out)[0] == "AttackResolved"
    a, b = live_status(live)["players"]
    assert (a["life"], a["fighters"], b["fighters"]) == (20 - 4, 0, 2)
    advance_to(live, 3, "main")                          # A's turn
    live.do("descend", player="A")
    live.do("skill", player="A", kind="pierce")
    assert live_status(live)["players"][0]["pierce"] is True
    live.do("attack", player="A", attack=6, target=4, guard=True)
    a, b = live_status(live)["players"]
    assert (b["life"], b["fighters"], a["pierce"]) == (20 - 2, 1, False)
    live.undo()
    a, b = live_status(live)["players"]
    assert (a["pierce"], b["fighters"], b["life"]) == (True, 2, 20)
    live.do("attack", player="A", attack=3, target=3)    # ready vs ready tie: both die, 0 damage
    a, b = live_status(live)["players"]
    assert (a["fighters"], b["fighters"], a["life"]) == (0, 1, 16)


def test_first_turn_attack_deals_no_battle_damage(tmp_path):
    live = new_game(tmp_path, "duel")
    live.do("descend", player="A")
    live.do("move", player="B", source="hand", dest="field", why="an effect puts a fighter out")
    out = live.do("attack", player="A", attack=9, target=2)
    assert live.state.players[1].life == 20 and live.state.players[1].field == 0
    damage = next(e for e in out.events if type(e).__name__ == "LifeChanged")
    assert damage.delta == 0 and "先手第一回合" in damage.reason and "原为7" in damage.reason


def test_first_turn_damage_the_first_player_takes_is_applied(tmp_path):
    # RULES.md 2026-12: only damage the first player deals is zeroed on the first turn.
    live = new_game(tmp_path, "duel")
    live.do("descend", player="A")
    live.do("move", player="B", source="hand", dest="field", why="an effect puts a fighter out")
    live.do("attack", player="A", attack=2, target=9)           # A's fighter loses: A takes 7
    assert live.state.players[0].life == 13 and live.state.players[1].life == 20
    out = live.do("battle", player="A", amount=3)                # taken by the first player: applied
    assert out.events[0].delta == -3 and live.state.players[0].life == 10


def test_in_turn_skills_are_two_different_options(tmp_path):
    live = new_game(tmp_path, "duel")
    live.do("skill", player="A", kind="pierce")
    with pytest.raises(IllegalCommand, match="already used pierce this turn"):
        live.do("skill", player="A", kind="pierce")
    assert live.state.players[0].in_turn_skills_used == 1
    live.do("skill", player="A", kind="send2")
    advance_to(live, 3, "main")
    live.do("skill", player="A", kind="pierce")                  # a new turn: every option again
    assert live.state.players[0].in_turn_skill_kinds == ("pierce",)


def test_pierce_is_used_up_by_the_next_attack_whatever_its_target(tmp_path):
    live = new_game(tmp_path, "duel")
    advance_to(live, 3, "main")
    live.do("descend", player="A")
    live.do("move", player="B", source="hand", dest="field", cards=2, why="effects put fighters out")
    live.do("skill", player="A", kind="pierce")
    live.do("attack", player="A", attack=5, target=3)            # ready vs ready: pierce is spent anyway
    assert not live.state.players[0].pierce
    out = live.do("attack", player="A", attack=5, target=2, guard=True)
    assert not any("贯穿" in e.reason or "贯穿" in getattr(e, "summary", "") for e in out.events)


def test_every_route_obeys_the_hand_limit_and_the_fighter_limit(tmp_path):
    live = new_game(tmp_path, "duel")
    out = live.do("move", player="A", source="deck", dest="hand", cards=3)   # hand 5, limit 6
    p = live.state.players[0]
    assert (p.hand, p.netherworld, p.deck) == (6, 2, 32)
    assert "手牌已达上限6" in out.events[-1].reason
    live.do("move", player="B", source="hand", dest="field", cards=5)
    with pytest.raises(IllegalCommand, match="would exceed 5"):
        live.do("move", player="B", source="deck", dest="field", cards=1)
    assert live.state.players[1].field == 5
    with pytest.raises(IllegalCommand, match="changes nothing"):
        live.do("move", player="A", source="hand", dest="hand")
