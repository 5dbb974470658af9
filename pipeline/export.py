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
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Literal

from engine.cards import CSV_ESCAPE, FORMULA_STARTS, Card
from engine.data.sheets import HeaderMap
from engine.definitions import COMMON_FIELDS, GameDefinition
from engine.errors import CardpressError

from .atomic import atomic_write


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
        raise ExportError(f"headers must be 'ids' or 'labels', not {headers!r}")
    names = HeaderMap(game)
    return [names.label_for(c) for c in cols]


def export_cards(game: GameDefinition, cards: list[Card], path: Path, headers: Headers = "ids") -> Path:
    """Write ``cards`` to ``path`` (.xlsx or .csv), atomically; return the path.

    ``headers="labels"`` heads the columns with the fields' Chinese labels (see the module doc).
    Example: ``export_cards(game, load_cards(game), Path("cards.csv"), headers="labels")``.
    """
    suffix = path.suffix.lower()
    if suffix not in (".xlsx", ".csv"):
        raise ExportError(f"{path}: export to a .xlsx or .csv file")
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
            import openpyxl
            from openpyxl.styles import Alignment, Font

            book = openpyxl.Workbook()
            sheet = book.active
            sheet.title = game.id[:31]
            sheet.append(head)
            for row in rows:
                sheet.append(row)
            for line in sheet.iter_rows():
                for cell in line:
                    if isinstance(cell.value, str):
                        cell.data_type = "s"  # openpyxl makes any "=…" text a formula otherwise
            for cell in sheet[1]:
                cell.font = Font(bold=True)
            sheet.freeze_panes = "D2"
            for col_cells in sheet.iter_cols(min_row=2):
                for cell in col_cells:
                    if isinstance(cell.value, str) and "\n" in cell.value:
                        cell.alignment = Alignment(wrap_text=True, vertical="top")
            book.save(tmp)
    return path
