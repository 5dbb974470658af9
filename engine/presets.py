"""Presets kept as data: the papers and card sizes every command reads, from
``templates/_common/presets/{papers,card_sizes}.yaml`` (the print shops' presets sit beside them,
in ``templates/_common/shops/``). Each file is read once and checked against its schema here,
so a mistyped entry is one clear error naming the file, line and key, never a wrong sheet.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from .errors import CardpressError, DataError, Location, Problem
from .i18n import _
from .paths import templates_root


def presets_dir() -> Path:
    return templates_root() / "_common" / "presets"


@dataclass(frozen=True)
class Paper:
    id: str
    name: str
    width_mm: float
    height_mm: float
    booklet_page_mm: tuple[float, float]
    source: str

    @property
    def mm(self) -> tuple[float, float]:
        return self.width_mm, self.height_mm


class UnknownPaper(CardpressError):
    """A paper name that is not in ``papers.yaml``."""


def _length(entry: Any, key: str, path: Path, name: str) -> float:
    value = entry.get(key) if isinstance(entry, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        line = getattr(entry, "lines", {}).get(key, getattr(entry, "line", None))
        raise DataError(Problem(_("{name}: {key} must be a positive number of millimetres, got {value!r}").format(
            name=name, key=key, value=value), Location(path, line)))
    return float(value)


def _entries(file: str) -> tuple[Path, dict]:
    from .yamlio import load_yaml

    path = presets_dir() / file
    data = load_yaml(path)
    if not isinstance(data, dict) or not data:
        raise DataError(Problem(_("a preset file is a mapping of names to entries"), Location(path, 1)))
    for name, entry in data.items():
        if not isinstance(name, str) or not isinstance(entry, dict) or not isinstance(entry.get("source"), str):
            line = getattr(data, "lines", {}).get(name)
            raise DataError(Problem(_("{name}: an entry needs its sizes and a source line saying where they come "
                                      "from").format(name=name), Location(path, line)))
    return path, data


@cache
def papers() -> dict[str, Paper]:
    """Every paper, by id (``a4``, ``letter``), in the file's order."""
    path, data = _entries("papers.yaml")
    out = {}
    for pid, entry in data.items():
        booklet = entry.get("booklet_page_mm")
        if not (isinstance(booklet, list) and len(booklet) == 2 and all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0 for v in booklet)):
            raise DataError(Problem(_("{name}: booklet_page_mm must be [width, height] in millimetres").format(
                name=pid), Location(path, getattr(entry, "lines", {}).get("booklet_page_mm", entry.line))))
        out[pid] = Paper(pid, str(entry.get("name", pid)), _length(entry, "width_mm", path, pid),
                         _length(entry, "height_mm", path, pid), (float(booklet[0]), float(booklet[1])),
                         entry["source"])
    return out


def paper(name: str) -> Paper:
    """The paper ``name`` (any case); ``UnknownPaper`` naming the papers there are."""
    every = papers()
    found = every.get(str(name).strip().lower())
    if found is None:
        raise UnknownPaper(_("unknown paper {paper!r}; use one of: {papers}").format(
            paper=name, papers=", ".join(every)))
    return found


@cache
def card_sizes() -> dict[str, tuple[float, float]]:
    """Every card size preset, by name: (width, height) mm."""
    path, data = _entries("card_sizes.yaml")
    return {name: (_length(entry, "width_mm", path, name), _length(entry, "height_mm", path, name))
            for name, entry in data.items()}
