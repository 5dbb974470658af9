"""The same cards load identically from YAML, CSV and XLSX."""

from __future__ import annotations

import csv

import openpyxl
import pytest

from engine.cards import load_cards
from engine.definitions import load_game


def _columns(cards):
    cols = ["id", "type", "name"]
    for card in cards:
        for key in card.values:
            if key not in cols:
                cols.append(key)
    return cols


def test_yaml_csv_xlsx_give_equal_cards(game_copy):
    folder = game_copy("ridm")
    game = load_game(folder)
    from_yaml = load_cards(game)
    cols = _columns(from_yaml)
    rows = [[card.values.get(c, "") for c in cols] for card in from_yaml]

    csv_path = folder / "all.csv"
    with csv_path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(cols)
        writer.writerows(rows)
    xlsx_path = folder / "all.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.append(cols)
    for row in rows:
        sheet.append([None if v == "" else v for v in row])
    book.save(xlsx_path)

    from_csv = load_cards(game, [csv_path])
    from_xlsx = load_cards(game, [xlsx_path])
    assert len(from_yaml) >= 40
    assert from_csv == from_yaml
    assert from_xlsx == from_yaml
    # Multi-line rules text survives a spreadsheet round trip.
    assert any("\n" in (c.get("text") or "") for c in from_csv) == any("\n" in (c.get("text") or "") for c in from_yaml)


@pytest.mark.parametrize("game_id", ["backrooms", "duel", "ridm"])
@pytest.mark.parametrize("suffix", [".xlsx", ".csv"])
def test_cards_command_writes_a_sheet_that_loads_back_identically(game_copy, game_id, suffix):
    from typer.testing import CliRunner

    from pipeline.cli.app import app

    folder = game_copy(game_id)
    game = load_game(folder)
    original = load_cards(game)
    sheet = folder / f"sheet{suffix}"
    result = CliRunner().invoke(app, ["cards", str(folder), str(sheet)])
    assert result.exit_code == 0, result.output
    assert load_cards(game, [sheet]) == original
    # Swap the YAML for the sheet: the game still checks clean.
    for path in (folder / "cards").glob("*.yaml"):
        path.unlink()
    sheet.rename(folder / "cards" / sheet.name)
    from engine.check import check_game

    assert check_game(folder).ok


def test_shipped_games_meet_the_content_minimums():
    from engine.check import check_game

    for game_id, minimum in (("backrooms", 45), ("duel", 40), ("ridm", 40)):
        report = check_game(game_id)
        assert report.ok, report.problems
        assert len(report.cards) >= minimum
        assert len(report.decks) >= 2
        types = {c.type for c in report.cards.values()}
        assert types == set(report.game.card_types), game_id
    duel = check_game("duel")
    grades = {c["grade"] for c in duel.cards.values()}
    ranks = {c["rank"] for c in duel.cards.values()}
    assert grades == {"天尊甲", "甲", "乙", "丙", "丁"} and {0, 1, 2, 3} <= ranks
    mortar = next(c for c in duel.cards.values() if c.name == "迫击炮！！！")
    assert (mortar["grade"], mortar["rank"], mortar["attack"], mortar["guard"]) == ("丁", 1, 5, 1)
    assert (mortar["assist_attack"], mortar["assist_guard"]) == (3, 1)
    backrooms = check_game("backrooms").cards.values()
    levels = [c for c in backrooms if c.type == "level"]
    assert sum(c["scope"] == "public" for c in levels) >= 5 and sum(c["scope"] == "independent" for c in levels) >= 2
    assert sum(c.type == "outpost" for c in backrooms) >= 10 and sum(c.type == "goi" for c in backrooms) >= 2
