"""The data messages in the user's language (issue 12 §5): a problem with a game's files reads in
Chinese with its file, line, card and field still named; in English it reads as it always did."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import i18n
from engine.cards import read_cards
from engine.decks import check_deck, read_deck
from engine.definitions import load_game
from engine.errors import DataError
from engine.yamlio import parse_yaml


def _in(lang: str, make):
    with i18n.using(lang):
        return make()


def _error(lang: str, make) -> str:
    with i18n.using(lang), pytest.raises(DataError) as caught:
        make()
    return str(caught.value)


def test_a_yaml_syntax_error_names_the_file_and_line():
    text = "id: x\nname: a: b\n"
    english = _error("en", lambda: parse_yaml(text, Path("game.yaml")))
    chinese = _error("zh_CN", lambda: parse_yaml(text, Path("game.yaml")))
    assert english == "game.yaml, line 2: malformed YAML: mapping values are not allowed in this context"
    assert chinese.startswith("game.yaml，第 2 行：YAML 格式有误：此处不能写映射的值")


def test_a_missing_required_field_names_the_card_and_field(game_copy):
    folder = game_copy("duel")
    game = load_game(folder)
    bad = folder / "cards" / "bad.yaml"
    bad.write_text("- id: lost-hawk\n  type: fighter\n  name: 迷途鹰\n  grade: 丙\n  rank: 0\n  attack: 2\n"
                   "  guard: 1\n  assist_attack: 1\n", encoding="utf-8")

    def problem(lang: str) -> str:
        _cards, problems = _in(lang, lambda: read_cards(game, [bad]))
        assert len(problems) == 1
        with i18n.using(lang):
            return str(problems[0])

    assert problem("en") == f"{bad}, line 1, card 'lost-hawk', field 'assist_guard': missing required field"
    assert problem("zh_CN") == f"{bad}，第 1 行：卡牌 'lost-hawk'，字段 'assist_guard'：缺少必填字段"


def test_a_deck_over_its_copy_limit(game_copy):
    folder = game_copy("duel")
    game = load_game(folder)
    cards = {c.id: c for c in read_cards(game)[0]}
    deck_path = folder / "decks" / "swords.yaml"
    deck_path.write_text(deck_path.read_text(encoding="utf-8").replace("sword-page: 3", "sword-page: 5"),
                         encoding="utf-8")
    deck = read_deck(deck_path)
    name = cards["sword-page"].name

    def problems(lang: str) -> list[str]:
        with i18n.using(lang):
            return [str(p) for p in check_deck(game, cards, deck)]

    english, chinese = problems("en"), problems("zh_CN")
    line = deck.lines["sword-page"]
    assert (f"{deck_path}, line {line}, card 'sword-page', field 'cards': 5 cards named {name!r}; "
            "at most 3 allowed for a 主战者 card") in english
    assert any(p.startswith("deck has 42 cards; 40 required") for p in (s.split(": ", 1)[1] for s in english))
    assert (f"{deck_path}，第 {line} 行：卡牌 'sword-page'，字段 'cards'：名为 {name!r} 的卡牌有 5 张；"
            "主战者卡牌每名至多 3 张") in chinese
    assert f"{deck_path}，第 1 行：卡组共 42 张；要求 40 张" in chinese


def test_a_csv_row_with_a_bad_number(game_copy):
    folder = game_copy("duel")
    game = load_game(folder)
    sheet = folder / "cards.csv"
    sheet.write_text("id,type,name,grade,rank,攻击力,guard,assist_attack,assist_guard\n"
                     "lost-hawk,fighter,迷途鹰,丙,0,两,1,1,0\n", encoding="utf-8")

    def problem(lang: str) -> str:
        _cards, problems = _in(lang, lambda: read_cards(game, [sheet]))
        assert len(problems) == 1
        with i18n.using(lang):
            return str(problems[0])

    assert problem("en") == f"{sheet}, row 2, card 'lost-hawk', field 'attack': expected a whole number, got '两'"
    assert problem("zh_CN") == f"{sheet}，第 2 行：卡牌 'lost-hawk'，字段 'attack'：应为整数，实际为 '两'"


def test_a_game_yaml_that_pydantic_refuses_reads_in_our_words(tmp_path, game_copy):
    folder = game_copy("duel")
    path = folder / "game.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("  max_copies: 3\n", "  max_copies: three\n"),
                    encoding="utf-8")
    english = _error("en", lambda: load_game(folder))
    chinese = _error("zh_CN", lambda: load_game(folder))
    assert "field 'deck.max_copies': Input should be a valid integer" in english
    assert "字段 'deck.max_copies'：应为整数" in chinese
    assert "game.yaml，第 " in chinese
