"""Duel at the table: the counted rules (turns, skills, life, the deck) on inline games (RULES.md §2);
the board of pieces is tested in test_board_duel.py."""

from __future__ import annotations

import pytest

from engine.tracker import IllegalCommand
from engine.live.view import status_json

from track_helpers import InlineGame


def live_status(g):
    return status_json(g.state, g.ctx)


def event_types(events):
    return [type(e).__name__ for e in events]


def test_first_turn_skips_turn_start_and_draw_and_battle_damage_is_zero():
    live = InlineGame("duel")
    s = live_status(live)
    assert (s["turn"], s["phase"], s["active"]) == (1, "main", "A")
    assert [p["life"] for p in s["players"]] == [20, 20]
    assert [p["deck"] for p in s["players"]] == [35, 35] and [p["hand"] for p in s["players"]] == [5, 5]
    assert any("战斗伤害为0" in r for r in s["reminders"])
    out = live.do("battle", player="B", amount=6)
    assert out[0].delta == 0 and "先手第一回合" in out[0].reason
    assert live.state.players[1].life == 20
    live.next_to(2, "main")
    live.do("battle", player="A", amount=6)
    assert live.state.players[0].life == 14


def test_second_turn_goes_through_every_phase_and_draw_skill_once():
    live = InlineGame("duel")
    live.do("next")  # main → turn_end
    out = live.do("next")
    assert [e.phase for e in out if type(e).__name__ == "PhaseEntered"] == ["turn_start"]
    live.do("next")
    assert live.state.phase == "draw"
    live.do("draw_skill", player="B", kind="fill")   # hand 5 → fill to 3 draws nothing
    assert live.state.players[1].hand == 5
    with pytest.raises(IllegalCommand, match="already used the draw skill"):
        live.do("draw_skill", player="B", kind="draw1")
    with pytest.raises(IllegalCommand, match="turn"):
        live.do("draw_skill", player="A")


def test_in_turn_skills_two_per_turn_and_hand_limit_sends_to_netherworld():
    live = InlineGame("duel")
    live.do("draw", player="A")                     # hand 6 = limit
    out = live.do("draw", player="A")               # at the limit → netherworld
    assert out[0].dest == "netherworld" and "上限" in out[0].reason
    live.do("skill", player="A", kind="send2")
    p = live.state.players[0]
    assert (p.hand, p.netherworld, p.in_turn_skills_used) == (5, 3, 1)
    live.do("skill", player="A", kind="pierce")
    assert live.state.players[0].pierce
    with pytest.raises(IllegalCommand, match="2/2 in-turn skills"):
        live.do("skill", player="A", kind="send3")
    live.next_to(3, "main")
    assert live.state.players[0].in_turn_skills_used == 0 and not live.state.players[0].pierce


def test_turn_end_reminds_of_the_hand_limit():
    live = InlineGame("duel")
    live.do("move", player="A", source="deck", dest="hand", cards=3)   # 5 + 3 at a limit of 6
    live.do("next")
    assert any("手牌上限6张" in r and "A现有6张" in r for r in live.state.reminders)


def test_life_zero_loses_with_reason():
    live = InlineGame("duel")
    out = live.do("life", player="B", delta="-20", why="效果伤害")
    assert event_types(out) == ["LifeChanged", "GameEnded"]
    s = live_status(live)
    assert s["over"] and s["winner"] == "A" and "生命值降至0" in s["end_reason"]


def test_drawing_from_an_empty_deck_loses():
    live = InlineGame("duel")
    live.do("move", player="B", source="deck", dest="netherworld", cards=35)
    out = live.do("draw", player="B")
    assert event_types(out) == ["DrawFailed", "GameEnded"]
    assert live.state.winner == 0 and "空牌库" in live.state.end_reason


def test_concede_ends_the_game():
    live = InlineGame("duel")
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


def test_in_turn_skills_are_two_different_options():
    live = InlineGame("duel")
    live.do("skill", player="A", kind="pierce")
    with pytest.raises(IllegalCommand, match="already used pierce this turn"):
        live.do("skill", player="A", kind="pierce")
    assert live.state.players[0].in_turn_skills_used == 1
    live.do("skill", player="A", kind="send2")
    live.next_to(3, "main")
    live.do("skill", player="A", kind="pierce")                  # a new turn: every option again
    assert live.state.players[0].in_turn_skill_kinds == ("pierce",)




def test_events_of_logs_written_before_fighters_were_pieces_still_fold():
    """Old stores: counted fighters (CardsMoved to 'field', 'source', 'assist'), attacks without
    pieces. They fold, count against the fighter limit and add up with the new zones."""
    from engine.games.duel import events as ev
    from engine.games.duel.board import cards_counted
    from engine.tracker import codec
    from engine.tracker.state import fold

    g = InlineGame("duel")
    old = [ev.DescentMade(player=0, rank=1), ev.CardsMoved(player=0, source="hand", dest="field", count=1),
           ev.CardsMoved(player=0, source="hand", dest="source", count=1),
           ev.AttackResolved(player=0, summary="旧的攻击", pierce_used=True),
           ev.CardsMoved(player=1, source="assist", dest="netherworld", count=1)]
    records = [codec.encode(e) for e in old]
    for r in records:   # as an older cardpress wrote them: without the fields added since
        r.pop("face_down", None), r.pop("from_face_down", None), r.pop("attacker", None), r.pop("target", None)
    state = fold([codec.decode(r, ev.CardsMoved.__mro__[1]) for r in records], g.state)
    a = state.players[0]
    assert (a.field, a.hand, a.descents_used) == (1, 3, 1)
    assert cards_counted(state, 0) == 40 - 1        # the source card of the old count was in no zone
    g.state = state
    s = status_json(g.state, g.ctx)["players"][0]
    assert s["field_cards"] == 1 and s["fighters"] == [] and s["fighter_count"] == 1
    assert any("场上 1/5名（1张）" in line for line in g.ctx.rules.board_lines(status_json(g.state, g.ctx), g.ctx))
