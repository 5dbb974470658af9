"""Write a game's cards to one spreadsheet (XLSX or CSV) that loads back as the same cards.

For designers who would rather edit in a spreadsheet: export once, delete the YAML files, keep
the sheet in ``cards/``. Columns are every field of the game in definition order; a field a
card's type does not have is left blank; multi-line rules text stays in one cell.

Card text from a stranger's folder must not become a formula when the sheet is opened
(``=HYPERLINK(…)`` leaks data, ``=cmd|…`` runs programs in old Excel): XLSX text cells are
typed as strings, and CSV text that starts like a formula is prefixed with ``'`` (the OWASP
escape), which the CSV reader removes again.

CSV is written as UTF-8 with a BOM (``utf-8-sig``): without it Chinese Excel reads the file as
GBK and shows mojibake. ``headers="labels"`` writes each column's Chinese label from
``game.yaml`` (名称, 费用…) instead of its id, where the label reads back as that field alone
(``engine.data.sheets.HeaderMap``); either way the sheet loads back as the same cards.

**The XLSX export is a form** a designer fills in Excel, WPS or LibreOffice (issue 12 §2). The
first sheet holds the cards and nothing else (the loader reads only the first sheet; the form
adds no cell to it); on top of the values it carries:

- drop-downs: the game's card type ids in ``type`` (the input message names each type), the
  values of every ``enum`` field (the message shows their labels), TRUE/FALSE for ``bool``;
  whole-number validation with the field's min/max for ``int`` fields and a length limit for
  fields with ``max_len``, each with a Chinese error naming the field and its range. They cover
  the data and ``FORM_ROWS`` empty rows below it, so new cards are checked too. A column whose
  card types give it different kinds gets no validation (the loader checks each card anyway);
- a bold, frozen header (the id/type/name columns frozen too), column widths fitted to the
  content (a CJK character counts as two), rules-text columns wrapped;
- a second sheet, 字段说明, with one row per field of the game (the sheet's columns first): its
  column, header, id, label, kind, whether it is required, its range or values, the card types
  that use it and its help.

A drop-down whose items do not fit Excel's 255-character inline list (or hold a comma or a
quote) reads them from a hidden third sheet, 选项.
"""

from __future__ import annotations

import csv
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from engine.cards import CSV_ESCAPE, FORMULA_STARTS, Card
from engine.data.sheets import HeaderMap
from engine.definitions import COMMON_FIELDS, FieldSpec, GameDefinition
from engine.errors import CardpressError
from engine.i18n import _

from ..atomic import atomic_write


class ExportError(CardpressError):
    """The export target is not a .xlsx or .csv file."""


def columns(game: GameDefinition, cards: list[Card]) -> list[str]:
    cols = list(COMMON_FIELDS)
    for ctype in game.card_types.values():
        cols += [f for f in ctype.fields if f not in cols]
    used = {k for card in cards for k in card.values}
    return [c for c in cols if c in used or c in ("id", "type", "name")]


def csv_escape(value: object) -> object:
    """A CSV cell that no spreadsheet runs as a formula and that ``engine.cards`` reads back as
    ``value``; a leading ``'`` is escaped too, so data that starts with one survives."""
    if isinstance(value, str) and value.startswith((*FORMULA_STARTS, CSV_ESCAPE)):
        return CSV_ESCAPE + value
    return value


Headers = Literal["ids", "labels"]


def header_row(game: GameDefinition, cols: list[str], headers: Headers = "ids") -> list[str]:
    """The header cells for ``cols``: the field ids, or their labels where a label is unambiguous."""
    if headers == "ids":
        return list(cols)
    if headers != "labels":
        raise ExportError(_("headers must be 'ids' or 'labels', not {headers!r}").format(headers=headers))
    names = HeaderMap(game)
    return [names.label_for(c) for c in cols]


def export_cards(game: GameDefinition, cards: list[Card], path: Path, headers: Headers = "ids") -> Path:
    """Write ``cards`` to ``path`` (.xlsx or .csv), atomically; return the path.

    ``headers="labels"`` heads the columns with the fields' Chinese labels (see the module doc).
    Example: ``export_cards(game, load_cards(game), Path("cards.csv"), headers="labels")``.
    """
    suffix = path.suffix.lower()
    if suffix not in (".xlsx", ".csv"):
        raise ExportError(_("{path}: export to a .xlsx or .csv file").format(path=path))
    cols = columns(game, cards)
    head = header_row(game, cols, headers)
    rows = [[card.values.get(c) for c in cols] for card in cards]
    with atomic_write(path) as tmp:
        if suffix == ".csv":
            with tmp.open("w", encoding="utf-8-sig", newline="") as fh:
                writer = csv.writer(fh)
                writer.writerow([csv_escape(h) for h in head])
                writer.writerows([["" if v is None else csv_escape(v) for v in row] for row in rows])
        else:
            _write_form(game, head, cols, rows, tmp, headers)
    return path


# ---------------------------------------------------------------------------- the XLSX form

#: Empty rows below the data that the form's validations cover, so new cards are checked too.
FORM_ROWS = 1000
INFO_SHEET = "字段说明"
LIST_SHEET = "选项"
KIND_NAMES = {"int": "整数", "str": "短文本", "text": "规则文本（可换行）", "enum": "选项", "bool": "是/否"}
#: Excel refuses (or "repairs" away) a validation whose title or message is longer than this.
_TITLE_MAX, _MESSAGE_MAX, _INLINE_LIST_MAX = 32, 255, 255
_MIN_WIDTH, _MAX_WIDTH, _TEXT_WIDTH = 6, 60, 50
#: Excel's whole numbers are exact to 15 digits: the bounds of an int field with no min/max.
_EXCEL_INT = 10**15 - 1
_BUILT_IN_HELP = {
    "id": "每张卡唯一；小写字母、数字、- 或 _（如 level-0）",
    "type": "从下拉列表选择卡牌类型编号",
    "art": "art/ 中的卡图文件名；不填则用 art/<编号>.png 等",
}


def display_width(value: object) -> int:
    """Columns ``value`` takes in a spreadsheet: its longest line, a CJK (wide) character as two.

    >>> display_width("费用 12")
    7
    """
    text = "" if value is None else str(value)
    return max((sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in line)
                for line in text.split("\n")), default=0)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _owners(game: GameDefinition, field_id: str) -> list[tuple[str | None, FieldSpec]]:
    """(card type id, spec) for every card type that has ``field_id``; ``None`` for a common field."""
    if field_id in COMMON_FIELDS:
        return [(None, COMMON_FIELDS[field_id])]
    return [(t, ct.fields[field_id]) for t, ct in game.card_types.items() if field_id in ct.fields]


def _all_fields(game: GameDefinition) -> list[str]:
    fields = list(COMMON_FIELDS)
    for ctype in game.card_types.values():
        fields += [f for f in ctype.fields if f not in fields]
    return fields


def _range_text(spec: FieldSpec) -> str:
    """A field's range or values as the explanation sheet states it."""
    if spec.kind == "int":
        if spec.min is not None and spec.max is not None:
            return f"{spec.min}–{spec.max}"
        if spec.min is not None:
            return f"≥ {spec.min}"
        if spec.max is not None:
            return f"≤ {spec.max}"
        return "任意整数"
    if spec.kind == "enum":
        return "、".join(f"{v}（{spec.labels[v]}）" if v in spec.labels else v for v in spec.values)
    if spec.kind == "bool":
        return "TRUE / FALSE"
    return f"最多 {spec.max_len} 字" if spec.max_len is not None else ""


@dataclass(frozen=True)
class _Rule:
    """One column's validation: ``list`` of ``items``, ``whole`` numbers from ``low`` to ``high``,
    or a ``textLength`` of at most ``high``; ``prompt`` and ``error`` are what the designer reads."""

    kind: Literal["list", "whole", "textLength"]
    prompt: str
    error: str
    items: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None


def _rule(game: GameDefinition, field_id: str) -> _Rule | None:
    """The validation of ``field_id``'s column, or None when its card types disagree on its kind
    (the loader checks each card against its own type anyway)."""
    owners = _owners(game, field_id)
    specs = [spec for _type, spec in owners]
    label = specs[0].label
    name = f"{label}（{field_id}）"
    if field_id == "type":
        ids = tuple(game.card_types)
        prompt = "填写卡牌类型编号：" + "；".join(f"{t} = {ct.name}" for t, ct in game.card_types.items())
        return _Rule("list", prompt, f"{name}须为本游戏的卡牌类型编号之一：{'、'.join(ids)}", ids)
    kinds = {spec.kind for spec in specs}
    if len(kinds) != 1:
        return None
    kind = kinds.pop()
    if kind == "enum":
        items: list[str] = []
        labels: dict[str, str] = {}
        for spec in specs:
            items += [v for v in spec.values if v not in items]
            labels.update(spec.labels)
        prompt = "；".join(f"{v} = {labels[v]}" for v in items if v in labels) or f"从下拉列表选择{label}"
        return _Rule("list", prompt, f"{name}须从下拉列表中选择：{'、'.join(items)}", tuple(items))
    if kind == "bool":
        return _Rule("list", f"{label}：TRUE 或 FALSE", f"{name}须为 TRUE 或 FALSE", ("TRUE", "FALSE"))
    if kind == "int":
        lows = [spec.min for spec in specs]
        highs = [spec.max for spec in specs]
        low = None if None in lows else min(lows)  # type: ignore[type-var]
        high = None if None in highs else max(highs)  # type: ignore[type-var]
        if low is not None and high is not None:
            what = f" {low} 到 {high} 之间的整数"
        elif low is not None:
            what = f"不小于 {low} 的整数"
        elif high is not None:
            what = f"不大于 {high} 的整数"
        else:
            what = "整数"
        return _Rule("whole", f"{label}：{what.strip()}", f"{name}须为{what}", low=low, high=high)
    lengths = [spec.max_len for spec in specs]
    if None in lengths:
        return None
    longest = max(lengths)  # type: ignore[type-var]
    return _Rule("textLength", f"{label}：最多 {longest} 字", f"{name}最多 {longest} 个字符", high=longest)


def _strings(sheet) -> None:
    """Type every text cell as a string: openpyxl makes any ``=…`` text a formula otherwise."""
    for line in sheet.iter_rows():
        for cell in line:
            if isinstance(cell.value, str):
                cell.data_type = "s"


def _fit_widths(sheet, wrapped: Collection[int] = ()) -> None:
    from openpyxl.utils import get_column_letter

    for index, cells in enumerate(sheet.iter_cols(), 1):
        widest = max((display_width(cell.value) for cell in cells), default=0)
        cap = _TEXT_WIDTH if index in wrapped else _MAX_WIDTH
        sheet.column_dimensions[get_column_letter(index)].width = max(_MIN_WIDTH, min(cap, widest + 2))


def _list_formula(book, rule: _Rule, lists: list[tuple[str, ...]]) -> str:
    """An inline ``"a,b"`` list when Excel takes it, else a range of the hidden list sheet."""
    inline = ",".join(rule.items)
    if len(inline) + 2 <= _INLINE_LIST_MAX and not any("," in i or '"' in i for i in rule.items):
        return f'"{inline}"'
    from openpyxl.utils import get_column_letter

    if LIST_SHEET not in book.sheetnames:
        book.create_sheet(LIST_SHEET).sheet_state = "hidden"
    store = book[LIST_SHEET]
    lists.append(rule.items)
    column = len(lists)
    for row, item in enumerate(rule.items, 1):
        store.cell(row=row, column=column, value=item).data_type = "s"
    letter = get_column_letter(column)
    return f"'{LIST_SHEET}'!${letter}$1:${letter}${len(rule.items)}"


def _validate(book, sheet, cols: list[str], game: GameDefinition, last_row: int) -> None:
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.datavalidation import DataValidation

    lists: list[tuple[str, ...]] = []
    for index, field_id in enumerate(cols, 1):
        rule = _rule(game, field_id)
        if rule is None:
            continue
        label = _owners(game, field_id)[0][1].label
        options: dict = {}
        if rule.kind == "list":
            options = {"type": "list", "formula1": _list_formula(book, rule, lists)}
        elif rule.kind == "whole":
            low = -_EXCEL_INT if rule.low is None else rule.low
            high = _EXCEL_INT if rule.high is None else rule.high
            options = {"type": "whole", "operator": "between", "formula1": str(low), "formula2": str(high)}
        else:
            options = {"type": "textLength", "operator": "lessThanOrEqual", "formula1": str(rule.high)}
        check = DataValidation(
            **options, allow_blank=True, showErrorMessage=True, showInputMessage=True, errorStyle="stop",
            errorTitle=_cut(f"{label}填写有误", _TITLE_MAX), error=_cut(rule.error, _MESSAGE_MAX),
            promptTitle=_cut(label, _TITLE_MAX), prompt=_cut(rule.prompt, _MESSAGE_MAX),
        )
        letter = get_column_letter(index)
        check.add(f"{letter}2:{letter}{last_row}")
        sheet.add_data_validation(check)


def _info_rows(game: GameDefinition, cols: list[str], headers: Headers) -> list[list[str]]:
    """The explanation sheet: one row per field of the game, the sheet's columns first."""
    from openpyxl.utils import get_column_letter

    names = HeaderMap(game)
    fields = list(cols) + [f for f in _all_fields(game) if f not in cols]
    rows = [["列", "表头", "字段", "名称", "类型", "必填", "范围 / 选项", "使用的卡牌类型", "说明"]]
    for field_id in fields:
        owners = _owners(game, field_id)
        specs = [spec for _type, spec in owners]
        type_name = {t: f"{game.card_types[t].name}（{t}）" for t, _spec in owners if t is not None}
        where = get_column_letter(cols.index(field_id) + 1) if field_id in cols else "（未列出，可加此列）"
        head = field_id if headers == "ids" else names.label_for(field_id)
        kinds = list(dict.fromkeys(KIND_NAMES[spec.kind] for spec in specs))
        if field_id == "type":
            kind = "卡牌类型编号"
            ranges = "、".join(f"{t}（{ct.name}）" for t, ct in game.card_types.items())
        else:
            kind = kinds[0] if len(kinds) == 1 else "；".join(f"{type_name[t]}：{KIND_NAMES[s.kind]}" for t, s in owners)
            texts = list(dict.fromkeys(_range_text(spec) for spec in specs))
            ranges = texts[0] if len(texts) == 1 else "；".join(f"{type_name[t]}：{_range_text(s)}" for t, s in owners)
        required = [t for t, spec in owners if spec.required]
        if len(required) == len(owners):
            must = "是"
        elif not required:
            must = "否"
        else:
            must = "仅 " + "、".join(type_name[t] for t in required if t is not None)
        used_by = "全部" if owners[0][0] is None else "、".join(type_name.values())
        help_text = next((spec.help for spec in specs if spec.help), _BUILT_IN_HELP.get(field_id, ""))
        rows.append([where, head, field_id, specs[0].label, kind, must, ranges, used_by, help_text])
    return rows


def _write_form(game: GameDefinition, head: list[str], cols: list[str], rows: list[list[object]],
                target: Path, headers: Headers) -> None:
    """The XLSX form (see the module docstring); the first sheet's values are ``head`` and ``rows``."""
    import openpyxl
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = game.id[:31]
    sheet.append(head)
    for row in rows:
        sheet.append(row)
    _strings(sheet)
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "D2"
    wrap = Alignment(wrap_text=True, vertical="top")
    text_columns = {i for i, c in enumerate(cols, 1) if any(s.kind == "text" for _type, s in _owners(game, c))}
    for index in text_columns:
        sheet.column_dimensions[get_column_letter(index)].alignment = wrap  # the rows still to fill too
    for col_cells in sheet.iter_cols(min_row=2):
        for cell in col_cells:
            if cell.column in text_columns or (isinstance(cell.value, str) and "\n" in cell.value):
                cell.alignment = wrap
    _fit_widths(sheet, text_columns)
    _validate(book, sheet, cols, game, len(rows) + 1 + FORM_ROWS)

    info = book.create_sheet(INFO_SHEET, 1)
    for row in _info_rows(game, cols, headers):
        info.append(row)
    _strings(info)
    for cell in info[1]:
        cell.font = Font(bold=True)
    info.freeze_panes = "A2"
    long_columns = {7, 8, 9}
    for line in info.iter_rows(min_row=2):
        for cell in line:
            if cell.column in long_columns:
                cell.alignment = wrap
    _fit_widths(info, long_columns)
    book.active = 0
    book.save(target)
