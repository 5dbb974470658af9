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

from engine.i18n import _

from ..atomic import atomic_write
from ..render.calibration import draw_calibration
from ..render.fonts import FontError, register_fonts
from ..impose import Flip, LayoutError, paper_size

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
    w, h = paper_size(paper)
    d = margin + INSET_MM
    return [(w / 2, h / 2), (d, d), (w - d, d), (d, h - d), (w - d, h - d)]


def mirrored(paper: str, point: tuple[float, float], flip: Flip) -> tuple[float, float]:
    w, h = paper_size(paper)
    x, y = point
    return (w - x, y) if flip == "long" else (x, h - y)


def write_calibration(path: Path, paper: str = "a4", margin: float = 5.0, flip: Flip = "long",
                      back_offset: tuple[float, float] = (0.0, 0.0)) -> Path:
    """Write the two-page calibration PDF to ``path`` (atomically)."""
    size = paper_size(paper)  # an unknown paper: UnknownPaper, naming the papers there are
    if not math.isfinite(margin) or margin < 0 or not all(math.isfinite(v) for v in back_offset):
        raise LayoutError(_("margin and back offset must be finite millimetres (margin ≥ 0), got {margin!r} and {offset!r}")
                          .format(margin=margin, offset=back_offset))
    fonts = register_fonts()
    note = (f"已应用偏移 X={back_offset[0]:+g} mm, Y={back_offset[1]:+g} mm：十字应对准刻度 0。"
            if any(back_offset) else None)
    texts = [_TITLE_FRONT, _TITLE_BACK, *_instructions(flip), note or ""]
    missing = fonts.missing("".join(texts))
    if missing:  # our own strings, but nothing reaches paper unchecked
        raise FontError(_("the calibration sheet's text needs glyphs the font lacks: {missing!r}").format(missing=missing))
    fronts = targets(paper, margin)
    backs = [(x + back_offset[0], y + back_offset[1]) for x, y in (mirrored(paper, p, flip) for p in fronts)]
    with atomic_write(path) as tmp:
        draw_calibration(tmp, size, fronts, backs, (_TITLE_FRONT, _TITLE_BACK), _instructions(flip), note,
                         fonts, f"cardpress duplex calibration ({paper.upper()}, {flip} edge)")
    return path
