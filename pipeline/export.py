"""Write a game's cards to one spreadsheet (XLSX or CSV) that loads back as the same cards.

For designers who would rather edit in a spreadsheet: export once, delete the YAML files, keep
the sheet in ``cards/``. Columns are every field of the game in definition order; a field a
card's type does not have is left blank; multi-line rules text stays in one cell.
"""

from __future__ import annotations

import csv
from pathlib import Path

from engine.cards import Card
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


def export_cards(game: GameDefinition, cards: list[Card], path: Path) -> Path:
    """Write ``cards`` to ``path`` (.xlsx or .csv), atomically; return the path."""
    suffix = path.suffix.lower()
    if suffix not in (".xlsx", ".csv"):
        raise ExportError(f"{path}: export to a .xlsx or .csv file")
    cols = columns(game, cards)
    rows = [[card.values.get(c) for c in cols] for card in cards]
    with atomic_write(path) as tmp:
        if suffix == ".csv":
            with tmp.open("w", encoding="utf-8", newline="") as fh:
                writer = csv.writer(fh)
                writer.writerow(cols)
                writer.writerows([["" if v is None else v for v in row] for row in rows])
        else:
            import openpyxl
            from openpyxl.styles import Alignment, Font

            book = openpyxl.Workbook()
            sheet = book.active
            sheet.title = game.id[:31]
            sheet.append(cols)
            for row in rows:
                sheet.append(row)
            for cell in sheet[1]:
                cell.font = Font(bold=True)
            sheet.freeze_panes = "D2"
            for col_cells in sheet.iter_cols(min_row=2):
                for cell in col_cells:
                    if isinstance(cell.value, str) and "\n" in cell.value:
                        cell.alignment = Alignment(wrap_text=True, vertical="top")
            book.save(tmp)
    return path
