"""Card data: load cards from YAML, CSV and XLSX into one validated, frozen model.

A game folder's ``cards/`` holds any mix of ``*.yaml``/``*.yml`` (a list of card mappings),
``*.csv`` (UTF-8, header row = field ids) and ``*.xlsx`` (first sheet, header row = field ids).
The same card reads the same from all three. An empty CSV/XLSX cell means "not given".

Every problem is collected, not just the first: unknown field, wrong type, value out of range,
duplicate id, missing required field, art file named but missing, malformed file.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from .definitions import FieldSpec, GameDefinition
from .errors import DataError, Location, Problem
from .yamlio import line_of, load_yaml

CARD_SUFFIXES = (".yaml", ".yml", ".csv", ".xlsx")
ART_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*$")


@dataclass(frozen=True, slots=True)
class Card:
    """One distinct card. ``values`` holds every field by id (common and type fields), typed."""

    id: str
    type: str
    name: str
    values: Mapping[str, Any]
    where: Location = field(default=Location(), compare=False)
    art_path: Path | None = field(default=None, compare=False)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


@dataclass(frozen=True, slots=True)
class _RawCard:
    data: Mapping[str, Any]
    where: Location
    lines: Mapping[str, int]  # field → line (YAML only)


# ---------------------------------------------------------------------------- readers


def _read_yaml(path: Path) -> Iterator[_RawCard]:
    raw = load_yaml(path)
    if raw is None:
        return
    items = raw.get("cards") if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        raise DataError(Problem("expected a list of cards (or a mapping with 'cards:')", Location(path, 1)))
    for i, item in enumerate(items):
        line = line_of(items, i)
        if not isinstance(item, dict):
            raise DataError(Problem("each card must be a mapping of field: value", Location(path, line)))
        yield _RawCard(item, Location(path, line), dict(getattr(item, "lines", {})))


def _cell(value: Any) -> Any:
    """Spreadsheet cell → value: blank means absent; whole floats become ints."""
    if value is None:
        return None
    if isinstance(value, str):
        value = value.strip()
        return value if value else None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _rows_to_cards(path: Path, header: list[Any], rows: Iterator[tuple[int, list[Any]]]) -> Iterator[_RawCard]:
    names = [str(h).strip() if h is not None else "" for h in header]
    if "id" not in names:
        raise DataError(Problem("header row has no 'id' column", Location(path, row=1)))
    for row_no, cells in rows:
        values = {n: _cell(c) for n, c in zip(names, cells) if n}
        if all(v is None for v in values.values()):
            continue  # blank line in a sheet
        if len(cells) > len(names) and any(_cell(c) is not None for c in cells[len(names):]):
            raise DataError(Problem("row has more cells than the header has columns", Location(path, row=row_no)))
        yield _RawCard({k: v for k, v in values.items() if v is not None}, Location(path, row=row_no), {})


def _read_csv(path: Path) -> Iterator[_RawCard]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(Problem(f"not UTF-8 text ({exc.reason})", Location(path))) from None
    try:
        rows = list(csv.reader(io.StringIO(text), strict=True))
    except csv.Error as exc:
        raise DataError(Problem(f"malformed CSV: {exc}", Location(path))) from None
    if not rows:
        return
    yield from _rows_to_cards(path, rows[0], ((i + 2, r) for i, r in enumerate(rows[1:])))


def _read_xlsx(path: Path) -> Iterator[_RawCard]:
    import openpyxl  # imported here: only designers with spreadsheets pay for it

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a damaged file
        raise DataError(Problem(f"cannot read spreadsheet: {exc}", Location(path))) from None
    try:
        sheet = book.worksheets[0]
        rows = sheet.iter_rows(values_only=True)
        header = next(rows, None)
        if header is None:
            return
        yield from _rows_to_cards(path, list(header), ((i + 2, list(r)) for i, r in enumerate(rows)))
    finally:
        book.close()


READERS = {".yaml": _read_yaml, ".yml": _read_yaml, ".csv": _read_csv, ".xlsx": _read_xlsx}


# ---------------------------------------------------------------------------- validation


def _coerce(spec: FieldSpec, value: Any) -> tuple[Any, str | None]:
    """Return (typed value, error message or None)."""
    kind = spec.kind
    if kind == "int":
        if isinstance(value, bool):
            return None, f"expected a whole number, got {value!r}"
        if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
            value = int(value)
        if not isinstance(value, int):
            return None, f"expected a whole number, got {value!r}"
        if spec.min is not None and value < spec.min:
            return None, f"{value} is below the minimum {spec.min}"
        if spec.max is not None and value > spec.max:
            return None, f"{value} is above the maximum {spec.max}"
        return value, None
    if kind == "bool":
        if isinstance(value, bool):
            return value, None
        text = str(value).strip().lower()
        if text in ("true", "yes", "1", "是"):
            return True, None
        if text in ("false", "no", "0", "否"):
            return False, None
        return None, f"expected true or false, got {value!r}"
    if isinstance(value, (dict, list)):
        return None, f"expected text, got a {'mapping' if isinstance(value, dict) else 'list'}"
    text = str(value) if not isinstance(value, str) else value
    if kind == "enum":
        if text not in spec.values:
            return None, f"{text!r} is not one of: {', '.join(spec.values)}"
        return text, None
    if kind == "str":
        text = text.strip()
        if "\n" in text:
            return None, "a short label cannot span several lines"
    if spec.max_len is not None and len(text) > spec.max_len:
        return None, f"{len(text)} characters, at most {spec.max_len} allowed"
    return text, None


def _find_art(game_dir: Path, card_id: str, named: str | None) -> Path | None:
    art_dir = game_dir / "art"
    if named:
        return art_dir / named
    for suffix in ART_SUFFIXES:
        candidate = art_dir / f"{card_id}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def validate_card(game: GameDefinition, raw: _RawCard, problems: list[Problem]) -> Card | None:
    """Check one raw card against its type's schema; append problems; return the card if valid."""
    data = raw.data

    def where(key: str | None) -> Location:
        line = raw.lines.get(key) if key else None
        return Location(raw.where.file, line or raw.where.line, raw.where.row)

    card_id = data.get("id")
    label = str(card_id) if card_id is not None else None
    before = len(problems)
    if card_id is None:
        problems.append(Problem("missing required field", where(None), None, "id"))
    elif not isinstance(card_id, str) or not ID_PATTERN.match(card_id):
        problems.append(
            Problem("an id is lower-case letters, digits, '-' or '_' (e.g. 'level-0')", where("id"), label, "id")
        )
    type_id = data.get("type")
    if type_id is None:
        problems.append(Problem("missing required field", where(None), label, "type"))
        return None
    if type_id not in game.card_types:
        problems.append(
            Problem(
                f"unknown card type {type_id!r}; this game has: {', '.join(game.card_types)}",
                where("type"), label, "type",
            )
        )
        return None
    specs = game.fields_of(type_id)
    values: dict[str, Any] = {}
    for key, value in data.items():
        spec = specs.get(str(key))
        if spec is None:
            problems.append(
                Problem(
                    f"unknown field for a {game.card_types[type_id].name} ({type_id}) card; "
                    f"known: {', '.join(specs)}",
                    where(key), label, str(key),
                )
            )
            continue
        if key in ("id", "type"):
            values[key] = value
            continue
        typed, error = _coerce(spec, value)
        if error:
            problems.append(Problem(error, where(key), label, str(key)))
        else:
            values[key] = typed
    for key, spec in specs.items():
        if spec.required and key not in data:
            problems.append(Problem("missing required field", where(None), label, key))
        elif key not in values and spec.default is not None:
            values[key] = spec.default
    art = _find_art(game.card_data_dir, str(card_id), values.get("art"))
    if values.get("art") and art is not None and not art.is_file():
        problems.append(Problem(f"art file not found: {art}", where("art"), label, "art"))
    if len(problems) > before:
        return None
    return Card(
        id=card_id, type=type_id, name=values["name"],
        values=MappingProxyType(values), where=raw.where, art_path=art,
    )


def card_files(game: GameDefinition) -> list[Path]:
    """Card files of a game, in a stable order (by name)."""
    folder = game.card_data_dir / "cards"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in CARD_SUFFIXES and not p.name.startswith((".", "~$")))


def read_cards(game: GameDefinition, files: list[Path] | None = None) -> tuple[list[Card], list[Problem]]:
    """Load and validate every card of ``game``; return (valid cards, all problems)."""
    problems: list[Problem] = []
    cards: list[Card] = []
    seen: dict[str, Location] = {}
    for path in card_files(game) if files is None else files:
        reader = READERS.get(path.suffix.lower())
        if reader is None:
            problems.append(Problem("not a card file (use .yaml, .csv or .xlsx)", Location(path)))
            continue
        try:
            raws = list(reader(path))
        except DataError as exc:
            problems.extend(exc.problems)
            continue
        for raw in raws:
            card = validate_card(game, raw, problems)
            if card is None:
                continue
            if card.id in seen:
                problems.append(
                    Problem(f"duplicate id; first defined at {seen[card.id]}", card.where, card.id, "id")
                )
                continue
            seen[card.id] = card.where
            cards.append(card)
    return cards, problems


def load_cards(game: GameDefinition, files: list[Path] | None = None) -> list[Card]:
    """Like ``read_cards`` but raise ``DataError`` with every problem if there is any."""
    cards, problems = read_cards(game, files)
    if problems:
        raise DataError(problems)
    return cards
