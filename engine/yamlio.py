"""YAML loading that remembers the line of every mapping key and list item.

PyYAML's composed node tree has marks; we build plain ``dict``/``list`` subclasses from it
that carry a ``lines`` table, so validation can point at the exact line of a bad value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import DataError, Location, Problem


class LinedDict(dict):
    """A dict whose ``lines[key]`` is the 1-based line of that key; ``line`` is its own start."""

    __slots__ = ("lines", "line")


class LinedList(list):
    """A list whose ``lines[i]`` is the 1-based line of item ``i``; ``line`` is its own start."""

    __slots__ = ("lines", "line")


# libyaml composes the node tree in C (6× faster on a 3000-card file); marks are the same.
_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BASE):
    """SafeLoader without the YAML 1.1 quirks that bite designers (``no`` → False, ``1:30`` → 90)."""


# Keep booleans to true/false only: a card named "NO" or "on" must stay a string.
_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag not in ("tag:yaml.org,2002:bool",)]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    __import__("re").compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)


def _build(node: yaml.Node, loader: _Loader) -> Any:
    if isinstance(node, yaml.MappingNode):
        out = LinedDict()
        out.lines = {}
        out.line = node.start_mark.line + 1
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if key in out:
                raise DataError(
                    Problem(f"duplicate key {key!r}", Location(Path(loader.name), key_node.start_mark.line + 1))
                )
            out[key] = _build(value_node, loader)
            out.lines[key] = key_node.start_mark.line + 1
        return out
    if isinstance(node, yaml.SequenceNode):
        out_list = LinedList()
        out_list.lines = []
        out_list.line = node.start_mark.line + 1
        for item in node.value:
            out_list.append(_build(item, loader))
            out_list.lines.append(item.start_mark.line + 1)
        return out_list
    return loader.construct_object(node, deep=True)


def parse_yaml(text: str, file: Path | None = None) -> Any:
    """Parse one YAML document into ``LinedDict``/``LinedList``/scalars.

    Raises ``DataError`` naming the file and line for malformed YAML.

    >>> parse_yaml("a: 1\\nb: [x, y]\\n").lines
    {'a': 1, 'b': 2}
    """
    loader = _Loader(text)
    loader.name = str(file) if file else "<input>"
    try:
        node = loader.get_single_node()
        return None if node is None else _build(node, loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise DataError(Problem(f"malformed YAML: {exc.problem or exc}", Location(file, line))) from None
    finally:
        loader.dispose()


def load_yaml(path: Path) -> Any:
    """Read and parse a UTF-8 YAML file (see ``parse_yaml``)."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise DataError(Problem(f"not UTF-8 text ({exc.reason})", Location(path))) from None
    except OSError as exc:
        raise DataError(Problem(f"cannot read: {exc.strerror}", Location(path))) from None
    return parse_yaml(text, path)


def line_of(container: Any, key: Any) -> int | None:
    """Line of ``key`` in a lined container, falling back to the container's own line."""
    lines = getattr(container, "lines", None)
    if isinstance(lines, dict) and key in lines:
        return lines[key]
    if isinstance(lines, list) and isinstance(key, int) and 0 <= key < len(lines):
        return lines[key]
    return getattr(container, "line", None)
