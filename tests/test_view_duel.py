"""The duel board as the table page shows it (``table_view`` → ``rules.board_view``): fighters as
pieces with their current numbers, assists and source cards attached, stance and wound as tags,
the per-turn limits as "used of allowed", alerts for what bites next — all in Chinese, from the
shipped 万剑归宗 deck on the pure decider."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from engine.definitions import load_game
from engine.live.board import table_view
from engine.paths import card_data_root
from engine.live.view import status_json

from track_helpers import InlineGame

N = load_game("duel").rules
SWORDS = yaml.safe_load(Path(card_data_root() / "duel" / "decks" / "swords.yaml").read_text(encoding="utf-8"))["cards"]


def game() -> InlineGame:
    return InlineGame("duel", decks={"A": dict(SWORDS), "B": dict(SWORDS)}, cards=None)


def seat(g, name):
    return next(p for p in table_view(g)["players"] if p["name"] == name)


def stats(d):
    return {s["label"]: (s["value"], s["of"]) for s in d["stats"]}


def field(g, name):
    zones = seat(g, name)["zones"]
    assert [z["label"] for z in zones] == ["场上"]
    return {p["id"]: p for p in zones[0]["pieces"]}


def test_a_descended_fighter_is_a_piece_with_its_id_name_card_numbers_and_stance():
    g = game()
    g.do("descend", player="A", card="青锋剑客")
    g.do("descend", player="A", card="剑童", guard=True)
    zone = seat(g, "A")["zones"][0]
    assert zone["slots"] == N.max_fighters
    a1, a2 = field(g, "A")["A1"], field(g, "A")["A2"]
    assert (a1["name"], a1["card"]) == ("青锋剑客", "azure-blade")
    assert stats(a1) == {"阶": (1, None), "攻": (5, None), "守": (2, None), "可攻击": (1, None), "协助阶级": (0, 1)}
    assert a1["tags"] == ["战备"] and a2["tags"] == ["守卫"]
    assert "协助阶级" not in stats(a2)                    # a rank 0 fighter takes no assist
    assert field(g, "B") == {}


def test_an_assist_hangs_on_its_fighter_and_its_bonus_is_in_the_numbers_shown():
    g = game()
    g.do("descend", player="A", card="青锋剑客")
    g.do("assist", player="A", card="剑童", fighter="A1")
    pieces = field(g, "A")
    assert list(pieces) == ["A1"]                        # the assist is no piece of its own
    a1 = pieces["A1"]
    assert a1["attached"] == [{"id": "A2", "name": "协助：剑童", "card": "sword-page"}]
    assert stats(a1)["攻"] == (5 + 1, None) and stats(a1)["协助阶级"] == (0, 1)
    g.do("boost", fighter="A1", attack="+2", guard="-1", why="纸符")
    assert (stats(field(g, "A")["A1"])["攻"], stats(field(g, "A")["A1"])["守"]) == ((8, None), (1, None))


def test_a_rank_up_keeps_the_piece_and_attaches_the_covered_card_as_a_source():
    g = game()
    g.do("descend", player="A", card="青锋剑客")
    g.do("rank_up", player="A", card="御剑师", fighter="A1")
    a1 = field(g, "A")["A1"]
    assert (a1["name"], a1["card"]) == ("御剑师", "sword-rider")
    assert stats(a1)["阶"] == (2, None) and stats(a1)["本源"] == (1, None) and stats(a1)["攻"] == (7, None)
    assert a1["attached"] == [{"id": None, "name": "本源：青锋剑客", "card": "azure-blade"}]


def test_combat_shows_wounds_turns_the_attacker_to_guard_and_removes_the_dead():
    g = game()
    g.do("descend", player="A", card="青锋剑客")                  # A1 5/2
    g.next_to(2, "main")
    g.do("descend", player="B", card="乡勇", guard=True)          # B1 4/3, guard
    g.do("descend", player="B", card="外门剑修")                   # B2 4/2, ready
    g.do("attack", fighter="B2", target="A1")                     # 4 ≤ 5: both die, B takes 1
    assert field(g, "A") == {} and list(field(g, "B")) == ["B1"]
    assert stats(seat(g, "B"))["生命"] == (N.starting_life - 1, None)
    assert stats(seat(g, "A"))["场上"] == (0, N.max_fighters)
    g.next_to(3, "main")
    g.do("descend", player="A", card="剑童")                      # A2 2/0 (A1 is never reused)
    g.do("attack", fighter="A2", target="B1")                     # 2 ≤ guard 3: wounded
    b1, a2 = field(g, "B")["B1"], field(g, "A")["A2"]
    assert b1["tags"] == ["守卫", "受伤"]
    assert a2["tags"] == ["守卫"] and stats(a2)["可攻击"] == (0, None)


def test_pierce_shows_as_pending_and_then_as_the_guard_it_took():
    g = game()
    g.do("descend", player="A", card="青锋剑客")
    g.next_to(2, "main")
    g.do("descend", player="B", card="乡勇", guard=True)           # B1 guard 3
    g.do("skill", player="B", kind="pierce")
    assert stats(seat(g, "B"))["贯穿"] == ("待用", None) and stats(seat(g, "B"))["技能"] == (1, N.in_turn_skills_per_turn)
    assert "贯穿：本回合主战者的下一次攻击获得贯穿" in seat(g, "B")["alerts"]
    g.next_to(3, "main")
    assert "贯穿" not in stats(seat(g, "B")) and seat(g, "B")["alerts"] == []
    g.do("boost", fighter="A1", attacks="1", why="效果")
    g.do("skill", player="A", kind="pierce")
    g.do("attack", fighter="A1", target="B1")                      # 5 > guard 3, pierced: B1 dies, B takes 2
    assert "B1" not in field(g, "B") and stats(seat(g, "B"))["生命"] == (N.starting_life - 2, None)


def test_the_players_numbers_are_the_status_numbers_with_the_turn_limits_as_used_of_allowed():
    g = game()
    g.next_to(2, "draw")
    g.do("draw_skill", player="B", kind="fill")
    g.next_to(2, "main")
    g.do("descend", player="B", card="青锋剑客")
    g.do("assist", player="B", card="剑童", fighter="B1")
    g.do("skill", player="B", kind=f"send{N.in_turn_skill_discard_small}")
    g.do("move", player="B", source="deck", dest="removed", cards="2", why="效果")
    g.do("move", player="B", source="deck", dest="netherworld", cards="1", face_down=True, why="效果")
    p = next(p for p in status_json(g.state, g.ctx)["players"] if p["name"] == "B")
    assert stats(seat(g, "B")) == {
        "生命": (p["life"], None), "牌库": (p["deck"], None), "手牌": (p["hand"], N.hand_limit),
        "场上": (1, N.max_fighters), "场上卡牌": (2, None), "幽冥": (p["netherworld"], None),
        "幽冥背面": (1, None), "除外": (2, None), "降临": (1, N.descents_per_turn),
        "技能": (1, N.in_turn_skills_per_turn), "抽牌技能": (1, N.draw_skills_per_turn)}
    assert [s["label"] for s in seat(g, "B")["stats"] if s["key"]] == ["生命"]
    assert "除外" not in stats(seat(g, "A"))                         # as on the terminal: only when there are some


def test_danger_full_hand_empty_deck_and_low_life_are_warned_and_alerted():
    g = game()
    a = seat(g, "A")
    assert a["alerts"] == [] and not any(s["warn"] for s in a["stats"])
    g.do("draw", player="A", cards="1")                             # hand 6 of 6
    g.do("move", player="A", source="deck", dest="netherworld", cards=str(status_json(g.state, g.ctx)["players"][0]["deck"]))
    g.do("life", player="A", delta="-15", why="效果")
    a = seat(g, "A")
    assert {s["label"] for s in a["stats"] if s["warn"]} == {"生命", "牌库", "手牌"}
    assert a["alerts"] == [f"手牌已达上限{N.hand_limit}张：再获得的牌送去幽冥", "牌库已空：再抽牌即告负"]
    g.do("life", player="A", delta="+1", why="效果")
    assert "生命" not in {s["label"] for s in seat(g, "A")["stats"] if s["warn"]}   # 6 is not low


def _busy():
    g = game()
    g.do("descend", player="A", card="青锋剑客")
    g.do("assist", player="A", card="剑童", fighter="A1")
    g.do("rank_up", player="A", card="御剑师", fighter="A1")
    g.do("descend", player="A", card="灵狐", guard=True)
    g.next_to(2, "main")
    g.do("descend", player="B", card="乡勇", guard=True)
    g.do("assist", player="B", card="小剑灵", fighter="B1")
    g.do("skill", player="B", kind="pierce")
    g.do("descend", player="B", card="剑童")
    g.do("attack", fighter="B3", target="A3")                      # 2 ≤ guard 2 pierced: wounded, guard −2
    return g


def test_every_piece_on_the_board_appears_exactly_once_and_nothing_of_the_terminal_is_lost():
    g = _busy()
    view = table_view(g)
    shown = [x["id"] for p in view["players"] for z in p["zones"] for piece in z["pieces"]
             for x in [piece, *piece["attached"]] if x["id"] is not None]
    assert sorted(shown) == sorted(p.id for p in g.state.pieces)
    a3 = field(g, "A")["A3"]
    assert a3["tags"] == ["守卫", "受伤", "本回合守卫-2"] and stats(a3)["守"] == (0, None)
    # every number of each fighter's terminal line is in its piece
    for p in status_json(g.state, g.ctx)["players"]:
        for f in p["fighters"]:
            shown = field(g, p["name"])[f["id"]]
            assert (stats(shown)["阶"][0], stats(shown)["攻"][0], stats(shown)["守"][0]) == (f["rank"], f["attack"], f["guard"])
            assert stats(shown)["可攻击"][0] == f["attacks_left"] and stats(shown).get("本源", (0,))[0] == len(f["sources"])
            assert [a["id"] for a in shown["attached"] if a["id"]] == [a["id"] for a in f["assists"]]


def _strings(view):
    """Every text a person reads in the view, but piece and card ids."""
    out = [t["label"] for t in view["table"]] + [s["label"] for s in view["sections"]]
    out += [line for s in view["sections"] for line in s["lines"]]
    for p in view["players"]:
        out += p["alerts"]
        stats = list(p["stats"])
        for z in p["zones"]:
            out.append(z["label"])
            for piece in z["pieces"]:
                out += [piece["name"], *piece["tags"], *(a["name"] for a in piece["attached"])]
                stats += piece["stats"]
        out += [s["label"] for s in stats] + [s["value"] for s in stats if isinstance(s["value"], str)]
    return out


def test_the_view_is_chinese_json_and_never_none_in_a_label():
    g = _busy()
    g.do("draw", player="B", cards="4")                             # hand at the limit
    g.do("life", player="A", delta="-16", why="效果")
    view = table_view(g)
    json.loads(json.dumps(view, ensure_ascii=False))
    texts = _strings(view)
    assert texts and all(isinstance(t, str) and t for t in texts)
    assert [t for t in texts if re.search("[A-Za-z]", t)] == []
    for p in view["players"]:
        for s in p["stats"] + [st for z in p["zones"] for pc in z["pieces"] for st in pc["stats"]]:
            assert isinstance(s["value"], (int, str)) and not isinstance(s["value"], bool)
            assert s["of"] is None or isinstance(s["of"], int)
    assert any(a for p in view["players"] for a in p["alerts"])      # the check saw alerts, too
