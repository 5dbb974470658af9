"""Game definitions carry every rule number, and a broken definition says where it is broken."""

from __future__ import annotations

import pytest

from engine.definitions import load_game
from engine.games.backrooms.numbers import BackroomsRules
from engine.games.duel.numbers import DuelRules
from engine.games.ridm.numbers import RidmRules
from engine.errors import DataError, GameNotFound


def test_shipped_games_load_with_their_rule_numbers():
    backrooms, duel, ridm = (load_game(g) for g in ("backrooms", "duel", "ridm"))
    assert isinstance(backrooms.rules, BackroomsRules)
    assert (backrooms.rules.starting_cost, backrooms.rules.outpost_hp, backrooms.rules.level_cycle_rounds) == (5, 20, 5)
    assert (backrooms.deck.min_size, backrooms.deck.max_size, backrooms.deck.max_copies) == (40, 60, 3)
    assert [p.id for p in backrooms.phases] == ["draw", "prepare", "main", "battle", "end"]
    assert isinstance(duel.rules, DuelRules) and duel.rules.starting_life == 20 and duel.rules.hand_limit == 6
    assert duel.card_types["fighter"].fields["grade"].values == ("天尊甲", "甲", "乙", "丙", "丁")
    assert (duel.deck.min_size, duel.deck.max_size) == (40, 40)
    assert isinstance(ridm.rules, RidmRules) and ridm.rules.starting_sanity == 3
    assert set(ridm.card_types) == {"operator", "skill", "action"}


def test_definition_is_frozen():
    game = load_game("duel")
    with pytest.raises(Exception):
        game.rules.starting_life = 30


def test_unknown_game_names_the_choices():
    with pytest.raises(GameNotFound, match="backrooms, duel, ridm"):
        load_game("poker")


def test_game_folder_path_works_like_an_id(game_copy):
    folder = game_copy("ridm")
    assert load_game(str(folder)).id == "ridm"


def test_bad_definition_names_file_line_and_key(game_copy):
    folder = game_copy("duel")
    path = folder / "game.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("  starting_life: 20", "  starting_life: twenty\n  surprise: 1")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_game(folder)
    message = str(err.value)
    lines = text.splitlines()
    life_line = next(i for i, l in enumerate(lines, 1) if "starting_life" in l)
    assert f"game.yaml, line {life_line}, field 'rules.starting_life'" in message
    assert f"line {life_line + 1}, field 'rules.surprise'" in message
