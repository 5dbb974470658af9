"""ridm's hand and deck sizes follow every move (issue 7 §1), on the pure decider: the opening, the
turn-start draw, every card played from the hand, the searches and draws into it, the discard,
the refusals on an empty hand or pile, undo, and games that count nothing (no deck list, old logs)."""

from __future__ import annotations

import pytest

from engine.tracker import IllegalCommand
from engine.tracker import events as kev
from engine.tracker.describe import describe
from engine.tracker.state import fold
from engine.live.view import status_json

from test_board_ridm import CARDS, DECK
from track_helpers import InlineGame

DECK_SIZE = sum(DECK.values())


def game(deck_a=DECK, deck_b=DECK, cards=CARDS) -> InlineGame:
    return InlineGame("ridm", decks={"A": deck_a, "B": deck_b}, cards=cards)


def counts(g: InlineGame, seat: int = 0) -> tuple:
    p = status_json(g.state, g.ctx)["players"][seat]
    return p["deck"], p["hand"], p["discard"]


def lines(g: InlineGame) -> str:
    return "\n".join(g.ctx.rules.board_lines(status_json(g.state, g.ctx), g.ctx))


def said(g: InlineGame, events) -> list[str]:
    return [describe(e, ("A", "B")) for e in events]


def at_main(g: InlineGame, turn: int = 1) -> InlineGame:
    g.next_to(turn, "main")
    return g


def test_the_draw_pile_is_the_whole_deck_less_the_opening_hand():
    g = game()
    opening = g.ctx.numbers.opening_hand
    assert counts(g, 0) == counts(g, 1) == (DECK_SIZE - opening, opening, 0)
    assert f"牌库 {DECK_SIZE - opening} 手牌 {opening} 弃置 0" in lines(g)
    assert f"A抽{opening}张起始手牌，牌库{DECK_SIZE - opening}张" in said(g, g.events)


def test_a_deck_smaller_than_the_opening_hand_is_drawn_whole():
    g = game(deck_a={"blade": 3})
    assert counts(g, 0) == (0, 3, 0)


def test_leaving_the_turn_start_draws_for_the_active_player_only():
    g = game()
    before = counts(g, 1)
    out = g.do("next")
    assert counts(g, 0) == (DECK_SIZE - 6, 6, 0) and counts(g, 1) == before
    assert "A抽1张牌" in said(g, out)
    g.next_to(2, "main")
    assert counts(g, 1) == (DECK_SIZE - 6, 6, 0)


def test_an_empty_draw_pile_draws_nothing_at_the_turn_start_and_refuses_an_effect_draw():
    g = game(deck_a={"blade": 3, "wall": 2})  # the opening hand takes all five
    out = g.do("next")
    assert counts(g, 0) == (0, 5, 0) and not g.state.over
    assert "A的牌库已空，未抽牌" in said(g, out)
    with pytest.raises(IllegalCommand, match="A's deck has 0 card"):
        g.do("draw", player="A")


def test_an_effect_draw_moves_deck_to_hand_and_is_refused_beyond_the_pile():
    g = at_main(game())
    out = g.do("draw", player="A", cards=2, why="紧急补给")
    assert counts(g, 0) == (DECK_SIZE - 8, 8, 0)
    assert out[0].reason == "紧急补给" and said(g, out) == ["A抽2张牌"]
    with pytest.raises(IllegalCommand, match=f"A's deck has {DECK_SIZE - 8} card"):
        g.do("draw", player="A", cards=DECK_SIZE)


def test_a_deployment_takes_a_card_from_the_hand_by_any_route():
    g = at_main(game())
    g.do("deploy", player="A", operator="blade")
    assert counts(g, 0)[1] == 5
    g.do("deploy", player="A", operator="wall", zone="action", by_effect=True)
    assert counts(g, 0)[1] == 4


def test_an_empty_hand_refuses_every_card_played_from_it():
    g = at_main(game())
    g.do("transfer", player="A", source="hand", dest="discard", cards=6, why="弃牌")
    assert counts(g, 0) == (DECK_SIZE - 6, 0, 6)
    refused = {
        "deploy": {"player": "A", "operator": "blade"},
        "charge": {"player": "A"},
        "charge_skill": {"player": "A", "skill": "blade-s"},
        "activate": {"player": "A", "skill": "wall-s", "operator": "铁壁"},
        "action": {"player": "A", "name": "集结", "requirement": 3},
    }
    for name, args in refused.items():
        with pytest.raises(IllegalCommand, match="A has 0 card\\(s\\) in hand"):
            g.do(name, **args)


def test_a_replacement_comes_from_the_hand_and_the_routed_one_goes_to_the_preparation_zone():
    g = at_main(game())
    g.do("deploy", player="A", operator="glass")
    g.do("adjust", operator="A1", stat="block", delta=-1)  # block 0: routed
    g.do("replace", operator="A1", card="wall")
    assert counts(g, 0) == (DECK_SIZE - 6, 4, 0)
    assert g.state.players[0].prep == ("玻璃",)


def test_a_routed_operator_goes_to_the_discard_at_its_owners_turn_end_and_the_prep_zone_to_the_hand():
    g = at_main(game())
    g.do("deploy", player="A", operator="glass")
    g.do("deploy", player="A", operator="scout", zone="action", by_effect=True)
    g.do("adjust", operator="A1", stat="block", delta=-1)
    g.do("withdraw", operator="A2", by_effect=True)
    g.next_to(1, "end")
    g.do("take", player="A", card="斥候")
    assert counts(g, 0) == (DECK_SIZE - 6, 5, 0)
    g.do("next")
    assert counts(g, 0) == (DECK_SIZE - 6, 5, 1) and g.state.piece("A1") is None


def test_a_card_effect_returns_an_operator_to_its_owners_hand():
    g = at_main(game())
    g.do("deploy", player="A", operator="blade")
    out = g.do("withdraw", operator="A1", by_effect=True, to="hand")
    assert counts(g, 0)[1] == 6 and g.state.piece("A1") is None
    assert said(g, out) == ["A1离场，送去手牌"]
    g.do("deploy", player="A", operator="blade", by_effect=True)
    g.do("adjust", operator="A2", stat="block", delta=-2)
    with pytest.raises(IllegalCommand, match="to the hand only by a card effect"):
        g.do("withdraw", operator="A2", to="hand")


def test_a_face_down_charge_takes_hand_cards_and_may_draw_one_each():
    g = at_main(game())
    out = g.do("charge", player="A", cards=2, draw=1)
    p = g.state.players[0]
    assert (p.deck, p.hand, p.charge_cards, p.charges) == (DECK_SIZE - 7, 5, 2, 2)
    assert said(g, out)[-1] == "A抽1张牌"
    with pytest.raises(IllegalCommand, match="lets A draw at most 1"):
        g.do("charge", player="A", cards=1, draw=2)
    with pytest.raises(IllegalCommand, match="A has 5 card\\(s\\) in hand: cannot put 6"):
        g.do("charge", player="A", cards=6)


def test_charges_by_a_card_effect_take_no_hand_card_and_draw_nothing():
    g = at_main(game())
    g.do("charge", player="A", cards=2, by_effect=True)
    p = g.state.players[0]
    assert (p.hand, p.charge_cards, p.charges) == (6, 0, 2)
    with pytest.raises(IllegalCommand, match="not a card effect's charges"):
        g.do("charge", player="A", by_effect=True, draw=1)


def test_the_skill_slot_charge_takes_the_skill_card_and_may_search_its_operator():
    g = at_main(game())
    out = g.do("charge_skill", player="A", skill="blade-s", search=True)
    p = g.state.players[0]
    assert (p.deck, p.hand, p.skill_slot, p.charge_cards) == (DECK_SIZE - 7, 6, ("斩击",), 0)
    assert out[-1].reason == "技能槽充能后检索剑士"
    g = at_main(game(deck_a={"blade": 3, "blade-s": 2}))  # five cards: nothing left to search
    with pytest.raises(IllegalCommand, match="A's deck has 0 card\\(s\\): cannot search 1"):
        g.do("charge_skill", player="A", skill="blade-s", search=True)


def test_a_skill_leaves_the_hand_and_its_card_and_the_charges_paying_it_go_to_the_discard():
    g = at_main(game())
    g.do("deploy", player="A", operator="blade")
    g.do("charge", player="A", cards=2)
    g.do("activate", player="A", skill="blade-s")  # costs 1: one face-down card goes
    p = g.state.players[0]
    assert (p.hand, p.charge_cards, p.charges, p.discard) == (2, 1, 1, 1)
    g.do("end_skill", player="A", skill="斩击")
    assert g.state.players[0].discard == 2


def test_spent_charges_use_the_cardless_ones_before_the_cards():
    g = at_main(game())
    g.do("deploy", player="A", operator="blade")
    g.do("charge", player="A", by_effect=True)
    g.do("charge", player="A")
    g.do("activate", player="A", skill="blade-s")
    p = g.state.players[0]
    assert (p.charges, p.charge_cards, p.discard) == (1, 1, 0)


def test_an_action_card_goes_from_the_hand_to_the_discard():
    g = at_main(game())
    out = g.do("action", player="A", name="集结", requirement=3)
    assert counts(g, 0) == (DECK_SIZE - 6, 5, 1)
    assert out[0].reason.startswith("A理智3")


def test_transfer_moves_between_counted_zones_and_refuses_what_is_not_there():
    g = at_main(game())
    g.do("transfer", player="A", source="hand", dest="discard", cards=2, why="弃牌")
    out = g.do("transfer", player="A", source="discard", dest="hand", why="回收")
    assert counts(g, 0) == (DECK_SIZE - 6, 5, 1)
    assert said(g, out) == ["A将1张牌从弃置区移至手牌"]
    with pytest.raises(IllegalCommand, match="A's discard has 1 card\\(s\\): cannot move 2"):
        g.do("transfer", player="A", source="discard", dest="deck", cards=2)
    with pytest.raises(IllegalCommand, match="no move"):
        g.do("transfer", player="A", source="hand", dest="hand")


def test_undo_restores_the_exact_counts():
    g = at_main(game())
    before = g.state
    g.do("charge", player="A", cards=2, draw=2)
    g.do("deploy", player="A", operator="blade")
    assert g.state != before
    g.undo()
    g.undo()
    assert g.state == before and counts(g, 0) == (DECK_SIZE - 6, 6, 0)
    assert fold(g.events) == g.state


def test_a_game_without_deck_lists_counts_nothing_and_refuses_nothing_for_it():
    g = InlineGame("ridm", cards={})
    assert counts(g, 0) == (None, None, None)
    assert "牌库 — 手牌 — 弃置 —" in lines(g)
    assert "A必须从牌组抽1张牌（抽完再进入下一阶段）" in g.state.reminders
    g.next_to(1, "main")
    assert not [e for e in g.events if type(e).__name__ == "PileChanged"], "drew for an uncounted hand"
    g.do("charge", player="A", cards=9)
    g.do("deploy", player="A", operator="能天使")
    assert counts(g, 0) == (None, None, None)


def test_an_old_log_with_deck_lists_but_no_counts_still_folds_and_shows_dashes():
    g = at_main(game())
    g.do("deploy", player="A", operator="blade")
    old = [kev.from_record({k: v for k, v in kev.to_record(e).items() if k != "from_hand"})
           for e in g.events if type(e).__name__ not in ("DeckDealt", "PileChanged")]
    state = fold(old)
    assert state.piece("A1") is not None and state.players[0].hand is None
    assert "牌库 — 手牌 — 弃置 —" in "\n".join(g.ctx.rules.board_lines(status_json(state, g.ctx), g.ctx))
