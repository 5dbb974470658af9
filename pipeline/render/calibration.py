"""The duplex calibration sheet's two pages (``outputs.calibration`` says where the crosses go).

Page 1: a cross at each target. Page 2: a small cross and a millimetre scale at each target's
mirror image (shifted by any back offset already applied), read through the sheet against a light.
"""

from __future__ import annotations

from pathlib import Path

from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from .fonts import FontSet

SCALE_MM = 5  # the scale reads ±5 mm, in 0.5 mm steps

Point = tuple[float, float]


def _cross(c: Canvas, x: float, y: float, arm: float = 6) -> None:
    c.line((x - arm) * mm, y * mm, (x + arm) * mm, y * mm)
    c.line(x * mm, (y - arm) * mm, x * mm, (y + arm) * mm)


def _scale(c: Canvas, x: float, y: float, font: str) -> None:
    """Ticks every 0.5 mm from -5 to +5 along both axes, longer every 1 mm, labelled every 2 mm."""
    c.setFont(font, 4)
    for k in range(-2 * SCALE_MM, 2 * SCALE_MM + 1):
        v = k / 2
        long_tick = k % 2 == 0
        t = 1.6 if long_tick else 0.9
        c.line((x + v) * mm, (y - 7) * mm, (x + v) * mm, (y - 7 + t) * mm)  # x scale under the cross
        c.line((x - 7) * mm, (y + v) * mm, (x - 7 + t) * mm, (y + v) * mm)  # y scale left of it
        if k % 4 == 0:
            c.drawCentredString((x + v) * mm, (y - 9.2) * mm, f"{v:+g}")
            c.drawRightString((x - 7.6) * mm, (y + v - 0.6) * mm, f"{v:+g}")


def draw_calibration(path: Path, size_mm: Point, fronts: list[Point], backs: list[Point], titles: tuple[str, str],
                     instructions: list[str], note: str | None, fonts: FontSet, title: str) -> None:
    """Write the two pages to ``path``: crosses at ``fronts`` with ``titles[0]`` and the
    ``instructions``; then crosses and scales at ``backs`` with ``titles[1]`` and the ``note``."""
    w, h = size_mm
    c = Canvas(str(path), pagesize=(w * mm, h * mm), initialFontName=fonts.regular)
    c.setTitle(title)
    c.setLineWidth(0.25)
    for x, y in fronts:
        _cross(c, x, y)
    c.setFont(fonts.bold, 14)
    c.drawCentredString(w / 2 * mm, (h / 2 + 30) * mm, titles[0])
    c.setFont(fonts.regular, 9)
    for n, text in enumerate(instructions):
        c.drawCentredString(w / 2 * mm, (h / 2 - 24 - n * 5) * mm, text)
    c.showPage()
    c.setLineWidth(0.25)
    for x, y in backs:
        _cross(c, x, y, arm=3)
        _scale(c, x, y, fonts.regular)
    c.setFont(fonts.bold, 14)
    c.drawCentredString(w / 2 * mm, (h / 2 + 30) * mm, titles[1])
    if note:
        c.setFont(fonts.regular, 9)
        c.drawCentredString(w / 2 * mm, (h / 2 - 24) * mm, note)
    c.showPage()
    c.save()
