"""ridm at the table: scripted games against the rules (RULES.md §3)."""

from __future__ import annotations

import pytest

from engine.tracker import IllegalCommand

from track_helpers import advance_to, event_types, inline_game, new_game, status


def test_setup_sanity_three_and_start_phase_reminds_to_draw(tmp_path):
    live = inline_game("ridm")
    s = status(live)
    assert [p["sanity"] for p in s["players"]] == [3, 3]
    assert (s["turn"], s["phase"]) == (1, "start")
    assert "A必须从牌组抽1张牌（抽完再进入下一阶段）" in s["reminders"]


def test_skill_timer_ticks_at_the_end_of_its_owners_turns_and_expires_on_the_right_turn(tmp_path):
    live = inline_game("ridm")
    advance_to(live, 1, "main")
    live.do("charge", player="A", cards=2)
    live.do("activate", player="A", skill="S2", operator="能天使", duration=2, cost=2)
    assert live.state.players[0].charges == 0
    advance_to(live, 1, "end")
    assert any("能天使·S2 2T→1T" in r for r in live.state.reminders)
    out = live.do("next")                                   # end of A's turn 1: 2 → 1
    assert "TimerExpired" not in event_types(out)
    assert status(live)["players"][0]["timers"] == [{"operator": "能天使", "skill": "S2", "turns_left": 1}]
    advance_to(live, 2, "end")
    out = live.do("next")                                   # B's turn end: A's timer untouched
    assert "TimersTicked" not in event_types(out)
    advance_to(live, 3, "end")
    assert any("能天使·S2 1T→到期" in r for r in live.state.reminders)
    out = live.do("next")                                   # end of A's turn 3: expires
    expired = [e for e in out.events if type(e).__name__ == "TimerExpired"]
    assert [(e.operator, e.skill) for e in expired] == [("能天使", "S2")]
    assert live.state.players[0].timers == ()


def test_skill_values_come_from_card_data(tmp_path):
    live = inline_game("ridm", cards=None)
    card = live.ctx.card("amiya-s1")
    if card is None:
        pytest.fail("shipped ridm card data has no amiya-s1 skill")
    advance_to(live, 1, "main")
    with pytest.raises(IllegalCommand, match="needs 2"):
        live.do("activate", player="A", skill="amiya-s1")
    live.do("charge", player="A", cards=2)
    live.do("activate", player="A", skill="amiya-s1")
    t = live.state.players[0].timers[0]
    assert (t.operator, t.skill, t.left) == (card["user"], card.name, card["duration"])


def test_without_an_operator_on_the_board_no_sanity_is_lost(tmp_path):
    # The hand-set "invade" flag is gone: the check reads the board (tests/test_board_ridm.py).
    live = inline_game("ridm")
    advance_to(live, 5, "start")
    assert [p["sanity"] for p in status(live)["players"]] == [3, 3]
    assert not any("SanityChanged" in event_types(e) for e in live.entries())


def test_one_active_deployment_and_one_skill_slot_charge_per_turn(tmp_path):
    live = inline_game("ridm")
    advance_to(live, 1, "main")
    live.do("deploy", player="A", operator="德克萨斯")
    with pytest.raises(IllegalCommand, match="1/1 active deployment"):
        live.do("deploy", player="A", operator="能天使")
    live.do("deploy", player="A", operator="能天使", by_effect=True)
    live.do("charge_skill", player="A", skill="S1")
    with pytest.raises(IllegalCommand, match="skill slot"):
        live.do("charge_skill", player="A", skill="S2")
    live.do("charge", player="A")
    assert live.state.players[0].charges == 2
    advance_to(live, 3, "main")
    live.do("deploy", player="A", operator="能天使")


def test_action_cards_playable_only_at_or_below_their_sanity_requirement(tmp_path):
    live = inline_game("ridm")
    ok, text = live.query("playable", player="A", requirement=2)
    assert not ok and "不能" in text
    with pytest.raises(IllegalCommand, match="不能"):
        live.do("action", player="A", name="紧急撤离", requirement=2)
    live.do("sanity", player="A", delta="-1")
    assert live.query("playable", player="A", requirement=2)[0]
    live.do("action", player="A", name="紧急撤离", requirement=2)


def test_odds_query_follows_the_combat_rules(tmp_path):
    live = inline_game("ridm")
    assert live.query("odds", attack=2, defense=3, target_attack=1)[1].startswith("攻击2 < 防御3：进攻失败，攻击者失去1点阻挡")
    held = live.query("odds", attack=3, defense=3, target_attack=1)[1]
    assert "被攻击者失去1点阻挡" in held and "击溃" not in held
    assert "击溃" in live.query("odds", attack=5, defense=3, target_attack=1)[1]
    before = len(live.entries())
    live.query("odds", attack=5, defense=3, target_attack=1)
    assert len(live.entries()) == before  # a question changes nothing


def test_charges_per_card_come_from_game_yaml(game_copy, tmp_path):
    # The rulebook prints rules.charge_per_card; the tracker must count the same number.
    folder = game_copy("ridm")
    path = folder / "game.yaml"
    text = path.read_text(encoding="utf-8")
    assert "charge_per_card: 1" in text
    path.write_text(text.replace("charge_per_card: 1", "charge_per_card: 2"), encoding="utf-8")
    live = new_game(tmp_path, str(folder))  # a folder game, stored
    advance_to(live, 1, "main")
    live.do("charge", player="A", cards=3)
    assert live.state.players[0].charges == 6
    assert "盖放3张手牌充能+6" in live.entries()[-1].events[0].reason


def test_a_stored_game_with_shipped_decks_counts_hands_through_the_table_lines(tmp_path):
    """Through the store and the play-mode lines: the deck list gives the counts, ``next`` draws,
    a charge's optional draw and a card effect's return to hand read from table lines."""
    from pathlib import Path

    from engine.live.script import parse_line
    from engine.tracker.core import commands_of

    decks = Path(__file__).resolve().parent.parent / "card_data" / "ridm" / "decks"
    live = new_game(tmp_path, "ridm", decks={"A": decks / "iron-wall.yaml", "B": decks / "arts-barrage.yaml"})
    size = [sum(n for _, n in d) for d in live.state.decks]
    hand = live.ctx.numbers.opening_hand
    s = status(live)
    assert [(p["deck"], p["hand"], p["discard"]) for p in s["players"]] == [(n - hand, hand, 0) for n in size]
    advance_to(live, 1, "main")
    assert (status(live)["players"][0]["deck"], status(live)["players"][0]["hand"]) == (size[0] - hand - 1, hand + 1)
    commands = commands_of(live.ctx)
    spec, args = parse_line("charge A 2 --draw 1", commands)
    live.do(spec.name, **args)
    assert (live.state.players[0].hand, live.state.players[0].charge_cards) == (hand, 2)
    spec, args = parse_line("withdraw A1 --by-effect --to hand", commands)
    assert spec.name == "withdraw" and args == {"operator": "A1", "by_effect": True, "to": "hand"}
    spec, args = parse_line('transfer A hand discard 2 --why 弃牌', commands)
    live.do(spec.name, **args)
    assert status(live)["players"][0]["discard"] == 2
