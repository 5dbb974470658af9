"""ridm's board on the pure decider: operators as pieces, zones, moving, combat, routing, skills,
and the turn-end sanity check read from the board (issue 7 §1 ridm)."""

from __future__ import annotations

import json

import pytest

from engine.cards import Card
from engine.tracker import IllegalCommand, codec
from engine.tracker.state import State, fold
from engine.live.view import status_json

from track_helpers import InlineGame


def op(card_id: str, name: str, attack: int, defense: int, block: int) -> Card:
    return Card(id=card_id, type="operator", name=name, values={"attack": attack, "defense": defense, "block": block})


def skill(card_id: str, name: str, user: str, charge: int, duration: int) -> Card:
    return Card(id=card_id, type="skill", name=name, values={"user": user, "charge": charge, "duration": duration})


CARDS = {c.id: c for c in (
    op("blade", "剑士", 6, 3, 2),      # routes a 2/3 (6 > 2+3)
    op("wall", "铁壁", 2, 6, 3),
    op("twin", "双子", 3, 3, 2),      # 3 vs its own kind: 3 ≥ 3, not > 6
    op("glass", "玻璃", 5, 1, 1),
    op("scout", "斥候", 4, 2, 2),
    skill("blade-s", "斩击", "剑士", 1, 2),
    skill("wall-s", "坚壁", "铁壁", 0, 1),
)}
DECK = {"blade": 2, "wall": 2, "twin": 2, "glass": 1, "scout": 2, "blade-s": 2, "wall-s": 1}


def game(**kw) -> InlineGame:
    g = InlineGame("ridm", decks={"A": DECK, "B": DECK}, cards=CARDS, **kw)
    return g


def board(g: InlineGame) -> dict:
    return status_json(g.state, g.ctx)


def piece(g: InlineGame, piece_id: str):
    return g.state.piece(piece_id)


def sanity(g: InlineGame) -> list[int]:
    return [p.sanity for p in g.state.players]


def lines(g: InlineGame) -> str:
    return "\n".join(g.ctx.rules.board_lines(board(g), g.ctx))


def at(g: InlineGame, turn: int, phase: str = "main") -> InlineGame:
    g.next_to(turn, phase)
    return g


def facing(a: str = "blade", b: str = "twin", g: InlineGame | None = None) -> InlineGame:
    """A's ``a`` (A1) deployed on turn 1, B's ``b`` (B1) on turn 2; turn 3 (A's) in the main phase
    (of ``g``, a fresh game with these tests' cards by default)."""
    g = at(g or game(), 1)
    g.do("deploy", player="A", operator=a)
    at(g, 2).do("deploy", player="B", operator=b)
    return at(g, 3)


# ---------------------------------------------------------------------------- deploying


def test_deploy_by_name_or_id_puts_a_piece_with_the_cards_numbers_in_the_deploy_zone():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="剑")                      # part of a name
    a1 = piece(g, "A1")
    assert (a1.name, a1.card, a1.side, a1.zone) == ("剑士", "blade", 0, "deploy")
    assert (a1.attack, a1.defense, a1.block, a1.max_block, a1.routed) == (6, 3, 2, 2, False)
    zone = board(g)["players"][0]["deploy_zone"]
    assert zone == {"id": "A1", "card": "blade", "name": "剑士", "owner": "A", "zone": "deploy", "side": "A",
                    "attack": 6, "defense": 3, "block": 2, "max_block": 2, "base_attack": 6, "base_defense": 3,
                    "routed": False, "deployed_this_turn": True, "acted": False, "skill": None}
    assert board(g)["players"][0]["action_zone"] is None
    assert "部署区：A1 剑士 攻6 防3 阻挡2/2 本回合部署" in lines(g)
    at(g, 2).do("deploy", player="B", operator="wall")            # by card id
    assert piece(g, "B1").name == "铁壁" and board(g)["players"][1]["deploy_zone"]["id"] == "B1"


def test_deploy_reads_the_players_deck_list_with_did_you_mean():
    g = InlineGame("ridm", decks={"A": {"blade": 1}, "B": {"wall": 1}}, cards=CARDS)
    at(g, 1)
    with pytest.raises(IllegalCommand, match="in A's deck"):
        g.do("deploy", player="A", operator="铁壁")
    with pytest.raises(IllegalCommand, match="did you mean 剑士"):
        g.do("deploy", player="A", operator="bladx")
    g.do("deploy", player="A", operator="blade")
    with pytest.raises(IllegalCommand, match="A's deck has 1 剑士; 1 already on the board"):
        g.do("deploy", player="A", operator="blade", by_effect=True, zone="action")


def test_one_active_deployment_per_turn_effects_do_not_count_and_it_resets():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="blade")
    with pytest.raises(IllegalCommand, match="1/1 active deployment"):
        g.do("deploy", player="A", operator="scout", zone="deploy")
    g.do("deploy", player="A", operator="scout", by_effect=True, zone="action")
    assert piece(g, "A2").zone == "action" and g.state.players[0].deployments_used == 1
    at(g, 3)
    assert g.state.players[0].deployments_used == 0
    with pytest.raises(IllegalCommand, match="A's 部署区 already holds A1 剑士"):
        g.do("deploy", player="A", operator="twin")
    assert g.state.players[0].deployments_used == 0, "a refused deployment used nothing"


def test_a_zone_holds_one_operator_and_an_active_deployment_goes_to_the_deploy_zone():
    g = at(game(), 1)
    with pytest.raises(IllegalCommand, match="deploy zone .*--by-effect"):
        g.do("deploy", player="A", operator="blade", zone="action")
    g.do("deploy", player="A", operator="blade")
    with pytest.raises(IllegalCommand, match=r"A's 部署区 already holds A1 剑士 \(at most 1 operator"):
        g.do("deploy", player="A", operator="wall", by_effect=True)
    g.do("deploy", player="A", operator="wall", by_effect=True, zone="action")
    with pytest.raises(IllegalCommand, match="A's 行动区 already holds A2 铁壁"):
        g.do("deploy", player="A", operator="twin", by_effect=True, zone="action")


def test_nothing_happens_on_the_board_before_the_turn_start_draw_is_done():
    g = game()
    assert (g.state.turn, g.state.phase) == (1, "start")
    assert "A必须从牌组抽1张牌（进入下一阶段时自动抽，牌库7）" in g.state.reminders
    for name, args in (("deploy", {"player": "A", "operator": "blade"}),
                       ("charge_skill", {"player": "A", "skill": "blade-s"}),
                       ("activate", {"player": "A", "skill": "wall-s", "operator": "铁壁"})):
        with pytest.raises(IllegalCommand, match="only in 行动"):
            g.do(name, **args)
    g.do("next")                                            # the draw is done
    g.do("deploy", player="A", operator="blade")
    at(g, 2).do("deploy", player="B", operator="wall")
    at(g, 3, "start")
    for name, args in (("move", {"operator": "A1", "zone": "action"}), ("fight", {"attacker": "A1", "defender": "B1"})):
        with pytest.raises(IllegalCommand, match="only in 行动"):
            g.do(name, **args)
    at(g, 3).do("fight", attacker="A1", defender="B1")


def test_deploying_and_acting_on_the_opponents_turn_is_refused():
    g = at(game(), 1)
    with pytest.raises(IllegalCommand, match="it is A's turn, not B's"):
        g.do("deploy", player="B", operator="blade")
    g.do("deploy", player="A", operator="blade")
    at(g, 2)
    with pytest.raises(IllegalCommand, match="attack A1: it is B's turn"):
        g.do("fight", attacker="A1", defender="A1")


# ---------------------------------------------------------------------------- moving


def test_move_never_on_the_deploy_turn_then_one_zone_per_turn_along_the_lane():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="scout")
    with pytest.raises(IllegalCommand, match="deployed this turn: it may attack but not move"):
        g.do("move", operator="A1", zone="action")
    at(g, 3)
    with pytest.raises(IllegalCommand, match="one zone per turn"):
        g.do("move", operator="A1", zone="enemy-action")
    with pytest.raises(IllegalCommand, match="already stands in A的部署区"):
        g.do("move", operator="A1", zone="deploy")
    g.do("move", operator="a1", zone="action")              # piece ids read in any case
    assert (piece(g, "A1").side, piece(g, "A1").zone) == (0, "action")
    with pytest.raises(IllegalCommand, match="already attacked or moved this turn"):
        g.do("move", operator="A1", zone="enemy-action")
    at(g, 5).do("move", operator="A1", zone="enemy-action")
    at(g, 7).do("move", operator="A1", zone="enemy-deploy")
    a1 = board(g)["players"][1]["deploy_zone"]
    assert (a1["id"], a1["owner"], a1["side"]) == ("A1", "A", "B")
    assert "部署区：A1 斥候（A的干员） 攻4 防2 阻挡2/2 已行动" in lines(g)
    at(g, 9).do("move", operator="A1", zone="enemy-action")   # and back along the lane


def test_an_operator_may_attack_on_the_turn_it_is_deployed_only_not_move():
    # The seed forbids only moving: "干员在部署的那个回合不能移动" (RULES.md 2026-12, the rulebook follows it).
    g = at(game(), 1)
    g.do("deploy", player="A", operator="twin")
    at(g, 2).do("deploy", player="B", operator="blade")
    assert board(g)["players"][1]["deploy_zone"]["deployed_this_turn"]
    out = g.do("fight", attacker="B1", defender="A1")            # 6 ≥ 3: the defender loses 1 block
    assert [type(e).__name__ for e in out] == ["OperatorAttacked", "BlockLost"]
    assert piece(g, "A1").block == 1 and piece(g, "B1").acted_turn == 2
    g2 = at(game(), 1)
    g2.do("deploy", player="A", operator="scout")
    with pytest.raises(IllegalCommand, match="deployed this turn: it may attack but not move"):
        g2.do("move", operator="A1", zone="action")
    g2.do("move", operator="A1", zone="action", by_effect=True)  # a talent that says so (推进之王)


def test_an_operator_attacks_or_moves_not_both():
    g = facing("scout", "wall")
    g.do("fight", attacker="A1", defender="B1")
    with pytest.raises(IllegalCommand, match="already attacked or moved this turn"):
        g.do("move", operator="A1", zone="action")
    at(g, 5).do("move", operator="A1", zone="action")
    with pytest.raises(IllegalCommand, match="already attacked or moved this turn"):
        g.do("fight", attacker="A1", defender="B1")


def test_move_into_an_occupied_zone_is_refused():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="scout")
    g.do("deploy", player="A", operator="wall", by_effect=True, zone="action")
    at(g, 3)
    with pytest.raises(IllegalCommand, match="A's 行动区 already holds A2 铁壁"):
        g.do("move", operator="A1", zone="action")


# ---------------------------------------------------------------------------- combat


def test_attack_below_defense_fails_and_the_attacker_loses_block():
    g = facing("scout", "wall")                 # 4 vs defense 6
    g.do("fight", attacker="A1", defender="B1")
    assert (piece(g, "A1").block, piece(g, "B1").block) == (1, 3)
    assert not piece(g, "A1").routed and piece(g, "A1").acted_turn == 3


def test_attack_equal_to_defense_breaks_through_without_routing():
    g = facing("twin", "twin")                  # 3 ≥ 3, not > 3 + 3
    out = g.do("fight", attacker="A1", defender="B1")
    assert [type(e).__name__ for e in out] == ["OperatorAttacked", "BlockLost"]
    assert (piece(g, "A1").block, piece(g, "B1").block, piece(g, "B1").routed) == (2, 1, False)


def test_attack_above_attack_plus_defense_routes_the_defender():
    g = facing("blade", "twin")                 # 6 > 3 + 3? no: equal → not routed
    g.do("fight", attacker="A1", defender="B1")
    assert not piece(g, "B1").routed and piece(g, "B1").block == 1
    g = facing("blade", "scout")                # 6 > 4 + 2? no
    g.do("fight", attacker="A1", defender="B1")
    assert not piece(g, "B1").routed
    g = facing("glass", "glass")                # 5 > 5 + 1? no; 5 ≥ 1: block 1 → 0, routed by block 0
    g.do("fight", attacker="A1", defender="B1")
    assert piece(g, "B1").block == 0 and piece(g, "B1").routed
    g = at(game(), 1)
    g.do("deploy", player="A", operator="blade")
    at(g, 2).do("deploy", player="B", operator="wall")
    g.do("adjust", operator="B1", stat="attack", delta="-2", why="测试：攻击降为0")
    g.do("adjust", operator="B1", stat="defense", delta="-1")
    at(g, 3)
    out = g.do("fight", attacker="A1", defender="B1")       # 6 > 0 + 5
    assert [type(e).__name__ for e in out] == ["OperatorAttacked", "BlockLost", "OperatorRouted"]
    assert "攻击6 > 对方攻击0+防御5=5：被击溃" in out[-1].reason
    assert (piece(g, "B1").block, piece(g, "B1").routed) == (2, True)
    assert "部署区：B1 铁壁 攻0 防5 阻挡2/3 横置" in lines(g)


def test_block_never_goes_below_zero_and_zero_block_routes():
    g = facing("glass", "wall")                 # 5 < 6: the attacker loses its only block
    out = g.do("fight", attacker="A1", defender="B1")
    assert [type(e).__name__ for e in out] == ["OperatorAttacked", "BlockLost", "OperatorRouted"]
    assert (piece(g, "A1").block, piece(g, "A1").routed) == (0, True)
    assert out[-1].reason == "阻挡归零，失去战斗能力"
    with pytest.raises(IllegalCommand, match="already 0"):
        g.do("adjust", operator="A1", stat="block", delta="-1")


def test_a_newly_deployed_operator_may_attack_that_turn():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="twin")
    at(g, 2).do("deploy", player="B", operator="twin")
    g.do("fight", attacker="B1", defender="A1")
    assert piece(g, "A1").block == 1


def test_a_routed_operator_can_neither_attack_nor_be_attacked():
    g = facing("blade", "glass")
    g.do("fight", attacker="A1", defender="B1")             # B1 routed
    g.do("deploy", player="A", operator="scout", by_effect=True, zone="action")
    with pytest.raises(IllegalCommand, match="B1 玻璃 is already routed"):
        g.do("fight", attacker="A2", defender="B1")
    g = facing("glass", "wall")
    g.do("adjust", operator="A1", stat="block", delta="-1", why="卡牌效果")
    assert piece(g, "A1").routed
    with pytest.raises(IllegalCommand, match="routed: it can neither move nor attack"):
        g.do("fight", attacker="A1", defender="B1")
    with pytest.raises(IllegalCommand, match="routed: it can neither move nor attack"):
        g.do("move", operator="A1", zone="action")


def test_an_operator_cannot_attack_its_own_side():
    g = facing("glass", "wall")
    g.do("deploy", player="A", operator="scout", by_effect=True, zone="action")
    with pytest.raises(IllegalCommand, match="both are A's"):
        g.do("fight", attacker="A2", defender="A1")


# ---------------------------------------------------------------------------- withdraw, replace, discard


def _routed_b1() -> InlineGame:
    """B's glass (B1) routed on A's turn 3 by A's blade; B's turn 4 begins (main)."""
    g = facing("blade", "glass")
    g.do("fight", attacker="A1", defender="B1")
    assert piece(g, "B1").routed
    return g


def test_withdraw_only_on_the_owners_turn_and_only_when_routed():
    g = _routed_b1()
    with pytest.raises(IllegalCommand, match="withdraw B1: it is A's turn, not B's"):
        g.do("withdraw", operator="B1")
    at(g, 4)
    g.do("deploy", player="B", operator="twin", by_effect=True, zone="action")
    with pytest.raises(IllegalCommand, match="only a routed operator can be withdrawn; B2 双子 is not routed"):
        g.do("withdraw", operator="B2")
    g.do("withdraw", operator="B1")
    assert piece(g, "B1") is None and g.state.players[1].prep == ("玻璃",)
    assert board(g)["players"][1]["prep_count"] == 1 and "准备区 1（玻璃）" in lines(g)


def test_withdraw_is_refused_before_the_draw():
    g = _routed_b1()
    at(g, 4, "start")
    with pytest.raises(IllegalCommand, match="withdraw only in 行动、回合结束"):
        g.do("withdraw", operator="B1")


def test_replace_puts_a_hand_operator_where_the_routed_one_stood():
    g = _routed_b1()
    at(g, 4)
    g.do("deploy", player="B", operator="twin", by_effect=True, zone="action")   # B2
    g.do("replace", operator="B1", card="铁壁")
    b3 = piece(g, "B3")
    assert piece(g, "B1") is None and (b3.name, b3.side, b3.zone, b3.block, b3.deployed_turn) == ("铁壁", 1, "deploy", 3, 4)
    assert g.state.players[1].prep == ("玻璃",) and g.state.players[1].deployments_used == 0
    with pytest.raises(IllegalCommand, match="deployed this turn"):
        g.do("move", operator="B3", zone="action")


def test_routed_operators_go_to_the_discard_at_their_owners_turn_end_only():
    g = _routed_b1()
    at(g, 3, "end")
    g.do("next")                                             # A's turn end: B1 stays
    assert piece(g, "B1") is not None and piece(g, "B1").routed
    at(g, 4, "end")
    assert any("横置干员B1 玻璃将送去弃置区" in r for r in g.state.reminders)
    out = g.do("next")                                       # B's turn end: gone
    left = [e for e in out if type(e).__name__ == "OperatorLeft"]
    assert [(e.piece, e.to) for e in left] == [("B1", "discard")]
    assert piece(g, "B1") is None and board(g)["players"][1]["deploy_zone"] is None
    assert g.state.players[1].prep == ()


def test_piece_ids_are_never_reused():
    g = _routed_b1()
    at(g, 4).do("withdraw", operator="B1")
    g.do("deploy", player="B", operator="glass")
    assert [p.id for p in g.state.pieces] == ["A1", "B2"]
    assert piece(g, "A1").name == "剑士"


def test_take_from_the_preparation_zone_at_the_turn_end_up_to_the_limit():
    g = _routed_b1()
    at(g, 4).do("withdraw", operator="B1")
    with pytest.raises(IllegalCommand, match="only in 回合结束"):
        g.do("take", player="B", card="玻璃")
    at(g, 4, "end").do("take", player="B", card="玻")
    assert g.state.players[1].prep == () and g.state.players[1].prep_taken == 1
    with pytest.raises(IllegalCommand, match="no card .*there are none"):
        g.do("take", player="B", card="玻璃")


# ---------------------------------------------------------------------------- sanity from the board


def _invader() -> InlineGame:
    """A's scout (A1) walks into B's deploy zone: deployed turn 1, moves on turns 3, 5, 7."""
    g = at(game(), 1)
    g.do("deploy", player="A", operator="scout")
    for turn, zone in ((3, "action"), (5, "enemy-action"), (7, "enemy-deploy")):
        at(g, turn).do("move", operator="A1", zone=zone)
    return g


def test_no_sanity_is_lost_without_an_invader():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="scout")
    at(g, 2).do("deploy", player="B", operator="wall")
    at(g, 6, "end")
    g.do("next")
    assert sanity(g) == [3, 3]
    assert not any("理智检查" in r for r in g.state.reminders)


def test_an_operator_in_the_opponents_deploy_zone_costs_sanity_each_turn_end_until_zero():
    g = _invader()
    assert sanity(g) == [3, 3] and board(g)["players"][1]["enemy_in_deploy"]
    at(g, 7, "end")
    assert any(r.startswith("理智检查：B的部署区有敌方干员A1 斥候") for r in g.state.reminders)
    out = g.do("next")
    loss = [e for e in out if type(e).__name__ == "SanityChanged"]
    assert [(e.player, e.delta) for e in loss] == [(1, -1)]
    assert "回合结束理智检查：B的部署区有敌方干员A1 斥候" in loss[0].reason
    with pytest.raises(IllegalCommand, match="B's 部署区 already holds A1 斥候"):
        at(g, 8).do("deploy", player="B", operator="wall")
    at(g, 8, "end").do("next")                               # B's own turn end too
    assert sanity(g) == [3, 1]
    at(g, 9, "end").do("next")
    assert g.state.over and g.state.winner == 0 and "B理智降至0" in g.state.end_reason
    assert sanity(g) == [3, 0]


def test_leaving_the_deploy_zone_stops_the_loss():
    g = _invader()
    at(g, 8, "end").do("next")
    assert sanity(g) == [3, 1]
    at(g, 9).do("move", operator="A1", zone="enemy-action")
    at(g, 10, "end").do("next")
    assert sanity(g) == [3, 1] and not g.state.over


def test_invade_is_no_longer_a_command_and_old_logs_still_fold():
    from engine.games.ridm import events as ev
    from engine.tracker.core import commands_of

    g = game()
    assert "invade" not in commands_of(g.ctx), "the board decides who is invaded, not a hand-set flag"
    # An old log: the hand-set flag and a name-only deployment fold as before, and no rule reads the flag.
    old = fold([ev.DeployZoneChanged(player=1, enemy_present=True), ev.OperatorDeployed(player=0, operator="能天使")],
               g.state)
    assert old.players[1].enemy_in_deploy and old.players[0].deployments_used == 1 and old.pieces == ()
    g.state = old
    at(g, 1, "end")
    out = g.do("next")
    assert not [e for e in out if type(e).__name__ == "SanityChanged"]


def test_records_written_before_the_board_still_decode():
    from engine.games.ridm.state import RidmPlayer, Timer
    from engine.tracker import events as kev

    deployed = kev.from_record({"type": "OperatorDeployed", "player": 0, "operator": "能天使", "active": True, "reason": ""})
    assert (deployed.piece, deployed.zone) == ("", "deploy")
    timer = codec.decode({"type": "Timer", "operator": "能天使", "skill": "S2", "left": 1}, Timer)
    assert timer.piece == ""
    player = codec.decode({"type": "RidmPlayer", "name": "A", "sanity": 3, "charges": 0, "timers": [],
                           "deployments_used": 0, "skill_slot_charges_used": 0, "enemy_in_deploy": True}, RidmPlayer)
    assert (player.prep, player.skill_slot, player.enemy_in_deploy) == ((), (), True)


def test_without_card_data_deploy_counts_as_before():
    g = InlineGame("ridm", cards={})
    at(g, 1).do("deploy", player="A", operator="能天使")
    assert g.state.players[0].deployments_used == 1 and g.state.pieces == ()


# ---------------------------------------------------------------------------- skills and charges


def test_a_skill_covers_its_operator_while_its_timer_runs():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="blade")
    with pytest.raises(IllegalCommand, match="has 0 charge"):
        g.do("activate", player="A", skill="斩击")
    g.do("charge", player="A")
    g.do("activate", player="A", skill="斩击")
    assert g.state.players[0].charges == 0
    t = g.state.players[0].timers[0]
    assert (t.piece, t.operator, t.skill, t.left) == ("A1", "剑士", "斩击", 2)
    assert board(g)["players"][0]["deploy_zone"]["skill"] == {"skill": "斩击", "turns_left": 2}
    assert "A1 剑士 攻6 防3 阻挡2/2 本回合部署 技能：斩击 2T" in lines(g)
    at(g, 3)
    assert board(g)["players"][0]["deploy_zone"]["skill"] == {"skill": "斩击", "turns_left": 1}
    at(g, 3, "end")
    out = g.do("next")
    assert [(e.piece, e.skill) for e in out if type(e).__name__ == "TimerExpired"] == [("A1", "斩击")]
    assert board(g)["players"][0]["deploy_zone"]["skill"] is None and piece(g, "A1") is not None


def test_a_skill_needs_its_own_operator_and_covers_one_at_a_time():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="wall")
    with pytest.raises(IllegalCommand, match="斩击 is 剑士's skill, not A1 铁壁's"):
        g.do("activate", player="A", skill="blade-s", operator="A1")
    g.do("activate", player="A", skill="wall-s")
    assert g.state.players[0].timers[0].piece == "A1"
    with pytest.raises(IllegalCommand, match="already covered by 坚壁"):
        g.do("activate", player="A", skill="wall-s")


def test_a_skill_stays_while_another_operator_leaves():
    g = _routed_b1()
    at(g, 4).do("charge", player="B")
    g.do("deploy", player="B", operator="blade", by_effect=True, zone="action")   # B2
    g.do("activate", player="B", skill="斩击")
    out = g.do("withdraw", operator="B1")
    assert not [e for e in out if type(e).__name__ == "TimerExpired"]
    assert [t.piece for t in g.state.players[1].timers] == ["B2"]


def test_withdrawing_a_covered_operator_sends_its_skill_to_the_discard():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="wall")
    g.do("activate", player="A", skill="wall-s")
    g.do("adjust", operator="A1", stat="block", delta="-3", why="测试")
    out = g.do("withdraw", operator="A1")
    assert [type(e).__name__ for e in out] == ["TimerExpired", "OperatorLeft"]
    assert g.state.players[0].timers == () and g.state.players[0].prep == ("铁壁",)


def test_the_draw_after_a_face_down_charge_is_optional():
    # "充能后，您可以抽1张牌": charging alone draws nothing; --draw asks for it.
    g = at(game(), 1)
    hand, deck = g.state.players[0].hand, g.state.players[0].deck
    g.do("charge", player="A", cards=2)
    assert (g.state.players[0].hand, g.state.players[0].deck, g.state.players[0].charges) == (hand - 2, deck, 2)
    g.do("charge", player="A", cards=1, draw=1)
    assert (g.state.players[0].hand, g.state.players[0].deck) == (hand - 2, deck - 1)


def test_skill_slot_lists_its_card_and_counts_as_a_charge():
    g = at(game(), 1)
    g.do("charge_skill", player="A", skill="blade-s")
    p = board(g)["players"][0]
    assert (p["charges"], p["skill_slot"], p["skill_slot_charged"]) == (1, ["斩击"], True)
    assert "充能槽 1 | 技能槽 斩击" in lines(g)
    g.do("deploy", player="A", operator="wall")
    g.do("charge", player="A")
    g.do("activate", player="A", skill="wall-s")             # costs 0: the slot stays
    assert g.state.players[0].skill_slot == ("斩击",)
    g.do("deploy", player="A", operator="blade", by_effect=True, zone="action")
    g.do("activate", player="A", skill="斩击", cost=2)       # both charges: the slot card is used up
    assert (g.state.players[0].charges, g.state.players[0].skill_slot) == (0, ())


# ---------------------------------------------------------------------------- undo, replay, the board as data


def test_undo_restores_the_exact_board_and_the_log_refolds_to_it():
    g = facing("blade", "glass")
    before = g.state
    g.do("fight", attacker="A1", defender="B1")
    assert g.state != before
    assert fold(g.events) == g.state
    g.undo()
    assert g.state == before and fold(g.events) == before
    g.do("fight", attacker="A1", defender="B1")
    text = codec.canonical(codec.encode(g.state))
    assert codec.decode(json.loads(text), State) == g.state


def test_log_lines_read_in_chinese():
    from engine.tracker.describe import describe

    g = facing("blade", "glass")
    out = g.do("fight", attacker="A1", defender="B1")
    said = [describe(e, ("A", "B")) for e in out]
    assert said == ["A1（攻6）攻击B1（攻5 防1）", "B1失去1点阻挡", "B1被击溃（横置）"]
    deployed = next(e for e in g.events if type(e).__name__ == "OperatorDeployed")
    assert describe(deployed, ("A", "B")) == "A部署A1 剑士至A的部署区（攻6 防3 阻挡2）"


def test_status_json_lists_every_operator():
    g = facing("blade", "glass")
    ops = board(g)["operators"]
    assert [(o["id"], o["owner"], o["side"], o["zone"]) for o in ops] == [("A1", "A", "A", "deploy"), ("B1", "B", "B", "deploy")]
    assert board(g)["players"][0]["operators"] == ["A1"]


# ---------------------------------------------------------------------------- what card effects allow


def test_an_extra_attack_by_a_card_effect_does_not_use_the_turns_attack():
    g = facing("blade", "wall")
    out = g.do("fight", attacker="A1", defender="B1", by_effect=True)  # 陈's talent, 一刀两断…
    assert out[0].reason == "A1 剑士攻击B1 铁壁（卡牌效果追加攻击，不计次数）"
    assert piece(g, "A1").acted_turn != g.state.turn and piece(g, "B1").block == 2
    g.do("fight", attacker="A1", defender="B1")                       # the turn's own attack
    with pytest.raises(IllegalCommand, match="already attacked or moved"):
        g.do("fight", attacker="A1", defender="B1")


def test_an_effect_may_let_an_operator_move_on_its_deploy_turn():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="scout")
    g.do("move", operator="A1", zone="action", by_effect=True)         # 推进之王's talent
    assert piece(g, "A1").zone == "action"
    with pytest.raises(IllegalCommand, match="already attacked or moved"):
        g.do("fight", attacker="A1", defender="A1")


def test_an_effect_may_return_an_operator_that_is_not_routed():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="scout")
    with pytest.raises(IllegalCommand, match="only a routed operator can be withdrawn"):
        g.do("withdraw", operator="A1")
    g.do("withdraw", operator="A1", by_effect=True)                    # 战术撤离
    assert piece(g, "A1") is None and g.state.players[0].prep == ("斥候",)
