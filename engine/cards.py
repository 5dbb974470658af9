"""Card data: load cards from YAML, CSV and XLSX into one validated, frozen model.

A game folder's ``cards/`` holds any mix of ``*.yaml``/``*.yml`` (a list of card mappings),
``*.csv`` and ``*.xlsx`` (first sheet). The same card reads the same from all three. An empty
CSV/XLSX cell means "not given".

Spreadsheets (``engine.data.sheets``): a CSV may be UTF-8 (with or without BOM), GB18030/GBK (Chinese
Excel's plain "CSV") or UTF-16 with a BOM; the header row holds field ids or the field labels of
``game.yaml`` (``编号,名称,费用``); a card's ``type`` may be its type's name (``实体``) when only one
type has that name.

Every problem is collected, not just the first: unknown field, wrong type, value out of range,
duplicate id, missing required field, art file named but missing, malformed file.
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from .data.sheets import HeaderMap, decode_csv, delimiter_of, type_names
from .definitions import FieldSpec, GameDefinition
from .errors import DataError, Location, Problem
from .i18n import _
from .limits import (MAX_FIELD_CHARS, MAX_TEXT_FILE_BYTES, MAX_INT_DIGITS, MAX_SHEET_COLUMNS, MAX_SHEET_ROWS, MAX_XLSX_RATIO,
                     MAX_XLSX_UNPACKED_BYTES)
from .paths import UnsafePath, check_regular, confine, read_bounded
from .yamlio import line_of, load_yaml, parse_yaml, read_text

CARD_SUFFIXES = (".yaml", ".yml", ".csv", ".xlsx")
ART_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
#: Spreadsheet programs run a cell that starts with one of these as a formula; an exported
#: CSV cell starting with one (or with the escape itself) is written behind a ``'``.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CSV_ESCAPE = "'"
_INT_TEXT = re.compile(r"[+-]?\d+")
_TOO_BIG = 10 ** MAX_INT_DIGITS
#: A card id names its image file (``images/<id>.png``): kept well inside file-name limits.
MAX_ID_CHARS = 64


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
    #: field → the value as written, where YAML read it as a number/bool/date (YAML only)
    sources: Mapping[str, str] = field(default_factory=dict)


# ---------------------------------------------------------------------------- readers


def _read_yaml(path: Path, game: GameDefinition) -> Iterator[_RawCard]:
    raw = load_yaml(path)
    if raw is None:
        return
    items = raw.get("cards") if isinstance(raw, dict) else raw
    if not isinstance(items, list):
        raise DataError(Problem(_("expected a list of cards (or a mapping with 'cards:')"), Location(path, 1)))
    for i, item in enumerate(items):
        line = line_of(items, i)
        if not isinstance(item, dict):
            raise DataError(Problem(_("each card must be a mapping of field: value"), Location(path, line)))
        yield _RawCard(item, Location(path, line), dict(getattr(item, "lines", {})),
                       dict(getattr(item, "sources", {})))


def _cell(value: Any) -> Any:
    """Spreadsheet cell → value: blank means absent; whole floats become ints."""
    if value is None:
        return None
    if isinstance(value, str):
        value = value.strip()
        return value if value else None
    if isinstance(value, float) and value.is_integer() and abs(value) < _TOO_BIG:
        return int(value)
    return value


def _csv_cell(value: str) -> str | None:
    """CSV cell → value: blank means absent; the export's formula escape is undone last, so
    text it protected (``'\tx``) keeps its leading character."""
    value = value.strip()
    return csv_unescape(value) if value else None


def _rows_to_cards(path: Path, game: GameDefinition, header: list[Any], rows: Iterator[tuple[int, list[Any]]],
                   cell=_cell) -> Iterator[_RawCard]:
    names = HeaderMap(game).map_header(path, header)
    by_name = type_names(game)
    for row_no, cells in rows:
        values = {n: cell(c) for n, c in zip(names, cells) if n}
        if isinstance(values.get("type"), str) and values["type"] not in game.card_types:
            values["type"] = by_name.get(values["type"], values["type"])
        if all(v is None for v in values.values()):
            continue  # blank line in a sheet
        if len(cells) > len(names) and any(cell(c) is not None for c in cells[len(names):]):
            raise DataError(Problem(_("row has more cells than the header has columns"), Location(path, row=row_no)))
        yield _RawCard({k: v for k, v in values.items() if v is not None}, Location(path, row=row_no), {})


def csv_unescape(value: str) -> str:
    """Undo the export's formula escape: ``'=SUM(1)`` → ``=SUM(1)``, ``''x`` → ``'x``."""
    if value.startswith(CSV_ESCAPE) and value[1:2] and value[1] in (*FORMULA_STARTS, CSV_ESCAPE):
        return value[1:]
    return value


def _read_csv(path: Path, game: GameDefinition) -> Iterator[_RawCard]:
    try:
        data = read_bounded(path, MAX_TEXT_FILE_BYTES, "CSV file")
    except OSError as exc:
        raise DataError(Problem(_("cannot read: {reason}").format(reason=exc.strerror or exc), Location(path))) from None
    except UnsafePath as exc:  # a folder, FIFO or device, or too large
        raise DataError(Problem(str(exc), Location(path))) from None
    yield from _csv_cards(path, data, game)


def _csv_cards(path: Path, data: bytes, game: GameDefinition) -> Iterator[_RawCard]:
    """The cards of a CSV file's bytes; ``path`` names it in problems (a URL for a web source)."""
    text, _encoding = decode_csv(path, data)
    if "\0" in text:
        line = text.count("\n", 0, text.index("\0")) + 1
        raise DataError(Problem(_("the file contains NUL bytes: not a CSV text file (save it as CSV UTF-8)"),
                                Location(path, row=line)))
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter_of(text), strict=True))
    except csv.Error as exc:
        raise DataError(Problem(_("malformed CSV: {reason}").format(reason=exc), Location(path))) from None
    if not rows:
        return
    header = [csv_unescape(h.strip()) for h in rows[0]]  # the export escapes a label like any cell
    yield from _rows_to_cards(path, game, header, ((i + 2, r) for i, r in enumerate(rows[1:])), _csv_cell)


def _check_zip(path: Path, data: bytes) -> None:
    """Refuse a damaged XLSX or a zip bomb before openpyxl unpacks anything: the members'
    declared sizes bound what ``zipfile`` will ever inflate, so their sum is the true cost."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise DataError(Problem(_("not a readable XLSX file (damaged, or not a spreadsheet: {reason})").format(reason=exc),
                                Location(path))) from None
    limit = min(MAX_XLSX_UNPACKED_BYTES, MAX_XLSX_RATIO * max(len(data), 1))
    if unpacked > limit:
        raise DataError(Problem(
            _("the spreadsheet unpacks to {unpacked:,.0f} MB from {size:,.1f} MB "
              "(at most {limit} MB and {ratio}× its size): "
              "a zip bomb or not a card sheet; cardpress refuses it").format(
                unpacked=unpacked / 1e6, size=len(data) / 1e6, limit=MAX_XLSX_UNPACKED_BYTES // (1024 * 1024),
                ratio=MAX_XLSX_RATIO), Location(path)))


_BLANK_ROW: list[Any] = []


def _sheet_rows(path: Path, book) -> list[list[Any]]:
    """The first sheet's rows, bounded. The sheet's declared size is ignored (openpyxl would pad
    every row to it: 5 KB can declare 17 billion cells); blank rows are kept as ``[]`` so row
    numbers stay right, and only filled rows and cells count against the limits."""
    if not book.worksheets:
        return []
    sheet = book.worksheets[0]
    if hasattr(sheet, "reset_dimensions"):
        sheet.reset_dimensions()
    rows: list[list[Any]] = []
    filled = 0
    for n, row in enumerate(sheet.iter_rows(values_only=True), 1):
        if all(v is None for v in row):
            rows.append(_BLANK_ROW)  # shared: a million of them cost one pointer each
            continue
        filled += 1
        if filled > MAX_SHEET_ROWS:
            raise DataError(Problem(_("the sheet has more than {limit:,} filled rows; cardpress refuses it").format(limit=MAX_SHEET_ROWS),
                                    Location(path, row=n)))
        if len(row) > MAX_SHEET_COLUMNS and any(v is not None for v in row[MAX_SHEET_COLUMNS:]):
            raise DataError(Problem(_("the row fills more than {limit:,} columns; cardpress refuses it").format(limit=MAX_SHEET_COLUMNS),
                                    Location(path, row=n)))
        rows.append(list(row[:MAX_SHEET_COLUMNS]))
    while rows and not rows[-1]:
        rows.pop()
    return rows


def _read_xlsx(path: Path, game: GameDefinition) -> Iterator[_RawCard]:
    import openpyxl  # imported here: only designers with spreadsheets pay for it

    try:
        # Read once, bounded, and inspect before unpacking: a FIFO, a huge or a bomb file is
        # refused without openpyxl ever opening it.
        data = read_bounded(path, MAX_XLSX_UNPACKED_BYTES, "XLSX file")
    except OSError as exc:
        raise DataError(Problem(_("cannot read: {reason}").format(reason=exc.strerror or exc), Location(path))) from None
    except UnsafePath as exc:
        raise DataError(Problem(str(exc), Location(path))) from None
    _check_zip(path, data)
    try:
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a damaged file
        raise DataError(Problem(_("cannot read spreadsheet: {reason}").format(reason=exc), Location(path))) from None
    try:
        rows = _sheet_rows(path, book)
    except DataError:
        raise
    except Exception as exc:  # cells are parsed lazily while iterating: a damaged sheet fails here
        raise DataError(Problem(_("cannot read spreadsheet: {reason}").format(reason=exc), Location(path))) from None
    finally:
        book.close()
    if not rows:
        return
    yield from _rows_to_cards(path, game, rows[0], ((i + 2, r) for i, r in enumerate(rows[1:])))


READERS = {".yaml": _read_yaml, ".yml": _read_yaml, ".csv": _read_csv, ".xlsx": _read_xlsx}


# ---------------------------------------------------------------------------- validation


def _shown(value: Any) -> str:
    """``repr`` of a bad value, cut short: the message must stay readable."""
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "…"


def _blank(value: Any) -> bool:
    """YAML ``name:`` (null) or a value of only spaces: the field was not filled in."""
    return value is None or (isinstance(value, str) and not value.strip())


def _coerce(spec: FieldSpec, value: Any) -> tuple[Any, str | None]:
    """Return (typed value, error message or None)."""
    kind = spec.kind
    if isinstance(value, str) and len(value) > MAX_FIELD_CHARS:
        return None, _("{count:,} characters; cardpress refuses more than {limit:,} in one field").format(
            count=len(value), limit=MAX_FIELD_CHARS)
    if kind == "int":
        if isinstance(value, bool):
            return None, _("expected a whole number, got {value}").format(value=repr(value))
        if isinstance(value, str) and _INT_TEXT.fullmatch(value.strip()):
            digits = len(value.strip().lstrip("+-"))
            if digits > MAX_INT_DIGITS:  # int() of 5000 digits is slow, past 4300 an error
                return None, _("a number with {digits} digits; at most {limit} are allowed").format(
                    digits=digits, limit=MAX_INT_DIGITS)
            value = int(value)
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        if not isinstance(value, int):
            return None, _("expected a whole number, got {value}").format(value=_shown(value))
        if abs(value) >= _TOO_BIG:
            return None, _("a number with more than {limit} digits").format(limit=MAX_INT_DIGITS)
        if spec.min is not None and value < spec.min:
            return None, _("{value} is below the minimum {min}").format(value=value, min=spec.min)
        if spec.max is not None and value > spec.max:
            return None, _("{value} is above the maximum {max}").format(value=value, max=spec.max)
        return value, None
    if kind == "bool":
        if isinstance(value, bool):
            return value, None
        text = str(value).strip().lower()
        if text in ("true", "yes", "1", "是"):
            return True, None
        if text in ("false", "no", "0", "否"):
            return False, None
        return None, _("expected true or false, got {value}").format(value=_shown(value))
    if isinstance(value, (dict, list)):
        return None, (_("expected text, got a mapping") if isinstance(value, dict) else _("expected text, got a list"))
    text = str(value) if not isinstance(value, str) else value
    if kind == "enum":
        if text not in spec.values:
            return None, _("{value} is not one of: {values}").format(value=_shown(text), values=_(", ").join(spec.values))
        return text, None
    if kind == "str":
        text = text.strip()
        if "\n" in text:
            return None, _("a short label cannot span several lines")
    if spec.max_len is not None and len(text) > spec.max_len:
        return None, _("{count} characters, at most {limit} allowed").format(count=len(text), limit=spec.max_len)
    return text, None


def _art_problem(game_dir: Path, path: Path) -> str | None:
    """Why ``path`` may not be used as art, or None: it must stay inside the game folder
    (symlinks followed) and be a regular file; a FIFO or ``/dev/zero`` would never be read out."""
    if "\0" in str(path):  # the operating system cannot even look such a name up
        return _("an art file name cannot contain a NUL character")
    try:
        resolved = confine(path, [game_dir], "art file")
        if not resolved.exists():
            return _("art file not found: {path}").format(path=path)
        check_regular(resolved, "art file")
    except UnsafePath as exc:
        return str(exc)
    except OSError as exc:  # a name too long, a permission denied on the way
        return _("art file cannot be used: {reason}").format(reason=exc.strerror or exc)
    return None


def _find_art(game_dir: Path, card_id: str, named: str | None) -> tuple[Path | None, str | None]:
    """(art file, problem): the ``art:`` file, else ``art/<card id>.<png|jpg|…>`` if one exists."""
    art_dir = game_dir / "art"
    if named:
        path = art_dir / named
        return path, _art_problem(game_dir, path)
    for suffix in ART_SUFFIXES:
        candidate = art_dir / f"{card_id}{suffix}"
        if os.path.lexists(candidate):
            return candidate, _art_problem(game_dir, candidate)
    return None, None


def validate_card(game: GameDefinition, raw: _RawCard, problems: list[Problem]) -> Card | None:
    """Check one raw card against its type's schema; append problems; return the card if valid."""
    data = raw.data

    def where(key: str | None) -> Location:
        line = raw.lines.get(key) if key else None
        return Location(raw.where.file, line or raw.where.line, raw.where.row)

    card_id = data.get("id")
    label = None if _blank(card_id) else str(card_id) if len(str(card_id)) <= MAX_ID_CHARS else _shown(card_id)
    before = len(problems)
    if _blank(card_id):
        problems.append(Problem(_("missing required field"), where("id"), None, "id"))
    elif not isinstance(card_id, str) or not ID_PATTERN.fullmatch(card_id) or len(card_id) > MAX_ID_CHARS:
        problems.append(
            Problem(_("an id is up to {limit} lower-case letters, digits, '-' or '_' (e.g. 'level-0')").format(limit=MAX_ID_CHARS),
                    where("id"), label, "id")
        )
    type_id = data.get("type")
    if _blank(type_id):
        problems.append(Problem(_("missing required field"), where("type"), label, "type"))
        return None
    if not isinstance(type_id, str) or type_id not in game.card_types:
        problems.append(
            Problem(
                _("unknown card type {type}; this game has: {types}").format(
                    type=_shown(type_id), types=_(", ").join(f"{t} ({c.name})" for t, c in game.card_types.items())),
                where("type"), label, "type",
            )
        )
        return None
    specs = game.fields_of(type_id)
    values: dict[str, Any] = {}
    given: set[str] = set()
    for key, value in data.items():
        name = str(key)
        spec = specs.get(name)
        if spec is None:
            problems.append(
                Problem(
                    _("unknown field for a {name} ({type}) card; known: {fields}").format(
                        name=game.card_types[type_id].name, type=type_id, fields=_(", ").join(specs)),
                    where(key), label, name[:MAX_ID_CHARS],
                )
            )
            continue
        if name in ("id", "type"):
            values[name] = value
            given.add(name)
            continue
        if _blank(value):
            continue  # `text:` left empty is "not given" (a required one is reported below)
        given.add(name)
        if spec.kind in ("str", "text", "enum") and name in raw.sources:
            value = raw.sources[name]  # `text: 1.50` prints 1.50, as written
        typed, error = _coerce(spec, value)
        if error:
            problems.append(Problem(error, where(key), label, name))
        else:
            values[name] = typed
    for key, spec in specs.items():
        if spec.required and key not in given:
            problems.append(Problem(_("missing required field"), where(key if key in data else None), label, key))
        elif key not in values and key not in given and spec.default is not None:
            values[key] = spec.default
    art, art_problem = _find_art(game.card_data_dir, str(card_id), values.get("art"))
    if art_problem:
        problems.append(Problem(art_problem, where("art" if "art" in data else None), label, "art"))
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


class SourceURL(str):
    """A web card source where a file path would stand (``Location.file``, ``Card.where``):
    problems in its rows name the URL as written, and ``name``/``suffix`` read as a path's do."""

    @property
    def name(self) -> str:
        return self.rstrip("/").rsplit("/", 1)[-1]

    @property
    def suffix(self) -> str:
        return ".csv"


def _source_line(game: GameDefinition, index: int) -> int | None:
    """The line of ``card_sources`` entry ``index`` in ``game.yaml`` (only read for an error)."""
    try:
        raw = parse_yaml(read_text(game.card_data_dir / "game.yaml", "YAML file"), game.card_data_dir / "game.yaml")
        return line_of(raw["card_sources"], index)
    except Exception:  # noqa: BLE001 - the file changed meanwhile: the error still names the URL
        return None


def _source_cards(game: GameDefinition) -> Iterator[tuple[Path, Any]]:
    """(name in problems, raw cards or the ``DataError``) of each web source of ``game``."""
    from .data.remote import FetchError, fetch  # urllib only for games that have a URL source

    for index, source in enumerate(game.card_sources):
        where = SourceURL(source.url)
        try:
            data = fetch(source.url, source.name)
        except FetchError as exc:
            yield where, DataError(Problem(_("cannot read card source {url}: {reason}").format(url=source.url, reason=exc.reason),
                                           Location(game.card_data_dir / "game.yaml", _source_line(game, index)),
                                           field=f"card_sources.{index}.url"))
            continue
        try:
            yield where, list(_csv_cards(where, data, game))  # type: ignore[arg-type]
        except DataError as exc:
            yield where, exc


def _file_cards(game: GameDefinition, files: list[Path] | None) -> Iterator[tuple[Path, Any]]:
    """(file, raw cards or the problem) of each card file: ``files``, else the game's own set
    (``cards/`` and the web sources ``game.yaml`` lists)."""
    for path in card_files(game) if files is None else files:
        reader = READERS.get(path.suffix.lower())
        if reader is None:
            yield path, DataError(Problem(_("not a card file (use .yaml, .csv or .xlsx)"), Location(path)))
            continue
        if files is None:  # found in the (untrusted) folder: a symlink may not lead out of it
            try:
                confine(path, [game.card_data_dir], "card file")
            except UnsafePath as exc:
                yield path, DataError(Problem(str(exc), Location(path)))
                continue
        try:
            yield path, list(reader(path, game))
        except DataError as exc:
            yield path, exc
    if files is None and getattr(game, "card_sources", ()):
        yield from _source_cards(game)


def read_cards(game: GameDefinition, files: list[Path] | None = None) -> tuple[list[Card], list[Problem]]:
    """Load and validate every card of ``game``; return (valid cards, all problems)."""
    problems: list[Problem] = []
    cards: list[Card] = []
    seen: dict[str, Location] = {}
    for _path, raws in _file_cards(game, files):
        if isinstance(raws, DataError):
            problems.extend(raws.problems)
            continue
        for raw in raws:
            card = validate_card(game, raw, problems)
            if card is None:
                continue
            if card.id in seen:
                problems.append(
                    Problem(_("duplicate id; first defined at {where}").format(where=seen[card.id]), card.where, card.id, "id")
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
