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
    live.do("move", player="A", source="deck", dest="hand", cards=3)
    live.do("next")
    assert any("手牌上限6张" in r and "8张" in r for r in live.state.reminders)


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
