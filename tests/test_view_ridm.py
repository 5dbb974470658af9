"""ridm's board as the table page shows it (``rules.board_view`` through ``engine.live.board.table_view``):
operators as pieces in their zones with their current values, sanity and charges as the headline,
the enemy in one's deploy zone as an alert — in Chinese, nothing the text board shows lost."""

from __future__ import annotations

import json
import re

from engine.decks import read_deck
from engine.live.board import table_view
from engine.paths import card_data_root

from test_board_ridm import at, op, skill
from test_board_ridm import facing as board_facing
from track_helpers import InlineGame, status


CARDS = {c.id: c for c in (
    op("blade", "剑士", 6, 3, 2),
    op("wall", "铁壁", 2, 6, 3),
    op("glass", "玻璃", 5, 1, 1),
    op("scout", "斥候", 4, 2, 2),
    skill("blade-s", "斩击", "剑士", 1, 2),
)}
DECK = {"blade": 2, "wall": 2, "glass": 1, "scout": 2, "blade-s": 2}


def game(players=("A", "B")) -> InlineGame:
    return InlineGame("ridm", players, decks={players[0]: DECK, players[1]: DECK}, cards=CARDS)


def seat(g: InlineGame, i: int) -> dict:
    return table_view(g)["players"][i]


def zone(g: InlineGame, i: int, label: str) -> dict:
    (z,) = [z for z in seat(g, i)["zones"] if z["label"] == label]
    return z


def stats(thing: dict) -> dict:
    return {s["label"]: s for s in thing["stats"]}


def pieces(view: dict) -> list[dict]:
    return [p for seat_ in view["players"] for z in seat_["zones"] for p in z["pieces"]]


def facing(a: str, b: str) -> InlineGame:
    return board_facing(a, b, game())


def test_a_deployed_operator_is_a_piece_in_its_owners_deploy_zone_with_its_card_values():
    g = at(game(), 1)
    assert [(z["label"], z["pieces"], z["slots"]) for z in seat(g, 0)["zones"]] == [("部署区", [], 1), ("行动区", [], 1)]
    g.do("deploy", player="A", operator="剑")
    (a1,) = zone(g, 0, "部署区")["pieces"]
    assert (a1["id"], a1["name"], a1["card"]) == ("A1", "剑士", "blade")
    assert [(s["label"], s["value"], s["of"]) for s in a1["stats"]] == [("攻", 6, None), ("防", 3, None), ("阻挡", 2, 2)]
    assert a1["tags"] == ["本回合部署"] and a1["attached"] == []
    assert pieces(table_view(g)) == [a1]


def test_headline_stats_are_sanity_and_charges_and_equal_the_status():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="scout")
    g.do("charge", player="A", cards=2)
    g.do("sanity", player="B", delta="-1")
    s = status(g)
    for i in (0, 1):
        st, p = stats(seat(g, i)), s["players"][i]
        assert [label for label, x in st.items() if x["key"]] == ["理智", "充能"]
        assert (st["理智"]["value"], st["充能"]["value"], st["充能槽"]["value"]) == (p["sanity"], p["charges"], p["charges"])
        assert (st["部署"]["value"], st["部署"]["of"]) == (p["deployments_used"], 1)
        assert (st["牌库"]["value"], st["手牌"]["value"], st["弃置"]["value"]) == (p["deck"], p["hand"], p["discard"])
    assert stats(seat(g, 0))["充能"]["value"] == 2 and stats(seat(g, 0))["部署"]["value"] == 1
    assert stats(seat(g, 1))["理智"]["value"] == 2 and not stats(seat(g, 1))["理智"]["warn"]
    g.do("sanity", player="B", delta="-1")                   # one more enemy in the deploy zone loses
    assert stats(seat(g, 1))["理智"]["warn"] and not stats(seat(g, 0))["理智"]["warn"]


def test_combat_and_adjustments_change_the_values_shown_and_a_routed_operator_is_tagged():
    g = facing("scout", "wall")                              # 4 < defense 6: the scout loses block
    g.do("fight", attacker="A1", defender="B1")
    (a1,) = zone(g, 0, "部署区")["pieces"]
    assert (stats(a1)["阻挡"]["value"], stats(a1)["阻挡"]["of"], stats(a1)["阻挡"]["warn"]) == (1, 2, True)
    assert a1["tags"] == ["已行动"]
    g.do("adjust", operator="B1", stat="attack", delta="+3", why="测试")
    (b1,) = zone(g, 1, "部署区")["pieces"]
    assert (stats(b1)["攻"]["value"], stats(b1)["阻挡"]["value"], stats(b1)["阻挡"]["warn"]) == (5, 3, False)
    g.do("adjust", operator="A1", stat="block", delta="-1", why="测试")
    (a1,) = zone(g, 0, "部署区")["pieces"]
    assert "横置" in a1["tags"] and stats(a1)["阻挡"]["value"] == 0 and not stats(a1)["阻挡"]["warn"]
    assert seat(g, 0)["alerts"] == ["斥候已横置：己方回合结束时送去弃置区（可先撤退或替换）"]


def test_a_routed_operator_disappears_when_it_goes_to_the_discard_or_the_preparation_zone():
    g = facing("blade", "glass")
    g.do("fight", attacker="A1", defender="B1")              # glass routed
    assert "横置" in zone(g, 1, "部署区")["pieces"][0]["tags"]
    at(g, 4).do("withdraw", operator="B1")
    assert zone(g, 1, "部署区")["pieces"] == [] and seat(g, 1)["alerts"] == []
    st = stats(seat(g, 1))
    assert (st["准备区"]["value"], st["准备区卡牌"]["value"]) == (1, "玻璃")
    assert [p["id"] for p in pieces(table_view(g))] == ["A1"]


def test_an_invader_stands_in_its_victims_deploy_zone_and_is_an_alert_until_it_leaves():
    g = at(game(), 1)
    g.do("deploy", player="A", operator="scout")
    for turn, where in ((3, "action"), (5, "enemy-action")):
        at(g, turn).do("move", operator="A1", zone=where)
        assert seat(g, 1)["alerts"] == []
    assert [p["id"] for p in zone(g, 1, "行动区")["pieces"]] == ["A1"]
    at(g, 7).do("move", operator="A1", zone="enemy-deploy")
    (a1,) = zone(g, 1, "部署区")["pieces"]
    assert a1["id"] == "A1" and a1["tags"] == ["A的干员", "已行动"]
    assert zone(g, 0, "部署区")["pieces"] == zone(g, 0, "行动区")["pieces"] == []
    assert seat(g, 1)["alerts"] == ["部署区有敌方干员斥候，回合结束时理智−1"] and seat(g, 0)["alerts"] == []
    at(g, 8)
    assert stats(seat(g, 1))["理智"]["value"] == status(g)["players"][1]["sanity"] == 2
    at(g, 9).do("move", operator="A1", zone="enemy-action")
    assert seat(g, 1)["alerts"] == []


def test_a_skill_hangs_on_the_operator_it_covers_with_its_timer():
    g = at(game(), 1)
    g.do("charge_skill", player="A", skill="blade-s")
    assert (stats(seat(g, 0))["技能槽"]["value"], stats(seat(g, 0))["技能槽充能"]["value"]) == ("斩击", "已用")
    g.do("deploy", player="A", operator="blade")
    g.do("activate", player="A", skill="斩击")
    (a1,) = zone(g, 0, "部署区")["pieces"]
    assert stats(a1)["技能"]["value"] == "斩击 2T"
    assert a1["attached"] == [{"id": None, "name": "斩击", "card": "blade-s"}]
    assert stats(seat(g, 0))["计时"]["value"] == "剑士·斩击 2T" and stats(seat(g, 1))["计时"]["value"] == "无"
    assert stats(seat(g, 0))["技能槽"]["value"] == "无"     # the slot card paid the charge
    at(g, 3)
    assert stats(zone(g, 0, "部署区")["pieces"][0])["技能"]["value"] == "斩击 1T"
    at(g, 4)
    (a1,) = zone(g, 0, "部署区")["pieces"]
    assert "技能" not in stats(a1) and a1["attached"] == []


def test_without_deck_lists_or_card_data_counts_read_as_a_dash_and_no_piece_is_shown():
    g = InlineGame("ridm", cards={})
    g.next_to(1, "main")
    g.do("deploy", player="A", operator="能天使")
    st = stats(seat(g, 0))
    assert (st["牌库"]["value"], st["手牌"]["value"], st["弃置"]["value"]) == ("—", "—", "—")
    assert st["部署"]["value"] == 1 and pieces(table_view(g)) == []


def _played_out() -> InlineGame:
    """Shipped decks and card data, Chinese seat names: 乙's 星熊 (B1) walks into 甲's deploy zone
    (turns 4, 6, 8), 甲's 芬 (A1) enters the action zone by effect and attacks it (turn 9)."""
    decks = card_data_root() / "ridm" / "decks"
    g = InlineGame("ridm", ("甲", "乙"), decks={"甲": dict(read_deck(decks / "vanguard-assault.yaml").entries),
                                               "乙": dict(read_deck(decks / "iron-wall.yaml").entries)}, cards=None)
    at(g, 1).do("charge", player="甲", cards=1)
    at(g, 2).do("deploy", player="乙", operator="hoshiguma")
    for turn, where in ((4, "action"), (6, "enemy-action"), (8, "enemy-deploy")):
        at(g, turn).do("move", operator="B1", zone=where)
    at(g, 9).do("deploy", player="甲", operator="fang", by_effect=True, zone="action")
    g.do("fight", attacker="A1", defender="B1")
    g.do("charge_skill", player="甲", skill="texas-s1")
    return g


def test_every_piece_shows_once_and_the_view_is_chinese_and_json():
    g = _played_out()
    view = table_view(g)
    ids = [p["id"] for p in pieces(view)]
    assert sorted(ids) == sorted(p.id for p in g.state.pieces) and len(ids) == len(set(ids)) >= 2
    json.dumps(view, ensure_ascii=False)
    ascii_letters = re.compile("[A-Za-z]")
    words = [s["label"] for s in view["table"]] + [l for sec in view["sections"] for l in [sec["label"], *sec["lines"]]]
    for seat_ in view["players"]:
        words += seat_["alerts"]
        words += [w for s in seat_["stats"] for w in (s["label"], s["value"])]
        for z in seat_["zones"]:
            words.append(z["label"])
            for p in z["pieces"]:
                words += [p["name"], *p["tags"]] + [w for s in p["stats"] for w in (s["label"], s["value"])]
                words += [a["name"] for a in p["attached"]]
    assert words and all(w is not None for w in words)
    assert [w for w in words if isinstance(w, str) and ascii_letters.search(w)] == []
    assert all(isinstance(w, (int, str)) for w in words)


def test_nothing_the_text_board_shows_is_lost():
    g = _played_out()
    text = "\n".join(g.ctx.rules.board_lines(status(g), g.ctx))
    view = table_view(g)
    for seat_ in view["players"]:
        for s in seat_["stats"]:
            shown = f"{s['value']}/{s['of']}" if s["of"] is not None else str(s["value"])
            assert f"{s['label']} {shown}" in text or s["label"] == "准备区卡牌"
        for z in seat_["zones"]:
            for p in z["pieces"]:
                st = stats(p)
                assert (f"{p['id']} {p['name']}" in text and f"攻{st['攻']['value']} 防{st['防']['value']} "
                        f"阻挡{st['阻挡']['value']}/{st['阻挡']['of']}" in text)
                assert all(t in text for t in p["tags"])
    for p, seat_ in zip(status(g)["players"], view["players"]):
        assert p["enemy_in_deploy"] == any(a.startswith("部署区有敌方干员") for a in seat_["alerts"])
    assert view["players"][0]["alerts"] == ["部署区有敌方干员星熊，回合结束时理智−1"]
    for label in ("理智", "充能", "部署", "技能槽充能", "计时", "牌库", "手牌", "弃置", "准备区", "充能槽", "技能槽"):
        assert label in stats(view["players"][0])
