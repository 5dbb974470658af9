"""Spreadsheets as designers save them: the text encoding of a CSV, and column headers.

**Encoding** (``decode_csv``) is decided exactly, never guessed, so no file is silently mis-read:

1. a UTF-16 BOM (Excel's "Unicode text"): strict UTF-16;
2. a UTF-8 BOM (Excel's "CSV UTF-8"): strict UTF-8, BOM dropped;
3. otherwise strict UTF-8; if that fails, strict GB18030 (a superset of GBK and GB2312: what
   Chinese Excel writes for plain "CSV");
4. a file that is none of these is an error naming its first line that neither can read.

A header row with a tab and no comma is tab-separated (Excel's "Unicode text" is), else commas.

**Headers** (``HeaderMap``) may be a field id (``cost``) or a field's label from ``game.yaml``
(``费用``); the built-in columns carry the labels of ``COMMON_FIELDS``: 编号 (id), 类型 (type),
名称 (name), 效果 (text), 描述 (flavor), 卡图 (art). An id always wins over a label. A label two
different fields share (backrooms: 编号 is both ``id`` and ``number``) cannot be a header: write
the field id. Example::

    >>> from engine.definitions import load_game
    >>> HeaderMap(load_game("backrooms")).resolve("费用")
    'cost'
"""

from __future__ import annotations

import codecs
from pathlib import Path
from typing import Any

from ..definitions import GameDefinition
from ..errors import DataError, Location, Problem
from ..i18n import N_, _
from ..i18n import _ as tr

UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_SAVE_AS = N_("save the file as UTF-8 (Excel: 'CSV UTF-8')")  # shown as tr(_SAVE_AS)


def _line_at(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _undecodable(path: Path, data: bytes) -> DataError:
    """The error for bytes that are neither UTF-8 nor GB18030: the first line neither reads."""
    start = 0
    for raw in data.split(b"\n"):
        bad = []
        for encoding in ("utf-8", "gb18030"):
            try:
                raw.decode(encoding)
            except UnicodeDecodeError as exc:
                bad.append(exc.start)
        if len(bad) == 2:
            offset = start + min(bad)
            return DataError(Problem(
                _("not UTF-8 or GB18030/GBK text: byte {byte} (0x{value:02x}) of the file (on this line) "
                  "cannot be read in either; {advice}").format(byte=offset + 1, value=data[offset], advice=tr(_SAVE_AS)),
                Location(path, _line_at(data, offset))))
        start += len(raw) + 1
    # Every line reads in one encoding or the other, but not the file as a whole: mixed text.
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start
    else:  # unreachable: the caller found the file undecodable as UTF-8
        offset = 0
    return DataError(Problem(
        _("the file mixes encodings: byte {byte} of the file (on this line) is not UTF-8 although the text before it "
          "is; {advice}").format(byte=offset + 1, advice=tr(_SAVE_AS)), Location(path, _line_at(data, offset))))


def decode_csv(path: Path, data: bytes) -> tuple[str, str]:
    """(text, encoding name) of a CSV file's bytes; ``DataError`` naming the line if unreadable.

    >>> decode_csv(Path("x.csv"), "名称\\n".encode("gbk"))
    ('名称\\n', 'gb18030')
    """
    if data.startswith(UTF16_BOMS):
        try:
            return data.decode("utf-16"), "utf-16"
        except UnicodeDecodeError as exc:
            line = data[:exc.start].decode("utf-16", "replace").count("\n") + 1
            raise DataError(Problem(_("not UTF-16 text although it starts with a UTF-16 mark: byte {byte} "
                                      "({reason}); {advice}").format(byte=exc.start + 1, reason=exc.reason,
                                                                     advice=tr(_SAVE_AS)), Location(path, line))) from None
    if data.startswith(codecs.BOM_UTF8):
        try:
            return data[len(codecs.BOM_UTF8):].decode("utf-8"), "utf-8-sig"
        except UnicodeDecodeError as exc:
            offset = exc.start + len(codecs.BOM_UTF8)
            raise DataError(Problem(_("not UTF-8 text although it starts with a UTF-8 mark: byte {byte} "
                                      "({reason}); {advice}").format(byte=offset + 1, reason=exc.reason,
                                                                     advice=tr(_SAVE_AS)),
                                    Location(path, _line_at(data, offset)))) from None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("gb18030"), "gb18030"
    except UnicodeDecodeError:
        raise _undecodable(path, data) from None


def delimiter_of(text: str) -> str:
    """``\\t`` when the header line has a tab and no comma (Excel's "Unicode text"), else ``,``."""
    first = text.split("\n", 1)[0]
    return "\t" if "\t" in first and "," not in first else ","


class HeaderMap:
    """Column header → field id, for one game (see the module docstring for the rules)."""

    def __init__(self, game: GameDefinition):
        self.ids: dict[str, None] = {}  # every field id of the game, in definition order
        self.labels: dict[str, list[str]] = {}  # label → the field ids carrying it
        for type_id in game.card_types:
            for field_id, spec in game.fields_of(type_id).items():
                self.ids.setdefault(field_id)
                owners = self.labels.setdefault(spec.label.strip(), [])
                if field_id not in owners:
                    owners.append(field_id)

    def label_for(self, field_id: str) -> str:
        """The header an export writes for ``field_id``: its label when that reads back as this
        field alone, else the id."""
        for label, owners in self.labels.items():
            if owners == [field_id] and label not in self.ids:
                return label
        return field_id

    def resolve(self, header: str) -> str:
        """The field id ``header`` names; ``ValueError`` with the reason (and a suggestion)."""
        text = header.strip()
        if text in self.ids:
            return text
        owners = self.labels.get(text)
        if owners and len(owners) == 1:
            return owners[0]
        if owners:
            raise ValueError(_("{header!r} is the label of several fields ({fields}): "
                               "write the field id as the column header").format(header=text, fields=_(", ").join(owners)))
        import difflib  # only for a header that is wrong

        known = [*self.ids, *(label for label, o in self.labels.items() if len(o) == 1)]
        close = difflib.get_close_matches(text, known, n=1, cutoff=0.5)
        if close:
            guess = close[0]
            shown = f"{guess!r}" if guess in self.ids else f"{guess!r} ({self.resolve(guess)})"
            return self._unknown(text, _("did you mean {guess}?").format(guess=shown))
        return self._unknown(text, _("the fields are: {fields}").format(fields=_(", ").join(self.ids)))

    @staticmethod
    def _unknown(text: str, hint: str) -> str:
        raise ValueError(_("unknown column {header!r}: not a field id or label of this game; {hint}").format(
            header=text[:64], hint=hint))

    def map_header(self, path: Path, header: list[Any]) -> list[str]:
        """Field id per column ('' for a blank header cell); ``DataError`` with every problem:
        unknown or ambiguous headers, two columns meaning one field, no id column."""
        problems: list[Problem] = []
        names: list[str] = []
        first: dict[str, int] = {}
        for column, cell in enumerate(header, 1):
            text = str(cell).strip() if cell is not None else ""
            if not text:
                names.append("")
                continue
            try:
                field_id = self.resolve(text)
            except ValueError as exc:
                problems.append(Problem(_("column {column}: {reason}").format(column=column, reason=exc),
                                        Location(path, row=1)))
                names.append("")
                continue
            if field_id in first:
                problems.append(Problem(
                    _("columns {first} ({first_header!r}) and {column} ({header!r}) both mean field {field!r}: "
                      "keep one").format(first=first[field_id], first_header=str(header[first[field_id] - 1]).strip(),
                                         column=column, header=text, field=field_id), Location(path, row=1)))
            else:
                first[field_id] = column
            names.append(field_id)
        if not problems and "id" not in first:
            label = self.label_for("id")
            if label != "id":
                text = _("header row has no 'id' column (or its label {label!r})").format(label=label)
            else:
                text = _("header row has no 'id' column")
            problems.append(Problem(text, Location(path, row=1)))
        if problems:
            raise DataError(problems)
        return names


def type_names(game: GameDefinition) -> dict[str, str]:
    """Card type name → type id, for the names only one type has (``实体`` → ``entity``): a
    spreadsheet may say a card's type by its name."""
    by_name: dict[str, list[str]] = {}
    for type_id, ctype in game.card_types.items():
        by_name.setdefault(ctype.name.strip(), []).append(type_id)
    return {name: ids[0] for name, ids in by_name.items() if len(ids) == 1 and name not in game.card_types}
