"""A shipped deck is named by its file name (``--deck artillery``), after any install."""

from __future__ import annotations

from typer.testing import CliRunner

from engine.decks import find_deck
from engine.definitions import load_game
from pipeline.outputs.sheets import build_sheets
from pipeline.plan import BuildOptions
from pipeline.cli.app import app

runner = CliRunner()


def test_a_deck_name_is_the_games_own_deck_file():
    duel = load_game("duel")
    assert find_deck(duel, "artillery") == duel.card_data_dir / "decks" / "artillery.yaml"


def test_a_build_by_deck_name_prints_that_deck(tmp_path):
    duel = load_game("duel")
    by_name = build_sheets("duel", BuildOptions(papers=("a4",), deck="artillery", out_dir=tmp_path / "a"))
    by_path = build_sheets("duel", BuildOptions(papers=("a4",), deck=duel.card_data_dir / "decks" / "artillery.yaml",
                                                out_dir=tmp_path / "b"))
    assert by_name.cards == by_path.cards == 40 and by_name.files[0].pages == by_path.files[0].pages


def test_a_file_in_the_working_folder_wins_over_a_deck_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "artillery").write_text("name: 我的\ncards: {}\n", encoding="utf-8")
    assert find_deck(load_game("duel"), "artillery").resolve() == (tmp_path / "artillery").resolve()


def test_an_unknown_deck_name_lists_the_games_decks(tmp_path):
    result = runner.invoke(app, ["build", "duel", "--deck", "nope", "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "nope: deck file not found" in result.output and "artillery, fortress" in result.output
    assert not (tmp_path / "out").exists()


def test_a_tracked_game_takes_a_deck_by_name(tmp_path, monkeypatch):
    monkeypatch.setenv("CARDPRESS_DATA", str(tmp_path / "data"))
    result = runner.invoke(app, ["track", "new", "duel", "--players", "甲", "乙", "--deck", "甲=artillery",
                                 "--deck", "乙=swords"])
    assert result.exit_code == 0, result.output
    wrong = runner.invoke(app, ["track", "new", "duel", "--players", "丙", "丁", "--deck", "丙=nope"])
    assert wrong.exit_code != 0 and "nope" in wrong.output
