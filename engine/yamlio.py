"""YAML loading that remembers the line of every mapping key and list item.

PyYAML's composed node tree has marks; we build plain ``dict``/``list`` subclasses from it
that carry a ``lines`` table, so validation can point at the exact line of a bad value.

A game folder may come from a stranger, so loading is bounded: the file's size, the nodes a
document may expand to (aliases can expand exponentially, "billion laughs"), its nesting depth
and the digits of an integer. Every problem is a located ``DataError``, never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .errors import DataError, Location, Problem
from .i18n import _
from .limits import MAX_TEXT_FILE_BYTES
from .paths import UnsafePath, read_bounded


class LinedDict(dict):
    """A dict whose ``lines[key]`` is the 1-based line of that key; ``line`` is its own start.

    ``sources[key]`` is the text as written of a plain (unquoted) value that YAML read as a
    number, true/false or date: a text field keeps ``1.50`` as written, not as ``1.5``."""

    __slots__ = ("lines", "line", "sources")


class LinedList(list):
    """A list whose ``lines[i]`` is the 1-based line of item ``i``; ``line`` is its own start."""

    __slots__ = ("lines", "line")


def parse_yaml(text: str, file: Path | None = None) -> Any:
    """Parse one YAML document into ``LinedDict``/``LinedList``/scalars.

    Raises ``DataError`` naming the file and line for malformed YAML.

    >>> parse_yaml("a: 1\\nb: [x, y]\\n").lines
    {'a': 1, 'b': 2}
    """
    from ._yamlparse import parse_yaml as parse

    return parse(text, file)


def read_text(path: Path, what: str = "file") -> str:
    """A UTF-8 data file of a game folder: refused if it is not a regular file (a FIFO or
    ``/dev/zero`` would never end), over ``MAX_TEXT_FILE_BYTES``, or not UTF-8. A BOM is fine.
    Raises ``DataError`` naming the file."""
    where = Location(path)
    try:
        data = read_bounded(path, MAX_TEXT_FILE_BYTES, what)
    except OSError as exc:
        raise DataError(Problem(_("cannot read: {reason}").format(reason=exc.strerror or exc), where)) from None
    except UnsafePath as exc:  # a folder, FIFO or device, or too large
        raise DataError(Problem(str(exc), where)) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(Problem(_("not UTF-8 text (byte {byte}: {reason}); save the file as UTF-8").format(
            byte=exc.start + 1, reason=exc.reason), Location(path, line))) from None


def load_yaml(path: Path) -> Any:
    """Read and parse a UTF-8 YAML file (see ``parse_yaml`` and ``read_text``)."""
    return parse_yaml(read_text(path, "YAML file"), path)


def line_of(container: Any, key: Any) -> int | None:
    """Line of ``key`` in a lined container, falling back to the container's own line."""
    lines = getattr(container, "lines", None)
    try:
        if isinstance(lines, dict) and key in lines:
            return lines[key]
    except TypeError:  # an unhashable lookup key: no line for it
        return getattr(container, "line", None)
    if isinstance(lines, list) and isinstance(key, int) and 0 <= key < len(lines):
        return lines[key]
    return getattr(container, "line", None)
