"""The XLSX export is a working form (issue 12 §2): drop-downs for ``type`` and enum fields,
number ranges with Chinese error messages, fitted widths, a frozen bold header, an explanation
sheet; the cards' sheet holds the same values as before and loads back as the same cards."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from typer.testing import CliRunner

from engine.cards import load_cards
from engine.definitions import load_game
from pipeline.cli.app import app
from pipeline.outputs.spreadsheet import FORM_ROWS, INFO_SHEET, LIST_SHEET, columns, display_width, export_cards, header_row

GAMES = ("backrooms", "duel", "ridm")
runner = CliRunner()


def _export(tmp_path: Path, game_id: str, headers: str = "ids"):
    game = load_game(game_id)
    cards = load_cards(game)
    book = openpyxl.load_workbook(export_cards(game, cards, tmp_path / "form.xlsx", headers=headers))
    return game, cards, book


def _validation(sheet, field_id: str, cols: list[str]):
    """The one validation whose range is the column of ``field_id``."""
    letter = openpyxl.utils.get_column_letter(cols.index(field_id) + 1)
    found = [dv for dv in sheet.data_validations.dataValidation
             if any(r.min_col == r.max_col == cols.index(field_id) + 1 for r in dv.sqref.ranges)]
    assert len(found) == 1, f"column {letter} ({field_id}) has {len(found)} validations"
    return found[0]


def _list_items(book, dv) -> list[str]:
    """The items of a list validation, inline or from the hidden list sheet."""
    formula = dv.formula1
    if formula.startswith('"'):
        return formula.strip('"').split(",")
    sheet_name, cells = formula.split("!")
    assert sheet_name.strip("'") == LIST_SHEET
    return [c.value for row in book[LIST_SHEET][cells.replace("$", "")] for c in row]


@pytest.mark.parametrize("game_id", GAMES)
def test_type_is_a_drop_down_of_the_games_card_types_over_the_data_and_a_thousand_rows(tmp_path, game_id):
    game, cards, book = _export(tmp_path, game_id)
    sheet = book.worksheets[0]
    dv = _validation(sheet, "type", columns(game, cards))
    assert dv.type == "list"
    assert _list_items(book, dv) == list(game.card_types)
    assert str(dv.sqref) == f"B2:B{len(cards) + 1 + FORM_ROWS}"
    assert dv.showErrorMessage and dv.showInputMessage and dv.allow_blank  # blank = not given
    for type_id, ctype in game.card_types.items():
        assert f"{type_id} = {ctype.name}" in dv.prompt  # the input message names each type


@pytest.mark.parametrize(("game_id", "field_id", "values"), [
    ("backrooms", "scope", ["public", "independent"]),
    ("duel", "grade", ["天尊甲", "甲", "乙", "丙", "丁"]),
    ("ridm", "class", ["先锋", "近卫", "重装", "狙击", "术师", "医疗", "辅助", "特种"]),
])
def test_every_enum_field_is_a_drop_down_of_its_values(tmp_path, game_id, field_id, values):
    game, cards, book = _export(tmp_path, game_id)
    dv = _validation(book.worksheets[0], field_id, columns(game, cards))
    assert dv.type == "list"
    assert _list_items(book, dv) == values


def test_backrooms_enum_labels_are_shown_in_the_input_message(tmp_path):
    game, cards, book = _export(tmp_path, "backrooms")
    dv = _validation(book.worksheets[0], "scope", columns(game, cards))
    assert "public = 公共层级" in dv.prompt and "independent = 独立层级" in dv.prompt


@pytest.mark.parametrize(("game_id", "field_id", "label", "low", "high"), [
    ("backrooms", "cost", "费用", 0, 99),
    ("backrooms", "hp", "生命值", 1, 99),
    ("backrooms", "danger", "生存等级", 0, 5),
    ("duel", "assist_attack", "协助攻击加成", -99, 99),
    ("ridm", "sanity", "理智要求", 0, 3),
])
def test_int_fields_are_whole_numbers_in_their_range_with_a_chinese_error(tmp_path, game_id, field_id, label, low, high):
    game, cards, book = _export(tmp_path, game_id)
    dv = _validation(book.worksheets[0], field_id, columns(game, cards))
    assert (dv.type, dv.operator, dv.formula1, dv.formula2) == ("whole", "between", str(low), str(high))
    assert dv.errorStyle == "stop"
    assert dv.error == f"{label}（{field_id}）须为 {low} 到 {high} 之间的整数"
    assert len(dv.error) <= 255 and len(dv.errorTitle) <= 32 and len(dv.prompt) <= 255


def test_short_text_fields_are_limited_to_their_length(tmp_path):
    game, cards, book = _export(tmp_path, "ridm")
    dv = _validation(book.worksheets[0], "origin", columns(game, cards))
    assert (dv.type, dv.operator, dv.formula1) == ("textLength", "lessThanOrEqual", "12")
    assert "出身" in dv.error and "12" in dv.error


@pytest.mark.parametrize("game_id", GAMES)
def test_header_is_bold_and_frozen_and_widths_fit_the_content(tmp_path, game_id):
    game, cards, book = _export(tmp_path, game_id, "labels")
    sheet = book.worksheets[0]
    cols = columns(game, cards)
    assert sheet.freeze_panes == "D2"  # the header row, and id/type/name stay in view
    assert all(cell.font.bold for cell in sheet[1])
    text = openpyxl.utils.get_column_letter(cols.index("text") + 1)
    assert sheet.column_dimensions[text].width > 30  # long rules text: far wider than Excel's 8.43
    assert sheet.column_dimensions[text].alignment.wrap_text  # the rows still to fill wrap too
    assert all(sheet.cell(row=r, column=cols.index("text") + 1).alignment.wrap_text for r in range(2, len(cards) + 2))
    for index, field_id in enumerate(cols, 1):
        letter = openpyxl.utils.get_column_letter(index)
        widest = max(display_width(c.value) for c in sheet[letter])
        assert sheet.column_dimensions[letter].width >= min(widest, 50), field_id


def test_a_cjk_character_counts_as_two_columns():
    assert display_width("名称") == 4
    assert display_width("ab") == 2
    assert display_width("短\nlonger") == 6  # the longest line
    assert display_width(None) == 0


@pytest.mark.parametrize("game_id", GAMES)
def test_the_explanation_sheet_explains_every_field(tmp_path, game_id):
    game, cards, book = _export(tmp_path, game_id, "labels")
    assert book.sheetnames[:2] == [game.id, INFO_SHEET]
    assert book.active.title == game.id  # the sheet opens on the cards
    info = list(book[INFO_SHEET].iter_rows(values_only=True))
    head, rows = info[0], info[1:]
    assert head == ("列", "表头", "字段", "名称", "类型", "必填", "范围 / 选项", "使用的卡牌类型", "说明")
    by_id = {row[2]: dict(zip(head, row)) for row in rows}
    every_field = {f for t in game.card_types for f in game.fields_of(t)}
    assert set(by_id) == every_field
    cols = columns(game, cards)
    heads = header_row(game, cols, "labels")
    for index, field_id in enumerate(cols):
        assert by_id[field_id]["列"] == openpyxl.utils.get_column_letter(index + 1)
        assert by_id[field_id]["表头"] == heads[index]
    for type_id, ctype in game.card_types.items():
        assert f"{type_id}（{ctype.name}）" in by_id["type"]["范围 / 选项"]
    assert by_id["id"]["必填"] == "是" and by_id["id"]["使用的卡牌类型"] == "全部"


def test_the_explanation_sheet_gives_range_values_and_users_of_a_field(tmp_path):
    _, _, book = _export(tmp_path, "backrooms")
    info = list(book[INFO_SHEET].iter_rows(values_only=True))
    by_id = {row[2]: dict(zip(info[0], row)) for row in info[1:]}
    cost = by_id["cost"]
    assert (cost["名称"], cost["类型"], cost["必填"], cost["范围 / 选项"]) == ("费用", "整数", "是", "0–99")
    assert cost["使用的卡牌类型"] == "实体（entity）、人物（character）、道具（item）、效果（effect）、装备（equipment）"
    assert by_id["scope"]["范围 / 选项"] == "public（公共层级）、independent（独立层级）"
    assert by_id["danger"]["必填"] == "否"
    assert by_id["art"]["列"].startswith("（未列出")  # no shipped card names its art: not a column


@pytest.mark.parametrize("headers", ["ids", "labels"])
@pytest.mark.parametrize("game_id", GAMES)
def test_the_form_loads_back_as_the_same_cards(tmp_path, game_id, headers):
    game = load_game(game_id)
    original = load_cards(game)
    sheet = export_cards(game, original, tmp_path / "cards.xlsx", headers=headers)
    assert load_cards(game, [sheet]) == original


@pytest.mark.parametrize("headers", ["ids", "labels"])
@pytest.mark.parametrize("game_id", GAMES)
def test_the_cards_sheet_holds_exactly_the_plain_exports_values(tmp_path, game_id, headers):
    """The form adds validation and styles, not cells: the first sheet is the header and one row
    per card, the values the plain export wrote (``columns`` × the cards' values)."""
    game, cards, book = _export(tmp_path, game_id, headers)
    cols = columns(game, cards)
    plain = [tuple(header_row(game, cols, headers))] + [tuple(card.values.get(c) for c in cols) for card in cards]
    sheet = book.worksheets[0]
    assert list(sheet.iter_rows(values_only=True)) == plain
    assert (sheet.max_row, sheet.max_column) == (len(cards) + 1, len(cols))


def _add_token_type(folder: Path) -> None:
    """A new card type in game.yaml with a bool field and an enum whose values need the list sheet,
    and one card of it."""
    game_yaml = folder / "game.yaml"
    text = game_yaml.read_text(encoding="utf-8")
    text = text.replace("card_types:\n", "card_types:\n"
                        "  token:\n"
                        "    name: 召唤物\n"
                        "    fields:\n"
                        "      flying: {label: 飞行, type: bool}\n"
                        "      size: {label: 体型, type: enum, values: ['小,中', 大]}\n", 1)
    game_yaml.write_text(text, encoding="utf-8")
    (folder / "cards" / "tokens.yaml").write_text(
        "- {id: drone, type: token, name: 无人机, flying: true, size: '小,中'}\n", encoding="utf-8")


def test_a_card_type_added_to_game_yaml_appears_in_the_drop_down(tmp_path, game_copy):
    folder = game_copy("ridm")
    _add_token_type(folder)
    game = load_game(folder)
    cards = load_cards(game)
    path = export_cards(game, cards, tmp_path / "ridm.xlsx")
    book = openpyxl.load_workbook(path)
    sheet = book.worksheets[0]
    cols = columns(game, cards)
    assert _list_items(book, _validation(sheet, "type", cols)) == ["token", "operator", "skill", "action"]
    assert _list_items(book, _validation(sheet, "flying", cols)) == ["TRUE", "FALSE"]
    size = _validation(sheet, "size", cols)
    assert size.formula1.startswith(f"'{LIST_SHEET}'!")  # a comma cannot sit in an inline list
    assert _list_items(book, size) == ["小,中", "大"]
    assert book[LIST_SHEET].sheet_state == "hidden"
    assert load_cards(game, [path]) == cards


def test_text_from_game_yaml_never_becomes_a_formula(tmp_path, game_copy):
    folder = game_copy("duel")
    game_yaml = folder / "game.yaml"
    game_yaml.write_text(game_yaml.read_text(encoding="utf-8").replace(
        "grade: {label: 品阶, type: enum, values: [天尊甲, 甲, 乙, 丙, 丁]",
        "grade: {label: '=1+1', type: enum, values: [天尊甲, 甲, 乙, 丙, 丁, '=cmd|calc']"), encoding="utf-8")
    game = load_game(folder)
    cards = load_cards(game)
    book = openpyxl.load_workbook(export_cards(game, cards, tmp_path / "duel.xlsx"))
    info = [row for row in book[INFO_SHEET].iter_rows(values_only=True) if row[2] == "grade"]
    assert info[0][3] == "=1+1"  # the label is there, as text
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            assert all(cell.data_type != "f" for cell in row)


def test_cardpress_cards_writes_the_form(tmp_path):
    out = tmp_path / "duel.xlsx"
    result = runner.invoke(app, ["cards", "duel", str(out), "--labels"])
    assert result.exit_code == 0, result.output
    book = openpyxl.load_workbook(out)
    assert book.sheetnames == ["duel", INFO_SHEET]
    assert book.worksheets[0].data_validations.dataValidation
