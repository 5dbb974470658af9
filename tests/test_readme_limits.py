"""The README states every hard limit on untrusted input, with the value the code enforces."""

from __future__ import annotations

import re
from pathlib import Path

from engine import limits

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _constants() -> dict[str, float]:
    return {name: value for name, value in vars(limits).items() if name.isupper() and isinstance(value, (int, float))}


def _row_of(name: str) -> str:
    rows = [line for line in README.splitlines() if f"`{name}`" in line]
    assert rows, f"README does not state the limit {name}"
    return rows[0]


def _figures(text: str) -> set[float]:
    return {float(m.replace(",", "")) for m in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}


def test_every_limit_is_in_the_readme_with_its_value():
    mb = 1024 * 1024
    for name, value in _constants().items():
        row = _row_of(name)
        shown = {value, value / mb, value / 1_000_000}  # bytes as MB, pixels as megapixels
        assert shown & _figures(row), f"README row for {name} does not show its value {value}: {row}"
