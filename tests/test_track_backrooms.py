"""Backrooms at the table: scripted games against the rules (RULES.md §1)."""

from __future__ import annotations

import pytest

from engine.tracker import GameOver, IllegalCommand, Store

from engine.live import LiveGame

from track_helpers import advance_to, event_types, inline_game, new_game, status, write_backrooms_game


def test_setup_starts_turn_one_in_draw_with_cost_five_and_one_outpost_each(tmp_path):
    live = inline_game()
    s = status(live)
    assert (s["turn"], s["round"], s["phase"], s["active"]) == (1, 1, "draw", "A")
    assert [p["cost"] for p in s["players"]] == [5, 5]
    assert [[o["hp"] for o in p["outposts"]] for p in s["players"]] == [[20], [20]]
    assert s["level"] == "Level 0" and s["rounds_to_cut"] == 5 and s["next_level"] == "Level 1"
    # RULES.md 2026-12: the first player's opening hand is turn 1's draw; drawing 1 starts on turn 2.
    assert "第1轮不抽牌（A开局已抽5张）" in s["reminders"] and "A抽1张牌" not in s["reminders"]
    advance_to(live, 2, "draw")
    assert "B抽1张牌" in live.state.reminders


def test_prepare_phase_gains_the_turn_number_turn_11_gives_11(tmp_path):
    live = inline_game()
    advance_to(live, 11, "draw")
    before = live.state.players[0].cost
    out = live.do("next")
    assert live.state.phase == "prepare"
    gained = [e for e in out.events if type(e).__name__ == "CostGained"]
    assert len(gained) == 1 and gained[0].amount == 11 and gained[0].player == 0
    assert "第11轮" in gained[0].reason
    assert live.state.players[0].cost == before + 11
    assert any("获得11费用" in r for r in live.state.reminders)
    # Cost over the game: 5 + turns 1, 3, 5, 7, 9, 11 for A.
    assert live.state.players[0].cost == 5 + 1 + 3 + 5 + 7 + 9 + 11


def test_cost_is_never_gained_in_the_opponents_turn(tmp_path):
    live = inline_game()
    advance_to(live, 2, "main")
    assert live.state.players[0].cost == 5 + 1
    assert live.state.players[1].cost == 5 + 2


def test_spending_beyond_the_pool_is_refused_and_changes_nothing(tmp_path):
    live = new_game(tmp_path)                  # the store too: a refusal writes nothing
    advance_to(live, 1, "main")
    before, seq = live.state, live.replay.last_seq
    with pytest.raises(IllegalCommand, match="has 6 cost; cannot spend 7"):
        live.do("spend", player="A", amount=7)
    assert live.state == before and live.replay.last_seq == seq
    assert live.store.last_seq(live.id) == seq
    live.do("spend", player="A", amount=6)
    assert live.state.players[0].cost == 0


def test_first_cut_at_first_turn_of_round_6_names_next_level(tmp_path):
    live = inline_game()
    advance_to(live, 9, "end")
    assert status(live)["rounds_to_cut"] == 1
    advance_to(live, 10, "draw")
    assert live.state.level == "Level 0", "no cut in round 5"
    assert any("1回合后切出层级：下一层级是Level 1" in r for r in live.state.reminders)
    advance_to(live, 10, "end")
    out = live.do("next")                       # → turn 11 = first turn of round 6
    assert "LevelCut" in event_types(out)
    cut = next(e for e in out.events if type(e).__name__ == "LevelCut")
    assert (cut.cut_out, cut.cut_in) == ("Level 0", "Level 1")
    s = status(live)
    assert (s["turn"], s["round"], s["level"], s["next_level"], s["rounds_to_cut"]) == (11, 6, "Level 1", "Level 2", 5)
    assert any("下一层级是Level 2" in r for r in s["reminders"])
    assert all(p["must_place_outpost"] and p["outposts"] == [] for p in s["players"])


def test_two_rounds_before_the_cut_the_reminder_counts_down(tmp_path):
    live = inline_game()
    advance_to(live, 7, "draw")  # round 4
    assert "2回合后切出层级：下一层级是Level 1" in live.state.reminders


def test_level_pile_cycles_and_turn_cannot_end_before_outposts_are_placed(tmp_path):
    live = inline_game(levels=("Level 0", "Level 1"))
    advance_to(live, 11, "end")
    with pytest.raises(IllegalCommand, match="must place a new outpost"):
        live.do("next")
    live.do("carry", player="A")
    live.do("place", player="B")
    assert live.state.players[0].carries_left == 2 and live.state.players[1].carries_left == 3
    assert live.state.players[0].outposts == (20,)
    advance_to(live, 21, "draw")  # round 11: second cut, pile of 2 cycles back to Level 0
    assert live.state.level == "Level 0" and live.state.cuts == 2


def test_at_most_three_carries_per_game(tmp_path):
    live = inline_game()
    for cut_turn in (11, 21, 31):
        advance_to(live, cut_turn, "draw")
        live.do("carry", player="A")
        live.do("place", player="B")
    advance_to(live, 41, "draw")
    assert live.state.players[0].carries_left == 0
    with pytest.raises(IllegalCommand, match="carried 3 times"):
        live.do("carry", player="A")
    live.do("place", player="A")


def test_outpost_damage_destroys_at_zero_and_none_standing_loses(tmp_path):
    live = inline_game()
    advance_to(live, 1, "battle")
    live.do("damage", player="B", amount=7)
    assert live.state.players[1].outposts == (13,)
    live.do("repair", player="B", amount=2)
    assert live.state.players[1].outposts == (15,)
    out = live.do("damage", player="B", amount=15)
    assert event_types(out) == ["OutpostDamaged", "OutpostDestroyed", "GameEnded"]
    s = status(live)
    assert s["over"] and s["winner"] == "A" and "场上没有前哨站" in s["end_reason"]
    with pytest.raises(GameOver):
        live.do("next")


def test_three_outposts_destroyed_loses(tmp_path):
    live = inline_game()
    advance_to(live, 1, "main")
    live.do("place", player="B")
    live.do("place", player="B")
    live.do("place", player="B")
    for _ in range(3):
        live.do("damage", player="B", amount=20)
    s = status(live)
    assert s["over"] and s["winner"] == "A"
    assert "摧毁3座" in s["end_reason"]
    assert s["players"][1]["outposts_destroyed"] == 3 and [o["hp"] for o in s["players"][1]["outposts"]] == [20]


def test_chain_example_from_rules_resolves_negation_first_then_discard_does_nothing(tmp_path):
    live = inline_game()
    advance_to(live, 1, "main")
    live.do("chain_push", player="A", text="对手弃1张牌")
    live.do("chain_push", player="B", text="无效一个效果", negates=1)
    out = live.do("chain_resolve")
    resolved = [(e.link, e.negated) for e in out.events if type(e).__name__ == "ChainLinkResolved"]
    assert resolved == [(2, False), (1, True)]
    assert event_types(out) == ["ChainLinkResolved", "ChainLinkNegated", "ChainLinkResolved", "ChainCleared"]
    s = status(live)
    assert s["chain"] == []
    assert s["last_resolution"][0].startswith("2. 无效一个效果")
    assert "不产生效果" in s["last_resolution"][1]


def test_chain_must_be_resolved_before_the_phase_ends_and_bad_links_are_refused(tmp_path):
    live = inline_game()
    advance_to(live, 1, "main")
    with pytest.raises(IllegalCommand, match="chain is empty"):
        live.do("chain_resolve")
    live.do("chain_push", player="A", text="X")
    with pytest.raises(IllegalCommand, match="no link 5"):
        live.do("chain_push", player="B", text="Y", negates=5)
    with pytest.raises(IllegalCommand, match="unresolved"):
        live.do("next")
    live.do("chain_negate", link=1)
    with pytest.raises(IllegalCommand, match="already negated"):
        live.do("chain_negate", link=1)
    out = live.do("chain_resolve", one=True)
    assert event_types(out) == ["ChainLinkResolved", "ChainCleared"]
    live.do("next")


def test_unknown_player_and_zero_amounts_are_refused(tmp_path):
    live = inline_game()
    with pytest.raises(IllegalCommand, match="unknown player 'C'"):
        live.do("spend", player="C", amount=1)
    with pytest.raises(IllegalCommand, match="at least 1"):
        live.do("gain", player="A", amount=0)
    live.do("gain", player=2, amount=1)  # seat numbers work too
    assert live.state.players[1].cost == 6


def test_undo_of_a_phase_change_undoes_what_it_triggered(tmp_path):
    live = new_game(tmp_path)                  # replayed from the store at the end
    advance_to(live, 10, "end")
    before = live.state
    live.do("next")        # turn 11: cut + reminders
    live.do("next")        # prepare: +11
    assert live.state.players[0].cost == before.players[0].cost + 11
    live.undo()
    live.undo()
    assert live.state == before
    live.redo()
    assert live.state.level == "Level 1" and live.state.turn == 11


def test_public_levels_come_from_the_players_decks(tmp_path):
    folder = write_backrooms_game(tmp_path / "game")
    store = Store(tmp_path / "g.sqlite")
    live = LiveGame.new(store, folder, ("A", "B"), first="B",
                        decks={"A": folder / "decks" / "a.yaml", "B": folder / "decks" / "b.yaml"})
    # Every public level both players brought, shuffled at the start (RULES.md 2026-12), shown face up.
    everyone = ("层级0", "层级1", "层级2", "层级3", "层级4", "层级5")
    assert sorted(live.state.level_pile) == list(everyone)
    assert status(live)["level_pile"] == list(live.state.level_pile)
    assert live.state.active == 1
    again = LiveGame(Store(tmp_path / "g.sqlite"), live.id, use_snapshots=False)
    assert again.state.level_pile == live.state.level_pile, "a replay never shuffles again"
    orders = {LiveGame.new(store, folder, ("A", "B"), decks={"A": folder / "decks" / "a.yaml",
                                                             "B": folder / "decks" / "b.yaml"}).state.level_pile
              for _ in range(12)}
    assert len(orders) > 1, "the pile is shuffled, not dealt in a fixed order (same order 12 times: p < 1e-30)"


def test_levels_by_card_id_resolve_to_names_and_an_illegal_deck_is_refused(tmp_path):
    from engine.errors import DataError

    folder = write_backrooms_game(tmp_path / "game")
    store = Store(tmp_path / "g.sqlite")
    live = LiveGame.new(store, folder, ("A", "B"), levels=("lv-2", "手写层级"))
    assert live.state.level_pile == ("层级2", "手写层级")
    bad = folder / "decks" / "bad.yaml"
    bad.write_text("cards:\n  lv-0: 1\n", encoding="utf-8")
    with pytest.raises(DataError, match="deck"):
        LiveGame.new(store, folder, ("A", "B"), decks={"A": bad})
    with pytest.raises(IllegalCommand, match="public level pile"):
        LiveGame.new(store, folder, ("A", "B"))


def test_deck_check_is_a_rules_api(tmp_path):
    from engine.definitions import load_game
    from engine.games import check_deck_file

    folder = write_backrooms_game(tmp_path / "game")
    game = load_game(folder)
    deck, problems = check_deck_file(game, folder / "decks" / "a.yaml")
    assert problems == [] and deck.size == 40
    bad = folder / "decks" / "bad.yaml"
    bad.write_text("cards:\n  lv-0: 2\n  it-0: 4\n", encoding="utf-8")
    _, problems = check_deck_file(game, bad)
    text = "\n".join(str(p) for p in problems)
    assert len(problems) >= 3 and "lv-0" in text and "it-0" in text


def test_an_outpost_is_repaired_up_to_its_printed_hp_unless_a_card_says_so(tmp_path):
    live = inline_game()
    with pytest.raises(IllegalCommand, match="at its full 20 HP"):
        live.do("repair", player="A", amount=3)
    live.do("damage", player="A", amount=5)
    out = live.do("repair", player="A", amount=8)
    assert live.state.players[0].outposts == (20,)
    assert out.events[0].amount == 5 and "至多回复至20，原为+8" in out.events[0].reason
    live.do("repair", player="A", amount=4, beyond_max=True, why="加固")
    assert live.state.players[0].outposts == (24,)
