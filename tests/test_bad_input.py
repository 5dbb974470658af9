"""Every kind of bad input: a clear message naming file, line/row, card and field; exit 1; no output."""

from __future__ import annotations

import os
import re

import pytest
from typer.testing import CliRunner

from pipeline.cli.app import app
from pipeline.scaffold import scaffold

runner = CliRunner()


@pytest.fixture
def game(tmp_path):
    return scaffold(tmp_path / "g", "测试")


def _cards(game):
    return game / "cards" / "cards.yaml"


def _edit(path, old, new):
    text = path.read_text(encoding="utf-8")
    assert old in text, f"fixture text {old!r} not found"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _line_of(path, needle):
    return next(n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line)


def _fails(game, *expected):
    """check and build both exit 1 with every expected fragment in the message; build writes nothing."""
    out = game / "dist"
    result = runner.invoke(app, ["check", str(game)])
    assert result.exit_code == 1, result.output
    for fragment in expected:
        assert fragment in result.output, (fragment, result.output)
    built = runner.invoke(app, ["build", str(game), "--out", str(out)])
    assert built.exit_code == 1, built.output
    for fragment in expected:
        assert fragment in built.output, (fragment, built.output)
    assert not out.exists() or not any(out.iterdir())
    return result.output


def test_scaffold_is_valid_and_builds(game):
    assert runner.invoke(app, ["check", str(game)]).exit_code == 0
    result = runner.invoke(app, ["build", str(game), "--out", str(game / "dist")])
    assert result.exit_code == 0, result.output
    assert (game / "dist" / "cards-a4.pdf").is_file() and (game / "dist" / "cards-letter.pdf").is_file()
    # Written atomically, yet with the mode any new file gets (not the temp file's 0600).
    umask = os.umask(0)
    os.umask(umask)
    assert (game / "dist" / "cards-a4.pdf").stat().st_mode & 0o777 == 0o666 & ~umask


def test_unknown_field(game):
    _edit(_cards(game), "  attack: 1\n", "  attack: 1\n  speed: 3\n")
    line = _line_of(_cards(game), "speed")
    _fails(game, f"cards.yaml, line {line}", "card 'scout'", "field 'speed'", "unknown field")


def test_wrong_type(game):
    _edit(_cards(game), "  attack: 2\n", "  attack: strong\n")
    line = _line_of(_cards(game), "strong")
    _fails(game, f"line {line}", "card 'guardian'", "field 'attack'", "whole number")


def test_out_of_range(game):
    _edit(_cards(game), "  hp: 5\n", "  hp: 99\n")
    _fails(game, f"line {_line_of(_cards(game), 'hp: 99')}", "card 'guardian'", "field 'hp'", "above the maximum 20")


def test_missing_required_field(game):
    _edit(_cards(game), "  hp: 2\n", "")
    _fails(game, "card 'scout'", "field 'hp'", "missing required field")


def test_duplicate_id(game):
    _edit(_cards(game), "- id: guardian", "- id: scout")
    _fails(game, "card 'scout'", "field 'id'", "duplicate id")


def test_deck_names_unknown_card(game):
    deck = game / "decks" / "starter.yaml"
    _edit(deck, "  spark: 2\n", "  spark: 2\n  dragon: 1\n")
    _fails(game, f"starter.yaml, line {_line_of(deck, 'dragon')}", "card 'dragon'", "unknown card")


def test_too_many_copies(game):
    deck = game / "decks" / "starter.yaml"
    _edit(deck, "  spark: 2", "  spark: 4")
    _fails(game, f"starter.yaml, line {_line_of(deck, 'spark')}", "card 'spark'", "at most 3 allowed")


def test_missing_required_card_type(game):
    deck = game / "decks" / "starter.yaml"
    _edit(deck, "  scout: 2\n  guardian: 2\n", "")
    _fails(game, "starter.yaml", "deck has 0 单位 card(s); at least 1 required")


def test_art_named_but_missing(game):
    _edit(_cards(game), "  name: 火花\n", "  name: 火花\n  art: spark-final.png\n")
    _fails(game, f"line {_line_of(_cards(game), 'spark-final')}", "card 'spark'", "field 'art'", "art file not found")


def test_malformed_yaml(game):
    _edit(_cards(game), "  name: 灵感\n", "  name: [灵感\n")
    output = _fails(game, "cards.yaml, line", "malformed YAML")
    assert re.search(r"line \d+", output)


def test_malformed_csv(game):
    (game / "cards" / "more.csv").write_text(
        'id,type,name,cost,text\nember,spell,余烬,1,"造成1点伤害\nwisp,spell,"鬼火,2,x\n', encoding="utf-8")
    _fails(game, "more.csv", "malformed CSV")


def test_csv_row_errors_name_the_row(game):
    (game / "cards" / "more.csv").write_text(
        "id,type,name,cost,text\nember,spell,余烬,1,造成1点伤害。\nwisp,spell,鬼火,-5,抽1张牌。\n", encoding="utf-8")
    _fails(game, "more.csv, row 3", "card 'wisp'", "field 'cost'", "below the minimum 0")


def test_all_problems_reported_in_one_run(game):
    _edit(_cards(game), "  attack: 1\n", "  attack: 1\n  speed: 3\n")
    _edit(_cards(game), "  hp: 5\n", "  hp: 99\n")
    _edit(game / "decks" / "starter.yaml", "  spark: 2", "  spark: 9")
    output = _fails(game, "field 'speed'", "field 'hp'", "card 'spark'")
    assert "problem(s)" in output


def test_missing_glyph_fails_the_build_naming_card_field_and_character(game):
    _edit(_cards(game), "text: 对1个单位造成2点伤害。", "text: 对1个单位造成2点𠀀伤害。")
    checked = runner.invoke(app, ["check", str(game)])
    assert checked.exit_code == 1 and "card 'spark'" in checked.output and "U+20000" in checked.output
    out = game / "dist"
    result = runner.invoke(app, ["build", str(game), "--out", str(out)])
    assert result.exit_code == 1
    assert "card 'spark'" in result.output and "field 'text'" in result.output and "U+20000" in result.output
    assert not out.exists() or not any(out.iterdir())


def test_text_too_long_for_its_box_fails_naming_card_and_field(game):
    _edit(_cards(game), "text: 抽2张牌，然后弃置1张手牌。", "text: " + "抽2张牌，然后弃置1张手牌。" * 30)
    checked = runner.invoke(app, ["check", str(game)])
    assert checked.exit_code == 1 and "card 'insight'" in checked.output and "does not fit" in checked.output
    result = runner.invoke(app, ["build", str(game), "--out", str(game / "dist")])
    assert result.exit_code == 1
    assert "card 'insight'" in result.output and "field 'text'" in result.output and "does not fit" in result.output


def test_failed_build_keeps_the_previous_pdf(game):
    out = game / "dist"
    assert runner.invoke(app, ["build", str(game), "--out", str(out), "--paper", "a4"]).exit_code == 0
    before = (out / "cards-a4.pdf").read_bytes()
    _edit(_cards(game), "  hp: 5\n", "  hp: 99\n")
    assert runner.invoke(app, ["build", str(game), "--out", str(out), "--paper", "a4"]).exit_code == 1
    assert (out / "cards-a4.pdf").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["cards-a4.pdf", "manifest.json"]  # the first build's, untouched


def test_unknown_game():
    result = runner.invoke(app, ["check", "no-such-game"])
    assert result.exit_code == 1 and "no game 'no-such-game'" in result.output


def test_backrooms_deck_may_only_carry_its_goi_affiliation(game_copy):
    folder = game_copy("backrooms")
    deck = folder / "decks" / "meg-vanguard.yaml"
    from engine.check import check_game

    assert check_game(folder).ok
    foreign = next(c for c in check_game(folder).cards.values()
                   if c.get("affiliation") == "B.N.T.G." and c.type not in ("goi", "level"))
    _edit(deck, "cards:\n", f"cards:\n  {foreign.id}: 1\n")
    result = runner.invoke(app, ["check", str(folder)])
    assert result.exit_code == 1
    assert f"card '{foreign.id}'" in result.output and "'B.N.T.G.' is not allowed with M.E.G." in result.output
    assert f"meg-vanguard.yaml, line {_line_of(deck, foreign.id)}" in result.output


def test_a_back_that_cannot_print_is_reported_once_for_both_papers(tmp_path):
    game = scaffold(tmp_path / "g", "𠀀之游戏")  # the generic back prints the game's name
    result = runner.invoke(app, ["build", str(game), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert result.output.count("U+20000") == 1 and "back default" in result.output
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
