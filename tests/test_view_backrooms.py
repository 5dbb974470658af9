"""The backrooms board as the table page shows it (``rules.board_view`` through
``engine.live.board.table_view``): pieces with their current values, the level countdown and
pile, the chain, in Chinese only."""

from __future__ import annotations

import json
import re

from engine.live.board import table_view

from test_board_backrooms import game, rich
from track_helpers import inline_game, status

ASCII = re.compile(r"[A-Za-z]")


def side(view, seat):
    return view["players"][seat]


def zone_of(view, seat, label):
    (z,) = [z for z in side(view, seat)["zones"] if z["label"] == label]
    return z


def all_pieces(view):
    return [p for player in view["players"] for z in player["zones"] for p in z["pieces"]]


def find(view, pid):
    found = [p for p in all_pieces(view) if p["id"] == pid]
    assert len(found) <= 1
    return found[0] if found else None


def values(p):
    return {s["label"]: (s["value"], s["of"]) for s in p["stats"]}


def stats_of(view, seat):
    return {s["label"]: s for s in side(view, seat)["stats"]}


def test_a_summoned_unit_is_listed_in_the_unit_slots_with_its_id_name_and_values():
    g = game()
    rich(g, 0)
    g.do("summon", card="grunt", slot=3)
    units = zone_of(table_view(g), 0, "单位放置区")
    assert units["slots"] == 5
    (u,) = units["pieces"]
    assert (u["id"], u["name"], u["card"]) == ("A2", "蛮兵", "grunt")
    assert values(u) == {"位置": (3, None), "攻": (3, None), "生命": (4, 4), "承载": (0, 2)}
    assert u["tags"] == [] and u["attached"] == []
    assert zone_of(table_view(g), 0, "特殊放置区")["pieces"] == []
    assert zone_of(table_view(g), 1, "单位放置区")["pieces"] == []


def test_damage_and_buffs_change_the_values_shown_and_a_destroyed_piece_disappears():
    g = game()
    rich(g, 0)
    g.do("summon", card="grunt")
    g.do("damage", player="A2", amount=1)
    g.do("buff", piece="A2", delta="+2", why="测试")
    u = find(table_view(g), "A2")
    assert values(u)["生命"] == (3, 4) and values(u)["攻"] == (5, None)
    assert "受伤" in u["tags"]
    g.do("damage", player="A2", amount=3)
    view = table_view(g)
    assert find(view, "A2") is None and zone_of(view, 0, "单位放置区")["pieces"] == []
    assert stats_of(view, 0)["弃牌堆"]["value"] == 1


def test_outposts_are_pieces_with_hp_and_equipment_hangs_on_its_unit_once():
    g = game()
    rich(g, 0)
    g.do("summon", card="grunt")
    g.do("equip", card="crowbar", unit="A2")
    g.do("summon", card="shrine")
    g.do("damage", player="B", amount=7)
    view = table_view(g)
    (b1,) = zone_of(view, 1, "前哨放置区")["pieces"]
    assert b1["id"] == "B1" and values(b1) == {"生命": (13, 20)} and b1["tags"] == ["受伤"]
    unit = find(view, "A2")
    assert unit["attached"] == [{"id": "A3", "name": "撬棍", "card": "crowbar"}]
    assert values(unit)["承载"] == (1, 2)
    assert [p["id"] for p in zone_of(view, 0, "特殊放置区")["pieces"]] == ["A4"]
    shown = [p["id"] for p in all_pieces(view)] + [a["id"] for p in all_pieces(view) for a in p["attached"]]
    assert sorted(shown) == sorted(p.id for p in g.state.pieces), "every piece exactly once"


def test_piece_states_are_tags_in_the_boards_words():
    g = game()
    rich(g, 0)
    g.do("summon", card="scout")
    g.do("summon", card="grunt")
    g.do("summon", card="trick", special=True)
    g.do("summon", card="lurker", special=True)
    g.do("explore", unit="A2")
    g.do("stun", piece="A5", why="测试")
    g.next_to(1, "battle")
    g.do("attack", unit="A3", target="B1")
    view = table_view(g)
    assert find(view, "A2")["tags"] == ["探索中"]
    assert find(view, "A3")["tags"] == ["已攻击"], "an outpost without attack strikes nothing back"
    assert values(find(view, "B1"))["生命"] == (17, 20)
    assert find(view, "A4")["tags"] == ["背面"] and values(find(view, "A4")) == {"位置": (1, None)}
    lurker = find(view, "A5")
    assert lurker["tags"] == ["眩晕"] and values(lurker)["生命"] == (3, 3), "a unit in a special slot keeps its values"


def test_headline_stats_are_cost_and_destroyed_outposts_as_the_status_says():
    g = game()
    g.do("place", player="B")
    g.do("place", player="B")
    assert [p["id"] for p in zone_of(table_view(g), 1, "前哨放置区")["pieces"]] == ["B1", "B2", "B3"]
    g.do("destroy", piece="B1")
    g.do("spend", player="A", amount=2)
    s, view = status(g), table_view(g)
    for seat in (0, 1):
        key = {x["label"]: x["value"] for x in side(view, seat)["stats"] if x["key"]}
        p = s["players"][seat]
        assert key == {"费用": p["cost"], "前哨已摧毁": p["outposts_destroyed"]}
        st = stats_of(view, seat)
        assert (st["牌库"]["value"], st["手牌"]["value"]) == (p["deck"], p["hand"])
        assert st["可带入"]["value"] == p["carries_left"] and st["可带入"]["of"] == 3
    assert stats_of(view, 1)["前哨已摧毁"]["of"] == 3 and not stats_of(view, 1)["前哨已摧毁"]["warn"]
    assert side(view, 1)["alerts"] == []
    g.do("destroy", piece="B2")
    view = table_view(g)
    assert stats_of(view, 1)["前哨已摧毁"]["warn"], "one more destroyed outpost loses"
    assert any("再被摧毁1座即失败" in a for a in side(view, 1)["alerts"])
    assert [p["id"] for p in zone_of(view, 1, "前哨放置区")["pieces"]] == ["B3"]


def test_the_table_shows_the_level_its_countdown_the_next_level_and_the_pile():
    g = game()
    table = {t["label"]: t for t in table_view(g)["table"]}
    s = status(g)
    assert table["层级"]["value"] == s["level"] == "Level 0" and table["层级"]["key"]
    assert table["切出倒计时（回合）"]["value"] == s["rounds_to_cut"] == 5 and not table["切出倒计时（回合）"]["warn"]
    assert table["下一层级"]["value"] == "Level 1"
    assert table["公共层级牌堆（正面朝上）"]["value"] == "Level 0 → Level 1 → Level 2"
    g.next_to(9, "draw")
    table = {t["label"]: t for t in table_view(g)["table"]}
    assert table["切出倒计时（回合）"]["value"] == 1 and table["切出倒计时（回合）"]["warn"]


def test_after_a_level_cut_the_outposts_are_gone_and_each_player_is_told_to_place_one():
    g = game()
    g.next_to(11, "draw")
    view = table_view(g)
    assert {t["label"]: t["value"] for t in view["table"]}["层级"] == "Level 1"
    for seat in (0, 1):
        assert zone_of(view, seat, "前哨放置区")["pieces"] == []
        assert any("须放置新前哨站或带入前哨" in a for a in side(view, seat)["alerts"])
    g.do("carry", player="A")
    view = table_view(g)
    assert side(view, 0)["alerts"] == [] and find(view, "A1") is not None
    assert side(view, 1)["alerts"]


def test_the_chain_and_the_last_resolution_are_sections():
    g = game()
    assert table_view(g)["sections"] == []
    g.do("chain_push", player="A", text="现实故障")
    g.do("chain_push", player="B", text="闪避", negates=1)
    g.do("chain_negate", link=2)
    (chain,) = table_view(g)["sections"]
    assert chain["label"] == "连锁（后发先至）"
    assert chain["lines"] == ["1. A：现实故障", "2. B：闪避（无效连锁1）（已无效）"]
    g.do("chain_resolve")
    (last,) = table_view(g)["sections"]
    assert last["label"] == "上次连锁处理顺序" and last["lines"] == status(g)["last_resolution"]
    assert len(last["lines"]) == 2 and last["lines"][0].startswith("2. 闪避")


def test_untracked_sizes_show_a_dash_and_an_empty_deck_is_an_alert():
    g = inline_game()
    st = stats_of(table_view(g), 0)
    assert st["牌库"]["value"] == "—" and st["手牌"]["value"] == "—" and not st["牌库"]["warn"]
    g = game()
    deck = g.state.players[0].deck
    g.do("move", player="A", source="deck", dest="removed", cards=deck, why="测试")
    view = table_view(g)
    assert stats_of(view, 0)["牌库"]["value"] == 0 and stats_of(view, 0)["牌库"]["warn"]
    assert "牌库已空：抽牌阶段不抽牌" in side(view, 0)["alerts"]


def _strings(view):
    """Every label, tag, alert and zone/section label the game's view writes."""
    out = [t["label"] for t in view["table"]] + [x["label"] for x in view["sections"]]
    for player in view["players"]:
        out += [x["label"] for x in player["stats"]] + player["alerts"]
        for z in player["zones"]:
            out.append(z["label"])
            for p in z["pieces"]:
                out += [x["label"] for x in p["stats"]] + p["tags"]
    return out


def test_the_view_is_chinese_json_with_no_none_and_one_side_per_player():
    g = game()
    rich(g, 0)
    g.do("summon", card="grunt")
    g.do("equip", card="crowbar", unit="A2")
    g.do("summon", card="trick", special=True)
    g.do("damage", player="B", amount=19)
    g.do("place", player="B")
    g.do("place", player="B")
    g.do("destroy", piece="B1")
    g.do("destroy", piece="B2")
    g.do("chain_push", player="A", text="效果")
    view = table_view(g)
    json.loads(json.dumps(view, ensure_ascii=False))
    strings = _strings(view)
    assert strings and all(isinstance(x, str) and x for x in strings)
    assert [x for x in strings if ASCII.search(x)] == []
    assert [p["name"] for p in view["players"]] == ["A", "B"] and len(view["players"]) == len(status(g)["players"])
    for p in all_pieces(view):
        assert p["name"] and all(isinstance(x["value"], (int, str)) for x in p["stats"])
    assert any(side(view, 1)["alerts"]) and any(x["warn"] for x in side(view, 1)["stats"])
