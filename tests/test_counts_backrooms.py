"""Hand and deck sizes in backrooms (issue 7 §1, "Hand and deck sizes follow every move"): the
draw pile at the start, the draws, every card played from the hand, searches, returns, card
effects' moves, the refusals, undo — on the pure decider, with small cards of our own."""

from __future__ import annotations

import pytest

from engine.tracker import IllegalCommand
from engine.tracker.describe import describe
from engine.tracker.state import fold
from engine.live.view import status_json

from test_board_backrooms import CARDS as UNIT_CARDS, DECK as UNIT_DECK, _card
from track_helpers import LEVELS, InlineGame

CARDS = {**UNIT_CARDS, **{c.id: c for c in (
    _card("goi", "goi", "基金会", number="G", affiliation="通用"),
    *(_card(f"lv{k}", "level", f"层级{k}", number=f"L{k}", affiliation="通用", scope="public") for k in range(3)),
    _card("own", "level", "独立层级", number="L9", affiliation="通用", scope="independent"),
)}}
#: The draw pile holds the unit deck (27 cards, 3 of them outposts); the G.O.I and 4 levels do not.
DECK = {**UNIT_DECK, "goi": 1, "lv0": 1, "lv1": 1, "lv2": 1, "own": 1}
PILE = sum(UNIT_DECK.values())


def game(decks=True, **kw) -> InlineGame:
    return InlineGame("backrooms", decks={"A": DECK, "B": DECK} if decks else None, cards=CARDS, **kw)


def player(g, seat):
    return status_json(g.state, g.ctx)["players"][seat]


def board(g) -> str:
    return "\n".join(g.ctx.rules.board_lines(status_json(g.state, g.ctx), g.ctx))


def sizes(g, seat=0):
    p = g.state.players[seat]
    return p.deck, p.hand


def logged(g) -> list[str]:
    names = tuple(p.name for p in g.state.players)
    return [describe(e, names) for e in g.events]


# ---------------------------------------------------------------------------- the start


def test_the_draw_pile_is_the_deck_without_goi_levels_and_the_starting_outpost_less_the_opening_hands():
    g = game()
    n = g.ctx.numbers
    first, second = n.opening_hand_first, n.opening_hand_second
    assert sizes(g, 0) == (PILE - 1 - first, first)
    assert sizes(g, 1) == (PILE - 1 - second, second)
    assert (player(g, 0)["deck"], player(g, 0)["hand"]) == (PILE - 1 - first, first)
    assert f"牌库 {PILE - 1 - first} 手牌 {first}" in board(g)
    assert f"牌库 {PILE - 1 - second} 手牌 {second}" in board(g)
    lines = logged(g)
    assert f"A的牌库共{PILE - 1}张" in lines and f"A抽{first}张牌" in lines and f"B抽{second}张牌" in lines


def test_the_second_player_moving_first_draws_the_first_hand():
    g = game(first=1)
    assert sizes(g, 1)[1] == g.ctx.numbers.opening_hand_first
    assert sizes(g, 0)[1] == g.ctx.numbers.opening_hand_second


def test_a_deck_without_outposts_gives_none_to_the_starting_outpost():
    g = InlineGame("backrooms", decks={"A": {"grunt": 3, "scout": 3, "goi": 1}, "B": DECK}, cards=CARDS, levels=LEVELS)
    assert sizes(g, 0) == (6 - g.ctx.numbers.opening_hand_first, g.ctx.numbers.opening_hand_first)
    assert g.state.pieces_in(0, "outpost")  # the starting outpost stands all the same


def test_a_short_deck_caps_the_opening_hand():
    g = InlineGame("backrooms", decks={"A": {"base": 1, "grunt": 2}, "B": DECK}, cards=CARDS, levels=LEVELS)
    assert sizes(g, 0) == (0, 2)
    assert "开局抽牌：先手5张（牌库只有2张）" in [e.reason for e in g.events]


def test_without_a_deck_nothing_is_counted_and_the_board_shows_a_dash():
    g = game(decks=False, levels=LEVELS)
    assert sizes(g, 0) == (None, None)
    assert (player(g, 0)["deck"], player(g, 0)["hand"]) == (None, None)
    assert "牌库 — 手牌 —" in board(g)
    g.next_to(1, "main")
    g.do("summon", card="grunt")  # no hand to refuse from
    with pytest.raises(IllegalCommand, match="not tracked in this game"):
        g.do("draw", player="A")
    g.next_to(2, "draw")
    assert any("B抽1张牌" in r for r in g.state.reminders)


def test_an_old_log_without_counts_folds_and_shows_a_dash():
    g = game()
    old = [e for e in g.events if type(e).__name__ not in ("BackroomsDeckCounted", "BackroomsCardsDrawn")]
    s = fold(old)
    assert (s.players[0].deck, s.players[0].hand) == (None, None)
    lines = g.ctx.rules.board_lines(status_json(s, g.ctx), g.ctx)
    assert sum("牌库 — 手牌 —" in line for line in lines) == 2


# ---------------------------------------------------------------------------- draws


def test_turn_one_draws_nothing_more_and_each_later_draw_phase_draws_one():
    g = game()
    g.next_to(1, "main")
    assert sizes(g, 0)[1] == 5
    g.next_to(2, "prepare")
    deck, hand = PILE - 1 - 6, 6
    assert sizes(g, 1) == (deck - 1, hand + 1)
    assert "B抽1张牌" in logged(g)
    g.next_to(3, "prepare")
    assert sizes(g, 0) == (PILE - 1 - 5 - 1, 6)


def test_an_effect_draws_is_capped_at_the_deck_and_refused_when_it_is_empty():
    g = game()
    g.do("draw", player="A", cards=2, why="效果")
    deck, hand = sizes(g)
    assert hand == 7
    g.do("move", player="A", source="deck", dest="removed", cards=deck - 1, why="磨牌")
    g.do("draw", player="A", cards=3, why="效果")
    assert sizes(g) == (0, 8)
    assert "效果（牌库只剩1张，原为3张）" in [e.reason for e in g.events]
    with pytest.raises(IllegalCommand, match="A's deck is empty"):
        g.do("draw", player="A")


def test_the_draw_phase_with_an_empty_deck_draws_nothing_and_says_so():
    g = game()
    g.do("move", player="B", source="deck", dest="removed", cards=sizes(g, 1)[0], why="磨牌")
    g.next_to(2, "draw")
    assert sizes(g, 1) == (0, 6)
    assert "B的牌库已空：本轮不抽牌" in g.state.reminders
    g.next_to(2, "main")  # an empty deck is no loss
    assert not g.state.over


# ---------------------------------------------------------------------------- playing from the hand


def test_every_way_of_playing_a_card_takes_it_from_the_hand():
    g = game()
    g.next_to(1, "main")
    g.do("gain", player="A", amount=30)
    hand = sizes(g)[1]
    g.do("summon", card="scout")              # a unit
    g.do("equip", card="torch", unit="A2")    # equipment on it
    g.do("summon", card="water")              # an item, straight to the discard
    g.do("summon", card="trick", special=True)  # an effect face down
    g.do("place", player="A", card="base")    # an outpost
    assert sizes(g) == (PILE - 1 - 5, hand - 5)
    assert player(g, 0)["hand"] == 0


def test_an_empty_hand_refuses_every_play_and_changes_nothing():
    g = game()
    g.next_to(1, "main")
    g.do("move", player="A", source="hand", dest="discard", cards=5, why="弃牌")
    before = g.state
    for name, args in (("summon", {"card": "grunt"}), ("summon", {"card": "water"}), ("place", {"player": "A"})):
        with pytest.raises(IllegalCommand, match="A's hand is empty"):
            g.do(name, **args)
    assert g.state == before
    assert player(g, 0)["discard_unnamed"] == 5
    assert "弃牌堆 5" in board(g)


def test_an_opponents_response_effect_comes_from_its_owners_hand():
    g = game()
    g.next_to(1, "battle")
    g.do("summon", player="B", card="trick")
    assert sizes(g, 1)[1] == 5


# ---------------------------------------------------------------------------- back to the hand, out of the game


def test_return_adds_to_the_hand_remove_counts_apart_and_a_destroyed_unnamed_outpost_reaches_the_discard():
    g = game()
    g.next_to(1, "main")
    g.do("summon", card="grunt")
    g.do("summon", card="hound")
    g.do("return_", piece="A2", why="撤离")
    assert sizes(g)[1] == 4
    g.do("remove", piece="A3", why="虚空吞噬")
    assert player(g, 0)["removed"] == 1
    g.do("place", player="A")
    g.do("damage", player="A", amount=30, why="效果")
    assert g.state.players[0].discard_unnamed == 1
    assert "弃牌堆 1" in board(g)


def test_move_takes_a_named_card_out_of_the_discard_and_asks_for_the_name_otherwise():
    g = game()
    g.next_to(1, "main")
    g.do("summon", card="water")
    assert g.state.players[0].discard == ("water",)
    with pytest.raises(IllegalCommand, match="name the card that leaves A's discard"):
        g.do("move", player="A", source="discard", dest="hand")
    g.do("move", player="A", source="discard", dest="hand", card="杏仁水", why="回收")
    assert g.state.players[0].discard == () and sizes(g)[1] == 5
    assert "A将1张牌从弃牌堆移至手牌" in logged(g)
    with pytest.raises(IllegalCommand, match="A's hand holds 5 card"):
        g.do("move", player="A", source="hand", dest="deck", cards=6)
    with pytest.raises(IllegalCommand, match="the cards are in the hand already"):
        g.do("move", player="A", source="hand", dest="hand")


def test_move_into_the_discard_by_name_respects_the_copies_of_the_deck_list():
    g = game()
    with pytest.raises(IllegalCommand, match="A's deck has 1 诡计"):
        g.do("move", player="A", source="hand", dest="discard", cards=2, card="trick")
    g.do("move", player="A", source="hand", dest="discard", card="trick")
    assert g.state.players[0].discard == ("trick",)


# ---------------------------------------------------------------------------- the explore search


def test_the_explore_search_moves_one_card_from_deck_to_hand_at_the_end_of_the_turn_once():
    g = game()
    g.next_to(1, "main")
    g.do("summon", card="scout")
    g.do("summon", card="grunt")
    g.do("explore", unit="A2")
    with pytest.raises(IllegalCommand, match="at the end of the turn"):
        g.do("search", unit="A2")
    g.next_to(1, "end")
    deck, hand = sizes(g)
    with pytest.raises(IllegalCommand, match="did not explore"):
        g.do("search", unit="A3")
    g.do("search", unit="A2", card="撬棍")
    assert sizes(g) == (deck - 1, hand + 1)
    assert "A为A2检索1张撬棍加入手牌" in logged(g)
    with pytest.raises(IllegalCommand, match="search was made already"):
        g.do("search", unit="A2")
    g.undo()
    with pytest.raises(IllegalCommand, match="item or equipment"):
        g.do("search", unit="A2", card="蛮兵")


def test_the_search_is_refused_on_an_empty_deck():
    g = game()
    g.next_to(1, "main")
    g.do("summon", card="scout")
    g.do("explore", unit="A2")
    g.do("move", player="A", source="deck", dest="removed", cards=sizes(g)[0])
    g.next_to(1, "end")
    with pytest.raises(IllegalCommand, match="A's deck is empty"):
        g.do("search", unit="A2")


# ---------------------------------------------------------------------------- undo, cuts


def test_undo_restores_the_exact_sizes():
    g = game()
    g.next_to(1, "main")
    for name, args in (("draw", {"player": "A", "cards": 2}), ("summon", {"card": "grunt"}),
                       ("move", {"player": "A", "source": "hand", "dest": "discard"}), ("return_", {"piece": "A2"})):
        before = g.state
        g.do(name, **args)
        assert g.state != before
        g.undo()
        assert g.state == before
        g.do(name, **args)


def test_outposts_stay_under_the_cut_out_level_unless_carried():
    g = game(levels=LEVELS)
    cut_round = g.ctx.numbers.level_cycle_rounds + 1
    turn = (cut_round - 1) * 2 + 1
    g.next_to(turn, "draw")
    assert [p.under_levels for p in g.state.players] == [1, 1]
    g.do("carry", player="A")
    assert g.state.players[0].under_levels == 0
    hand = sizes(g, 1)[1]
    g.do("place", player="B")
    assert sizes(g, 1)[1] == hand - 1
