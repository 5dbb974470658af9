"""The duel board on the pure decider: fighters and assists as pieces, every way onto the field,
the combat table from the pieces' numbers, pierce, the hand limit and the netherworld's two faces.
Every test is an inline game (no store); the numbers come from game.yaml (``N``)."""

from __future__ import annotations

import pytest

from engine.cards import Card
from engine.definitions import load_game
from engine.games.duel.board import cards_counted
from engine.tracker import IllegalCommand
from engine.tracker.describe import describe
from engine.live.view import status_json

from track_helpers import InlineGame

N = load_game("duel").rules
DECK_SIZE = load_game("duel").deck.min_size


def _card(card_id, name, rank, attack, guard, assist_attack=0, assist_guard=0):
    return Card(id=card_id, type="fighter", name=name,
                values={"rank": rank, "attack": attack, "guard": guard, "assist_attack": assist_attack,
                        "assist_guard": assist_guard})


CARDS = {c.id: c for c in (
    _card("page", "剑童", 0, 2, 0, 1, 0),
    _card("knight", "骑士", 1, 5, 3, 2, 1),
    _card("shield", "盾兵", 1, 2, 6, 0, 3),
    _card("lord", "剑主", 2, 8, 4, 3, 1),
    _card("saint", "剑圣", 3, 11, 6, 5, 2),
    _card("ghost", "冥火", 0, 1, 0, 2, -9),
    _card("imp", "小鬼", 0, 0, 1, -9, 0),
    _card("filler", "杂兵", 0, 1, 1, 0, 0),
)}
#: A 40-card deck list: every test card 3 times, filled up with 杂兵.
LIST = {cid: 3 for cid in CARDS if cid != "filler"}
LIST["filler"] = DECK_SIZE - sum(LIST.values())


def game(**kwargs) -> InlineGame:
    return InlineGame("duel", decks={"A": dict(LIST), "B": dict(LIST)}, cards=CARDS, **kwargs)


def fighter(g, piece_id):
    return next(f for p in status_json(g.state, g.ctx)["players"] for f in p["fighters"] if f["id"] == piece_id)


def player(g, name):
    return next(p for p in status_json(g.state, g.ctx)["players"] if p["name"] == name)


def conserved(g):
    return [cards_counted(g.state, i) for i in range(2)] == [DECK_SIZE, DECK_SIZE]


def log(g, events):
    return [describe(e, ("A", "B")) + " —— " + e.reason for e in events]


def to_b_main(g):
    g.next_to(2, "main")


# ---------------------------------------------------------------------------- entering the field


def test_descend_puts_a_piece_with_the_cards_numbers_and_ids_are_stable():
    g = game()
    g.do("descend", player="A", card="骑士")
    g.do("descend", player="A", card="page", guard=True)
    a1, a2 = fighter(g, "A1"), fighter(g, "A2")
    assert (a1["name"], a1["rank"], a1["attack"], a1["guard"], a1["stance"], a1["attacks_left"]) == \
        ("骑士", 1, 5, 3, "ready", 1)
    assert (a2["name"], a2["stance"]) == ("剑童", "guard")
    p = player(g, "A")
    assert (p["hand"], p["descents_used"], p["field_cards"]) == (N.opening_hand - 2, 2, 2)
    g.do("slain", piece="A1")
    g.next_to(3, "main")
    g.do("descend", player="A", card="盾")
    assert [f["id"] for f in player(g, "A")["fighters"]] == ["A2", "A3"]   # A1 is never reused
    assert conserved(g)


def test_descend_refusals_rank_limit_per_turn_not_your_turn_wrong_phase():
    g = game()
    with pytest.raises(IllegalCommand, match="rank 2: it cannot descend directly.*rank it up onto a ready fighter of rank 1"):
        g.do("descend", player="A", card="剑主")
    with pytest.raises(IllegalCommand, match="it is A's turn, not B's"):
        g.do("descend", player="B", card="骑士")
    g.do("descend", player="A", card="骑士")
    g.do("descend", player="A", card="骑士")
    with pytest.raises(IllegalCommand, match=f"{N.descents_per_turn}/{N.descents_per_turn} descents"):
        g.do("descend", player="A", card="骑士")
    g.do("next")                                         # turn end
    with pytest.raises(IllegalCommand, match="descents only in 回合内"):
        g.do("descend", player="A", card="剑童")
    with pytest.raises(IllegalCommand, match="did you mean"):
        InlineGame("duel", decks={"A": dict(LIST), "B": dict(LIST)}, cards=CARDS).do("descend", player="A", card="knigt")


def test_a_card_all_of_whose_copies_are_on_the_field_is_refused():
    g = InlineGame("duel", decks={"A": {"knight": 1, "filler": DECK_SIZE - 1}, "B": dict(LIST)}, cards=CARDS)
    g.do("descend", player="A", card="骑士")
    g.next_to(3, "main")
    with pytest.raises(IllegalCommand, match="all 1 copy of 骑士 in A's deck are on the field"):
        g.do("descend", player="A", card="骑士")
    with pytest.raises(IllegalCommand, match="in A's deck"):
        g.do("descend", player="A", card="剑童")       # not in A's deck list


def _fill_field(g, name="A", turns=(1, 3, 5)):
    for turn in turns:
        g.next_to(turn, "main")
        for _ in range(N.descents_per_turn):
            if len(player(g, name)["fighters"]) < N.max_fighters:
                g.do("draw", player=name)
                g.do("descend", player=name, card="杂兵")


def test_no_sixth_fighter_by_any_route():
    g = game()
    _fill_field(g)
    assert len(player(g, "A")["fighters"]) == N.max_fighters
    g.next_to(7, "main")
    g.do("draw", player="A")
    with pytest.raises(IllegalCommand, match=f"{N.max_fighters} fighters on the field \\(at most {N.max_fighters}\\)"):
        g.do("descend", player="A", card="杂兵")
    # The bug of issue 7: `move … field` by an effect made a 6th fighter.
    for source in ("hand", "deck", "netherworld"):
        with pytest.raises(IllegalCommand, match=f"at most {N.max_fighters}"):
            g.do("move", player="A", source=source, dest="field", card="杂兵")
    # Ranking up does not add a fighter, so it is still allowed at five; an assist neither.
    g.do("draw", player="A")
    g.do("rank_up", player="A", card="骑士", fighter="A1")
    g.do("assist", player="A", card="剑童", fighter="A1")
    assert len(player(g, "A")["fighters"]) == N.max_fighters and conserved(g)


def test_an_effect_puts_a_card_on_the_field_without_a_descent():
    g = game()
    g.do("move", player="A", source="deck", dest="field", card="剑圣", guard=True, why="某卡效果")
    a1 = fighter(g, "A1")
    assert (a1["name"], a1["rank"], a1["stance"]) == ("剑圣", 3, "guard")   # effects override the rank rule
    p = player(g, "A")
    assert (p["deck"], p["descents_used"]) == (DECK_SIZE - N.opening_hand - 1, 0)
    with pytest.raises(IllegalCommand, match="name each --card or --piece"):
        g.do("move", player="A", source="deck", dest="field", cards=2, card="剑童")
    with pytest.raises(IllegalCommand, match="which card enters the field"):
        g.do("move", player="A", source="deck", dest="field")
    assert conserved(g)


# ---------------------------------------------------------------------------- rank-up and assists


def test_rank_up_onto_a_ready_fighter_of_one_rank_less_keeps_id_and_assists():
    g = game()
    g.do("descend", player="A", card="骑士")
    g.do("assist", player="A", card="剑童", fighter="A1")
    g.do("draw", player="A")
    g.do("rank_up", player="A", card="剑主", fighter="A1")
    a1 = fighter(g, "A1")
    assert (a1["name"], a1["rank"], a1["sources"], [a["id"] for a in a1["assists"]]) == ("剑主", 2, ["knight"], ["A2"])
    assert (a1["attack"], a1["guard"], a1["attacks_left"]) == (8 + 1, 4, 1)
    assert player(g, "A")["descents_used"] == 1                    # not a descent
    g.do("rank_up", player="A", card="剑圣", fighter="A1")           # unlimited
    assert fighter(g, "A1")["sources"] == ["knight", "lord"] and conserved(g)


def test_rank_up_refusals_wrong_rank_guard_fighter_rank_zero_opponents_fighter():
    g = game()
    g.do("descend", player="A", card="剑童")
    g.do("descend", player="A", card="骑士", guard=True)
    with pytest.raises(IllegalCommand, match="ranks up onto a fighter of rank 2; A1 剑童 is rank 0"):
        g.do("rank_up", player="A", card="剑圣", fighter="A1")
    with pytest.raises(IllegalCommand, match="needs a ready fighter; A2 骑士 is in guard state"):
        g.do("rank_up", player="A", card="剑主", fighter="A2")
    with pytest.raises(IllegalCommand, match="rank 0: there is no fighter"):
        g.do("rank_up", player="A", card="冥火", fighter="A1")
    to_b_main(g)
    g.do("descend", player="B", card="剑童")
    with pytest.raises(IllegalCommand, match="no piece 'A1'|no fighter 'A1'"):
        g.do("rank_up", player="B", card="骑士", fighter="A1")
    with pytest.raises(IllegalCommand, match="B's turn"):
        g.do("rank_up", player="A", card="骑士", fighter="A1")


def test_assist_limit_is_the_fighters_rank_and_bonuses_never_go_below_zero():
    g = game()
    g.do("descend", player="A", card="骑士")                # rank 1: assist ranks up to 1
    g.do("assist", player="A", card="盾兵", fighter="A1")    # rank 1 → full
    with pytest.raises(IllegalCommand, match="assist limit is 1 \\(its rank\\); its assists have ranks 1 together, "
                                             "骑士 \\(rank 1\\) would make 2"):
        g.do("assist", player="A", card="骑士", fighter="A1")
    g.do("assist", player="A", card="冥火", fighter="A1")    # rank 0 fits; guard bonus −9
    a1 = fighter(g, "A1")
    assert (a1["attack"], a1["guard"], a1["assist_ranks"], a1["assist_limit"]) == (5 + 0 + 2, 0, 1, 1)
    g.do("assist", player="A", card="小鬼", fighter="A1")    # attack bonus −9
    assert fighter(g, "A1")["attack"] == 0
    with pytest.raises(IllegalCommand, match="is an assist"):
        g.do("assist", player="A", card="剑童", fighter="A2")
    assert conserved(g)


# ---------------------------------------------------------------------------- stance


def test_stance_switches_as_the_seed_allows():
    g = game()
    g.do("descend", player="A", card="骑士")
    g.do("descend", player="A", card="盾兵", guard=True)
    with pytest.raises(IllegalCommand, match="no way from guard back to ready"):
        g.do("stance", fighter="A2", stance="ready")
    g.do("stance", fighter="A1", stance="guard")             # an attack left: it may
    assert fighter(g, "A1")["stance"] == "guard"
    g.undo()
    to_b_main(g)
    g.next_to(3, "main")                                     # A1's attack was for turn 1 only
    with pytest.raises(IllegalCommand, match="no attack left this turn, so it cannot turn to guard"):
        g.do("stance", fighter="A1", stance="guard")
    g.do("stance", fighter="A2", stance="ready", why="某卡效果")
    assert fighter(g, "A2")["stance"] == "ready"
    with pytest.raises(IllegalCommand, match="already in ready"):
        g.do("stance", fighter="A2", stance="ready", why="x")


# ---------------------------------------------------------------------------- combat table


def _duel(a_card, b_card, b_guard=False, b_assists=(), turn=3, **kw):
    """A's fighter A1 (descended on turn ``turn``) facing B's fighter B1."""
    g = game(**kw)
    to_b_main(g)
    g.do("descend", player="B", card=b_card, guard=b_guard)
    for name in b_assists:
        g.do("assist", player="B", card=name, fighter="B1")
    g.next_to(turn, "main")
    g.do("descend", player="A", card=a_card)
    return g


def test_ready_vs_ready_attacker_stronger_target_dies_and_its_player_takes_the_difference():
    g = _duel("骑士", "剑童")
    events = g.do("attack", fighter="A1", target="B1")
    assert [f["id"] for f in player(g, "B")["fighters"]] == []
    assert player(g, "B")["life"] == N.starting_life - (5 - 2)
    a1 = fighter(g, "A1")
    assert (a1["stance"], a1["attacks_left"]) == ("guard", 0)          # attacked: turns to guard
    lines = log(g, events)
    assert any("战备对战备：攻击5 > 对方攻击2" in line for line in lines)
    assert any("B1 剑童战死" in line for line in lines) and any("转为守卫状态" in line for line in lines)
    assert player(g, "B")["netherworld"] == 1 and conserved(g)


@pytest.mark.parametrize("a_card, damage", [("剑童", 5 - 2), ("骑士", 0)])
def test_ready_vs_ready_attacker_not_stronger_both_die_and_the_attacker_takes_the_difference(a_card, damage):
    g = _duel(a_card, "骑士")
    g.do("attack", fighter="A1", target="B1")
    assert player(g, "A")["fighters"] == [] and player(g, "B")["fighters"] == []
    assert player(g, "A")["life"] == N.starting_life - damage and player(g, "B")["life"] == N.starting_life
    assert conserved(g)


def test_ready_vs_guard_attack_not_above_guard_wounds_then_a_wounded_fighter_dies():
    g = _duel("骑士", "盾兵", b_guard=True)                 # 5 vs guard 6
    g.do("attack", fighter="A1", target="B1")
    b1 = fighter(g, "B1")
    assert (b1["wounded"], player(g, "B")["life"], player(g, "A")["life"]) == (True, N.starting_life, N.starting_life)
    g.do("descend", player="A", card="剑童")                # 2 vs guard 6, but wounded
    g.do("attack", fighter="A2", target="B1")
    assert player(g, "B")["fighters"] == [] and player(g, "B")["life"] == N.starting_life
    assert conserved(g)


def test_ready_vs_guard_attack_above_guard_slays_without_battle_damage():
    g = _duel("骑士", "骑士", b_guard=True)
    g.do("draw", player="A")
    g.do("rank_up", player="A", card="剑主", fighter="A1")   # 8 vs guard 3
    g.do("attack", fighter="A1", target="B1")
    assert player(g, "B")["fighters"] == [] and player(g, "B")["life"] == N.starting_life


def test_every_assist_of_an_attacked_fighter_dies_and_its_bonuses_count_in_the_fight():
    g = _duel("骑士", "盾兵", b_guard=True, b_assists=("盾兵",))      # guard 6 + 3 = 9
    events = g.do("attack", fighter="A1", target="B1")
    b1 = fighter(g, "B1")
    assert b1["assists"] == [] and b1["wounded"] and b1["guard"] == 6
    assert player(g, "B")["netherworld"] == 1
    assert any("B2 盾兵战死" in line and "协助牌全部战死" in line for line in log(g, events))
    assert conserved(g)


def test_a_dead_fighter_takes_its_assists_and_source_cards_to_the_netherworld():
    g = _duel("骑士", "剑童", b_assists=("冥火",))
    g.undo()
    g.do("descend", player="A", card="剑童")
    g.do("rank_up", player="A", card="骑士", fighter="A1")
    g.do("assist", player="A", card="剑童", fighter="A1")
    g.do("slain", piece="A1")
    p = player(g, "A")
    assert (p["fighters"], p["field_cards"], p["netherworld"]) == ([], 0, 3) and conserved(g)


def test_pierce_against_guard_lowers_its_guard_this_turn_or_damages_the_player():
    g = _duel("骑士", "盾兵", b_guard=True)                 # 5 vs 6
    g.do("skill", player="A", kind="pierce")
    g.do("attack", fighter="A1", target="B1")
    b1 = fighter(g, "B1")
    assert (b1["wounded"], b1["guard"], b1["guard_drop"]) == (True, 6 - 5, 5)
    assert not player(g, "A")["pierce"]
    g.next_to(4, "main")
    assert fighter(g, "B1")["guard"] == 6                     # "本回合": back at the next turn

    g = _duel("骑士", "剑童", b_guard=True)                  # 5 vs guard 0
    g.do("skill", player="A", kind="pierce")
    g.do("attack", fighter="A1", target="B1")
    assert player(g, "B")["life"] == N.starting_life - 5 and player(g, "B")["fighters"] == []


def test_pierce_is_used_up_by_a_ready_vs_ready_attack():
    # The bug of issue 7: pierce survived a ready-vs-ready attack.
    g = _duel("骑士", "剑童")
    g.do("skill", player="A", kind="pierce")
    g.do("attack", fighter="A1", target="B1")
    assert player(g, "A")["pierce"] is False
    g.undo()
    to_guard = g.do("descend", player="A", card="骑士")     # a second attacker for the guard target
    assert to_guard
    g.do("attack", fighter="A1", target="B1")
    g.do("draw", player="B")
    g.do("move", player="B", source="hand", dest="field", card="剑童", guard=True)
    g.do("attack", fighter="A2", target="B2")              # 5 vs guard 0: slain, and no pierce left
    assert player(g, "B")["life"] == N.starting_life - (5 - 2)


def test_pierce_no_does_not_pierce_and_the_skill_is_gone():
    g = _duel("骑士", "剑童", b_guard=True)
    g.do("skill", player="A", kind="pierce")
    events = g.do("attack", fighter="A1", target="B1", pierce="no")
    assert player(g, "B")["life"] == N.starting_life and not player(g, "A")["pierce"]
    assert any("未用于这次攻击" in line for line in log(g, events))


def test_a_cards_pierce_applies_without_the_skill():
    g = _duel("骑士", "剑童", b_guard=True)
    events = g.do("attack", fighter="A1", target="B1", pierce=True)
    assert player(g, "B")["life"] == N.starting_life - 5
    assert not any("已用掉贯穿" in line for line in log(g, events))   # no skill was spent


def test_attack_refusals():
    g = game()
    g.do("descend", player="A", card="骑士")
    with pytest.raises(IllegalCommand, match="B has no fighter to attack; the rules have no direct attack"):
        g.do("attack", fighter="A1", target="B1")
    g.do("move", player="B", source="hand", dest="field", card="剑童")
    g.do("descend", player="A", card="盾兵", guard=True)
    with pytest.raises(IllegalCommand, match="only ready fighters attack; A2 盾兵 is in guard"):
        g.do("attack", fighter="A2", target="B1")
    with pytest.raises(IllegalCommand, match="A's own fighter"):
        g.do("attack", fighter="A1", target="A2")
    with pytest.raises(IllegalCommand, match="it is A's turn, not B's"):
        g.do("attack", fighter="B1", target="A1")
    g.do("assist", player="A", card="剑童", fighter="A1")
    with pytest.raises(IllegalCommand, match="A3 剑童 is an assist"):
        g.do("attack", fighter="A3", target="B1")
    g.next_to(3, "main")
    with pytest.raises(IllegalCommand, match="A1 骑士 has no attack left this turn"):
        g.do("attack", fighter="A1", target="B1")
    g.do("next")
    with pytest.raises(IllegalCommand, match="attacks only in 回合内"):
        g.do("attack", fighter="A1", target="B1")


def test_first_turn_damage_the_first_player_deals_is_zero_and_what_it_takes_applies():
    g = game()
    g.do("move", player="B", source="hand", dest="field", card="剑童", why="效果")
    g.do("move", player="B", source="hand", dest="field", card="剑圣", why="效果")
    g.do("descend", player="A", card="骑士")
    events = g.do("attack", fighter="A1", target="B1")     # 5 > 2: B would take 3
    assert player(g, "B")["life"] == N.starting_life
    assert any("先手第一回合" in e.reason and "原为3" in e.reason for e in events)
    g.do("descend", player="A", card="剑童")
    g.do("attack", fighter="A2", target="B2")              # 2 ≤ 11: A takes 9 even on the first turn
    assert player(g, "A")["life"] == N.starting_life - 9


# ---------------------------------------------------------------------------- zones, hand limit


def test_hand_limit_by_every_route():
    g = game()
    g.do("draw", player="A")                                # hand at the limit
    assert player(g, "A")["hand"] == N.hand_limit
    for route in (dict(name="draw", player="A"),
                  dict(name="move", player="A", source="deck", dest="hand"),
                  dict(name="move", player="A", source="netherworld", dest="hand"),
                  dict(name="move", player="A", source="netherworld", dest="hand", face_down=True)):
        if route.get("source") == "netherworld":
            g.do("move", player="A", source="deck", dest="netherworld", face_down=route.get("face_down", False))
        name = route.pop("name")
        before = player(g, "A")
        events = g.do(name, **route)
        after = player(g, "A")
        assert after["hand"] == N.hand_limit, route
        assert after["netherworld"] == before["netherworld"] + (0 if route.get("source") == "netherworld"
                                                                 and not route.get("face_down") else 1), route
        assert any(f"手牌已达上限{N.hand_limit}" in e.reason for e in events), route
    g.do("descend", player="A", card="骑士")
    g.do("move", player="A", source="deck", dest="hand")   # back at the limit
    events = g.do("move", player="A", source="field", dest="hand", piece="A1")   # a piece bounced
    assert player(g, "A")["fighters"] == [] and player(g, "A")["hand"] == N.hand_limit
    assert events[-1].dest == "netherworld" and "上限" in events[-1].reason
    assert conserved(g)
    g.next_to(3, "draw")                                    # the draw skill at the limit too
    g.do("move", player="A", source="deck", dest="hand", cards=N.hand_limit)
    g.do("draw_skill", player="A", kind="draw1")
    assert player(g, "A")["hand"] == N.hand_limit and conserved(g)
    assert g.events[-1].dest == "netherworld"


def test_sendall_returns_one_card_from_the_face_up_netherworld():
    g = game()
    g.do("skill", player="A", kind="sendall")
    p = player(g, "A")
    assert (p["hand"], p["netherworld"]) == (1, N.opening_hand - 1) and conserved(g)


def test_face_down_netherworld_cards_are_counted_apart():
    g = game()
    g.do("descend", player="A", card="骑士")
    g.do("assist", player="A", card="剑童", fighter="A1")
    events = g.do("annihilate", piece="A1", why="某卡效果")
    p = player(g, "A")
    assert (p["netherworld_face_down"], p["netherworld"]) == (1, 1)   # the assist goes face up
    assert any("湮灭" in line and "背面" in line for line in log(g, events))
    g.do("move", player="A", source="netherworld", dest="netherworld", cards=1, face_down=True, why="游魂")
    assert (player(g, "A")["netherworld_face_down"], player(g, "A")["netherworld"]) == (2, 0)
    with pytest.raises(IllegalCommand, match="has 0 card\\(s\\) in netherworld"):
        g.do("move", player="A", source="netherworld", dest="deck")
    g.do("move", player="A", source="hand", dest="removed", why="除外效果")
    assert player(g, "A")["removed"] == 1 and conserved(g)
    with pytest.raises(IllegalCommand, match="--face-down is for the netherworld"):
        g.do("move", player="A", source="hand", dest="deck", face_down=True)


def test_board_view_json_and_text():
    g = game()
    g.do("descend", player="A", card="骑士")
    g.do("assist", player="A", card="盾兵", fighter="A1")
    s = status_json(g.state, g.ctx)
    a1 = s["players"][0]["fighters"][0]
    assert set(a1) >= {"id", "card", "name", "rank", "attack", "guard", "stance", "wounded", "attacks_left", "assists"}
    assert a1["assists"] == [{"id": "A2", "card": "shield", "name": "盾兵", "rank": 1, "attack_bonus": 0,
                              "guard_bonus": 3}]
    assert {"netherworld", "netherworld_face_down", "removed", "field_cards"} <= set(s["players"][0])
    lines = g.ctx.rules.board_lines(s, g.ctx)
    assert "    A1 骑士 阶1 攻5/守6 战备 可攻击1次 [协助：A2 盾兵]" in lines
    assert any(line.startswith("▶ A: 生命 20") and "场上 1/5名（2张）" in line for line in lines)


def test_undo_restores_the_exact_state_and_the_ids():
    g = _duel("骑士", "盾兵", b_guard=True, b_assists=("剑童",))
    before = g.state
    g.do("skill", player="A", kind="pierce")
    g.do("attack", fighter="A1", target="B1")
    g.undo()
    g.undo()
    assert g.state == before
    g.do("descend", player="A", card="剑童")
    assert [p.id for p in g.state.pieces] == ["B1", "B2", "A1", "A2"]


def test_effects_change_attack_and_guard_for_this_turn_or_lasting_never_below_zero():
    g = game()
    g.do("descend", player="A", card="骑士")                # 5/3
    with pytest.raises(IllegalCommand, match="--why"):
        g.do("boost", fighter="A1", attack="+2", why=" ")
    g.do("boost", fighter="A1", attack="+2", why="纸符")
    g.do("boost", fighter="A1", guard="-9", lasting=True, why="冥火")
    a1 = fighter(g, "A1")
    assert (a1["attack"], a1["guard"]) == (7, 0)
    g.next_to(2, "main")
    assert (fighter(g, "A1")["attack"], fighter(g, "A1")["guard"]) == (5, 0)   # this turn's +2 is gone
    g.do("boost", fighter="A1", guard="+10", lasting=True, why="x")
    assert fighter(g, "A1")["guard"] == 3 + 10 - 9


def test_an_effect_that_lets_a_fighter_attack_again():
    g = _duel("骑士", "剑童")
    g.do("move", player="B", source="hand", dest="field", card="剑童", why="效果")
    g.do("attack", fighter="A1", target="B1")
    with pytest.raises(IllegalCommand, match="only ready fighters attack"):
        g.do("attack", fighter="A1", target="B2")
    g.do("stance", fighter="A1", stance="ready", why="剑圣：变回战备状态")
    g.do("boost", fighter="A1", attacks=1, why="剑圣：可再攻击1次")
    g.do("attack", fighter="A1", target="B2")
    assert player(g, "B")["fighters"] == [] and player(g, "B")["life"] == N.starting_life - 3 - 3
    assert fighter(g, "A1")["stance"] == "guard"
