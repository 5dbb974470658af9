"""Spreadsheets as Chinese Excel writes and opens them (issue 12 §2): GBK/GB18030, UTF-8 with or
without BOM and UTF-16 CSV; Chinese field labels as column headers; an export Excel opens."""

from __future__ import annotations

import codecs
import csv
import io
from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from engine.cards import load_cards
from engine.data.sheets import HeaderMap
from engine.definitions import load_game
from engine.errors import DataError
from pipeline.cli.app import app
from pipeline.outputs.spreadsheet import columns, export_cards

runner = CliRunner()


def _table(game, cards, headers="labels") -> list[list[str]]:
    """The cards as rows of text, headed by labels (or ids), as a designer's sheet would hold them."""
    cols = columns(game, cards)
    names = HeaderMap(game)
    head = [names.label_for(c) if headers == "labels" else c for c in cols]
    rows = [["" if card.values.get(c) is None else str(card.values.get(c)) for c in cols] for card in cards]
    return [head, *rows]


def _csv_text(rows: list[list[str]], delimiter: str = ",") -> str:
    buffer = io.StringIO()
    csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n").writerows(rows)
    return buffer.getvalue()


def _only_sheet(folder: Path, name: str, data: bytes) -> Path:
    """Replace the game's YAML card files with one spreadsheet file."""
    for path in (folder / "cards").glob("*.yaml"):
        path.unlink()
    target = folder / "cards" / name
    target.write_bytes(data)
    return target


def _check(folder: Path):
    return runner.invoke(app, ["check", str(folder), "--no-render"])


@pytest.mark.parametrize("game_id", ["duel", "ridm"])
def test_gbk_csv_with_chinese_headers_loads_the_same_cards_as_the_yaml(game_copy, game_id):
    folder = game_copy(game_id)
    game = load_game(folder)
    original = load_cards(game)
    rows = _table(game, original)
    assert rows[0][:3] == ["编号", "类型", "名称"]
    data = _csv_text(rows).encode("gbk")  # what Chinese Excel's plain "CSV" writes
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")  # the test really feeds a non-UTF-8 file
    sheet = _only_sheet(folder, "卡牌.csv", data)
    assert load_cards(game, [sheet]) == original
    result = _check(folder)
    assert result.exit_code == 0, result.output


def test_utf8_csv_with_a_bom_and_label_headers_loads(game_copy):
    folder = game_copy("ridm")
    game = load_game(folder)
    original = load_cards(game)
    sheet = folder / "bom.csv"
    sheet.write_bytes(codecs.BOM_UTF8 + _csv_text(_table(game, original)).encode("utf-8"))
    assert load_cards(game, [sheet]) == original


@pytest.mark.parametrize("delimiter", ["\t", ","])
@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_csv_as_excel_unicode_text_loads(game_copy, delimiter, encoding):
    """Excel's "Unicode text" is UTF-16 with a BOM and tab-separated."""
    folder = game_copy("duel")
    game = load_game(folder)
    original = load_cards(game)
    text = _csv_text(_table(game, original), delimiter)
    data = text.encode("utf-16") if encoding == "utf-16" else codecs.BOM_UTF16_BE + text.encode("utf-16-be")
    sheet = folder / "unicode.csv"
    sheet.write_bytes(data)
    assert load_cards(game, [sheet]) == original


def test_a_file_in_no_known_encoding_names_its_line_and_byte(game_copy):
    folder = game_copy("duel")
    good = "id,type,name\r\n".encode("utf-8") + "甲一,fighter,甲\r\n".encode("gbk")
    sheet = _only_sheet(folder, "bad.csv", good + b"x,fighter,\xff\xfe\r\n")
    result = _check(folder)
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    offset = len(good) + len("x,fighter,") + 1
    assert f"{sheet.name}, line 3" in result.output, result.output
    assert f"byte {offset}" in result.output and "not UTF-8 or GB18030" in result.output, result.output


def test_a_file_mixing_utf8_and_gbk_lines_is_refused_not_misread(game_copy):
    folder = game_copy("duel")
    data = "id,type,name\r\nx,fighter,甲\r\n".encode("utf-8") + "y,fighter,乙\r\n".encode("gbk")
    _only_sheet(folder, "mixed.csv", data)
    result = _check(folder)
    assert result.exit_code == 1
    assert "mixed.csv, line 3" in result.output and "mixes encodings" in result.output, result.output


def test_a_utf8_bom_file_with_gbk_bytes_is_not_read_as_gbk(tmp_path, game_copy):
    folder = game_copy("duel")
    game = load_game(folder)
    sheet = folder / "bom.csv"
    sheet.write_bytes(codecs.BOM_UTF8 + "id,type,name\r\n".encode() + "y,fighter,乙\r\n".encode("gbk"))
    with pytest.raises(DataError) as err:
        load_cards(game, [sheet])
    assert "line 2" in str(err.value.problems[0]) and "UTF-8 mark" in str(err.value.problems[0])


def test_type_may_be_the_card_type_name_and_labels_head_the_columns(game_copy):
    folder = game_copy("backrooms")
    game = load_game(folder)
    original = {c.id: c for c in load_cards(game)}
    unit = next(c for c in original.values() if c.type == "entity")
    head = ["id", "类型", "名称", "number", "从属", "费用", "攻击值", "生命值", "承载值"]
    row = [unit.id, "实体", *(str(unit.values[k]) for k in ("name", "number", "affiliation", "cost", "attack", "hp",
                                                             "carry"))]
    sheet = folder / "one.csv"
    sheet.write_text(_csv_text([head, row]), encoding="utf-8")
    (card,) = load_cards(game, [sheet])
    assert card.type == "entity"
    assert {k: card.values[k] for k in ("name", "cost", "attack", "hp", "carry")} == \
        {k: unit.values[k] for k in ("name", "cost", "attack", "hp", "carry")}


def test_unknown_header_names_file_and_column_and_suggests_the_label(game_copy):
    folder = game_copy("duel")
    _only_sheet(folder, "cards.csv", "编号,类型,名字,品阶\r\nx,fighter,甲,甲\r\n".encode("utf-8"))
    result = _check(folder)
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "cards.csv, row 1" in result.output, result.output
    assert "column 3" in result.output and "'名字'" in result.output, result.output
    assert "did you mean '名称' (name)?" in result.output, result.output


def test_misspelt_id_header_suggests_the_id(game_copy):
    folder = game_copy("backrooms")
    game = load_game(folder)
    sheet = folder / "x.csv"
    sheet.write_text("id,type,name,coast\r\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_cards(game, [sheet])
    assert "did you mean 'cost'?" in str(err.value.problems[0])


def test_two_headers_for_one_field_and_a_shared_label_are_errors(game_copy):
    folder = game_copy("backrooms")
    game = load_game(folder)
    sheet = folder / "x.csv"
    # 编号 is both the built-in id and backrooms' card number: it cannot say which.
    sheet.write_text("编号,type,name,名称\r\nx,effect,甲,乙\r\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_cards(game, [sheet])
    messages = [str(p) for p in err.value.problems]
    assert any("column 1" in m and "several fields (id, number)" in m for m in messages), messages
    assert any("columns 3 ('name') and 4 ('名称') both mean field 'name'" in m for m in messages), messages


def test_xlsx_headers_are_read_the_same_way(game_copy):
    folder = game_copy("duel")
    game = load_game(folder)
    sheet = folder / "x.xlsx"
    book = openpyxl.Workbook()
    book.active.append(["编号", "类型", "名称", "名称"])
    book.save(sheet)
    with pytest.raises(DataError) as err:
        load_cards(game, [sheet])
    assert "both mean field 'name'" in str(err.value.problems[0])


@pytest.mark.parametrize("headers", ["ids", "labels"])
@pytest.mark.parametrize("game_id", ["backrooms", "duel", "ridm"])
def test_exported_csv_starts_with_a_bom_and_loads_back_identically(game_copy, tmp_path, game_id, headers):
    folder = game_copy(game_id)
    game = load_game(folder)
    original = load_cards(game)
    sheet = export_cards(game, original, tmp_path / "out.csv", headers=headers)
    data = sheet.read_bytes()
    assert data.startswith(codecs.BOM_UTF8)
    first = data[len(codecs.BOM_UTF8):].decode("utf-8").split("\r\n", 1)[0].split(",")
    if headers == "labels":
        assert "名称" in first and "name" not in first
    else:
        assert first[:3] == ["id", "type", "name"]
    assert load_cards(game, [sheet]) == original


@pytest.mark.parametrize("game_id", ["backrooms", "duel", "ridm"])
def test_xlsx_with_label_headers_loads_back_identically(game_copy, tmp_path, game_id):
    folder = game_copy(game_id)
    game = load_game(folder)
    original = load_cards(game)
    sheet = export_cards(game, original, tmp_path / "out.xlsx", headers="labels")
    head = [cell.value for cell in openpyxl.load_workbook(sheet).active[1]]
    assert "名称" in head and "类型" in head
    if game_id == "backrooms":  # the shared label is not used: the column keeps its id
        assert "id" in head and "number" in head and "编号" not in head
    else:
        assert head[0] == "编号"
    assert load_cards(game, [sheet]) == original


def test_xlsx_export_content_is_unchanged_by_default(game_copy, tmp_path):
    folder = game_copy("ridm")
    game = load_game(folder)
    sheet = export_cards(game, load_cards(game), tmp_path / "out.xlsx")
    assert [cell.value for cell in openpyxl.load_workbook(sheet).active[1]][:3] == ["id", "type", "name"]


def test_cards_command_csv_opens_in_excel(game_copy, tmp_path):
    folder = game_copy("duel")
    out = tmp_path / "sheet.csv"
    result = runner.invoke(app, ["cards", str(folder), str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_bytes().startswith(codecs.BOM_UTF8)


def test_cards_command_with_labels_writes_chinese_headers_that_load_back(game_copy, tmp_path):
    folder = game_copy("duel")
    out = tmp_path / "all.csv"
    result = runner.invoke(app, ["cards", str(folder), str(out), "--labels"])
    assert result.exit_code == 0, result.output
    header = out.read_text(encoding="utf-8-sig").splitlines()[0].split(",")
    assert "名称" in header and "name" not in header
    before = {card.id: card.values for card in load_cards(load_game(folder))}
    for path in (folder / "cards").glob("*.yaml"):
        path.unlink()
    out.rename(folder / "cards" / "all.csv")
    after = {card.id: card.values for card in load_cards(load_game(folder))}
    assert after == before


def test_a_type_name_two_types_share_is_not_guessed(game_copy):
    folder = game_copy("ridm")
    path = folder / "game.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count("    name: 行动\n") == 1
    path.write_text(text.replace("    name: 行动\n", "    name: 技能\n"), encoding="utf-8")
    game = load_game(folder)
    sheet = folder / "x.csv"
    sheet.write_text("id,类型,名称\r\nx,技能,甲\r\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_cards(game, [sheet])
    message = str(err.value.problems[0])
    assert "unknown card type '技能'" in message and "skill (技能)" in message and "action (技能)" in message, message


def test_unknown_type_lists_the_types_with_their_names(game_copy):
    folder = game_copy("duel")
    _only_sheet(folder, "cards.csv", "编号,类型,名称\r\nx,单位,甲\r\n".encode("gbk"))
    result = _check(folder)
    assert result.exit_code == 1 and "cards.csv, row 2" in result.output, result.output
    assert "unknown card type '单位'; this game has: fighter (主战者)" in result.output, result.output
