"""A duplex calibration sheet: measure a printer's front/back drift and get ``--back-offset``.

Page 1 carries five crosses (centre and near each corner of the printable area). Page 2 carries
the same five crosses where a perfect long-edge (or short-edge) duplex print puts them behind
page 1, each inside a millimetre scale. Print both sides, hold the sheet against a light, and
read where each front cross falls on the back's scale: that reading *is* the correction to pass
as ``cardpress build --back-offset X,Y`` (x right, y up, as seen on the back page).
"""

from __future__ import annotations

import math
from pathlib import Path

from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from engine.i18n import _

from ..atomic import atomic_write
from ..render.fonts import FontError, register_fonts
from ..impose import PAPERS_MM, Flip, LayoutError

SCALE_MM = 5  # the scale reads ±5 mm, in 0.5 mm steps
INSET_MM = 22  # corner targets this far inside the printable margin


_TITLE_FRONT = "双面打印校准页 · 正面"
_TITLE_BACK = "双面打印校准页 · 背面"


def _instructions(flip: Flip) -> list[str]:
    return [
        f"用与卡牌相同的设置双面打印本文件（{'长边' if flip == 'long' else '短边'}翻转，实际尺寸，不缩放）。",
        "对着光看背面：正面的十字落在背面刻度上的读数，就是要填入的偏移（毫米）。",
        "横向读数为 X（向右为正），纵向读数为 Y（向上为正）：cardpress build 游戏 --back-offset X,Y",
    ]


def targets(paper: str, margin: float) -> list[tuple[float, float]]:
    """Cross positions on the front page (mm, origin bottom-left)."""
    w, h = PAPERS_MM[paper]
    d = margin + INSET_MM
    return [(w / 2, h / 2), (d, d), (w - d, d), (d, h - d), (w - d, h - d)]


def mirrored(paper: str, point: tuple[float, float], flip: Flip) -> tuple[float, float]:
    w, h = PAPERS_MM[paper]
    x, y = point
    return (w - x, y) if flip == "long" else (x, h - y)


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


def write_calibration(path: Path, paper: str = "a4", margin: float = 5.0, flip: Flip = "long",
                      back_offset: tuple[float, float] = (0.0, 0.0)) -> Path:
    """Write the two-page calibration PDF to ``path`` (atomically)."""
    if paper not in PAPERS_MM:
        raise LayoutError(_("unknown paper {paper!r}; use one of: {papers}").format(paper=paper, papers=", ".join(PAPERS_MM)))
    if not math.isfinite(margin) or margin < 0 or not all(math.isfinite(v) for v in back_offset):
        raise LayoutError(_("margin and back offset must be finite millimetres (margin ≥ 0), got {margin!r} and {offset!r}")
                          .format(margin=margin, offset=back_offset))
    fonts = register_fonts()
    texts = [_TITLE_FRONT, _TITLE_BACK, *_instructions(flip)]
    missing = fonts.missing("".join(texts))
    if missing:  # our own strings, but nothing reaches paper unchecked
        raise FontError(_("the calibration sheet's text needs glyphs the font lacks: {missing!r}").format(missing=missing))
    w, h = PAPERS_MM[paper]
    dx, dy = back_offset
    with atomic_write(path) as tmp:
        c = Canvas(str(tmp), pagesize=(w * mm, h * mm), initialFontName=fonts.regular)
        c.setTitle(f"cardpress duplex calibration ({paper.upper()}, {flip} edge)")
        c.setLineWidth(0.25)
        for x, y in targets(paper, margin):
            _cross(c, x, y)
        c.setFont(fonts.bold, 14)
        c.drawCentredString(w / 2 * mm, (h / 2 + 30) * mm, _TITLE_FRONT)
        c.setFont(fonts.regular, 9)
        for n, text in enumerate(_instructions(flip)):
            c.drawCentredString(w / 2 * mm, (h / 2 - 24 - n * 5) * mm, text)
        c.showPage()
        c.setLineWidth(0.25)
        for point in targets(paper, margin):
            x, y = mirrored(paper, point, flip)
            x, y = x + dx, y + dy
            _cross(c, x, y, arm=3)
            _scale(c, x, y, fonts.regular)
        c.setFont(fonts.bold, 14)
        c.drawCentredString(w / 2 * mm, (h / 2 + 30) * mm, _TITLE_BACK)
        if dx or dy:
            c.setFont(fonts.regular, 9)
            c.drawCentredString(w / 2 * mm, (h / 2 - 24) * mm, f"已应用偏移 X={dx:+g} mm, Y={dy:+g} mm：十字应对准刻度 0。")
        c.showPage()
        c.save()
    return path
