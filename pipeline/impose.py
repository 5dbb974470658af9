"""Impose: place cards on sheets, with bleed, crop marks and duplex backs.

The grid is computed, never assumed: from the paper, the printer's unprintable margin, the card
size, the bleed, the gutter and the room crop marks need. Two gutters are tried when none is
given: ``2 × bleed`` (each card keeps its full bleed on every side) and ``0`` (cards butt on
shared cut lines; the bleed surrounds the block). Both card orientations are tried (on Letter
8 cards lying down beat 6 standing). The most cards per sheet wins; ties prefer upright cards
and then wider gutters.

Geometry is in millimetres with the origin at the page's bottom-left (PDF orientation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from engine.errors import CardpressError
from engine.i18n import _
from engine.limits import MIN_CARD_MM

PAPERS_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
#: Crop marks start this far outside the bleed, so they never print on the card's bleed.
MARK_GAP_MM = 0.5
#: A crop mark shorter than this is hard to see and to align a blade on.
MIN_MARK_MM = 2.0
MAX_MARK_MM = 6.0
_EPS = 1e-6

Flip = Literal["long", "short"]


class LayoutError(CardpressError):
    """The card cannot be placed on the paper with the margin, bleed and gutter asked for."""


@dataclass(frozen=True)
class Cell:
    """One card position: trim box bottom-left (x, y) and size as placed, rotation in degrees."""

    x: float
    y: float
    w: float
    h: float
    rotation: int
    clip: tuple[float, float, float, float]  # x0, y0, x1, y1: what of the card's bleed shows


@dataclass(frozen=True)
class SheetLayout:
    paper: str
    paper_w: float
    paper_h: float
    margin: float
    bleed: float
    gutter: float
    cols: int
    rows: int
    rotated: bool
    card_w: float  # the card's own width/height (upright)
    card_h: float

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def cell_w(self) -> float:
        return self.card_h if self.rotated else self.card_w

    @property
    def cell_h(self) -> float:
        return self.card_w if self.rotated else self.card_h

    @property
    def block_w(self) -> float:
        """Width of all trims and gutters (bleed excluded)."""
        return self.cols * self.cell_w + (self.cols - 1) * self.gutter

    @property
    def block_h(self) -> float:
        return self.rows * self.cell_h + (self.rows - 1) * self.gutter

    @property
    def origin(self) -> tuple[float, float]:
        """Bottom-left of the trim block, centred on the page."""
        return (self.paper_w - self.block_w) / 2, (self.paper_h - self.block_h) / 2

    def describe(self) -> str:
        orient = _("cards lying down") if self.rotated else _("cards upright")
        bleed = _("own bleed on every side") if self.gutter + _EPS >= 2 * self.bleed else _("shared cut lines")
        return (_("{cols}×{rows} = {per_sheet} per {paper} sheet, {orient}, gutter {gutter:g} mm ({bleed}), "
                  "bleed {bleed_mm:g} mm, margin {margin:g} mm")
                .format(cols=self.cols, rows=self.rows, per_sheet=self.per_sheet, paper=self.paper.upper(),
                        orient=orient, gutter=self.gutter, bleed=bleed, bleed_mm=self.bleed, margin=self.margin))

    # ------------------------------------------------------------------ positions
    def _clip(self, x: float, y: float, col: int, row: int) -> tuple[float, float, float, float]:
        inner = min(self.bleed, self.gutter / 2)
        left = self.bleed if col == 0 else inner
        right = self.bleed if col == self.cols - 1 else inner
        top = self.bleed if row == 0 else inner
        bottom = self.bleed if row == self.rows - 1 else inner
        return x - left, y - bottom, x + self.cell_w + right, y + self.cell_h + top

    def front_cells(self) -> list[Cell]:
        """Cells in reading order (rows top to bottom, columns left to right)."""
        ox, oy = self.origin
        rot = 90 if self.rotated else 0
        cells = []
        for row in range(self.rows):
            for col in range(self.cols):
                x = ox + col * (self.cell_w + self.gutter)
                y = oy + self.block_h - self.cell_h - row * (self.cell_h + self.gutter)
                cells.append(Cell(x, y, self.cell_w, self.cell_h, rot, self._clip(x, y, col, row)))
        return cells

    def back_cells(self, flip: Flip = "long", offset: tuple[float, float] = (0.0, 0.0)) -> list[Cell]:
        """Where the back of each front cell prints, in the same order as ``front_cells``.

        Portrait paper turned over its long edge mirrors x (the back is drawn at -rotation);
        over its short edge it mirrors y (the back turns 180°). ``offset`` (mm, x right / y up
        as seen on the back page) corrects a printer's duplex drift.
        """
        dx, dy = offset
        out = []
        for cell in self.front_cells():
            if flip == "long":
                x, y, rot = self.paper_w - cell.x - cell.w, cell.y, (-cell.rotation) % 360
                x0, y0, x1, y1 = cell.clip
                clip = (self.paper_w - x1, y0, self.paper_w - x0, y1)
            else:
                x, y, rot = cell.x, self.paper_h - cell.y - cell.h, (180 - cell.rotation) % 360
                x0, y0, x1, y1 = cell.clip
                clip = (x0, self.paper_h - y1, x1, self.paper_h - y0)
            out.append(Cell(x + dx, y + dy, cell.w, cell.h, rot,
                            (clip[0] + dx, clip[1] + dy, clip[2] + dx, clip[3] + dy)))
        return out

    def cut_lines(self) -> tuple[list[float], list[float]]:
        """x positions of vertical cut lines and y positions of horizontal ones (mm)."""
        ox, oy = self.origin
        xs, ys = [], []
        for col in range(self.cols):
            x = ox + col * (self.cell_w + self.gutter)
            xs += [x, x + self.cell_w]
        for row in range(self.rows):
            y = oy + row * (self.cell_h + self.gutter)
            ys += [y, y + self.cell_h]
        return sorted(set(round(v, 6) for v in xs)), sorted(set(round(v, 6) for v in ys))

    def crop_marks(self) -> list[tuple[float, float, float, float]]:
        """Crop mark segments (x0, y0, x1, y1) in mm: each cut line extended outside the bleed,
        ending at the printable margin (never on a card, never off the printable area)."""
        ox, oy = self.origin
        xs, ys = self.cut_lines()
        left, right = ox - self.bleed - MARK_GAP_MM, ox + self.block_w + self.bleed + MARK_GAP_MM
        bottom, top = oy - self.bleed - MARK_GAP_MM, oy + self.block_h + self.bleed + MARK_GAP_MM
        lo_x, hi_x = self.margin, self.paper_w - self.margin
        lo_y, hi_y = self.margin, self.paper_h - self.margin
        segs = []
        for x in xs:
            segs.append((x, top, x, min(top + MAX_MARK_MM, hi_y)))
            segs.append((x, bottom, x, max(bottom - MAX_MARK_MM, lo_y)))
        for y in ys:
            segs.append((left, y, max(left - MAX_MARK_MM, lo_x), y))
            segs.append((right, y, min(right + MAX_MARK_MM, hi_x), y))
        return segs


def _fits(n: int, cell: float, gutter: float, bleed: float, room: float) -> bool:
    need = n * cell + (n - 1) * gutter + 2 * (bleed + MARK_GAP_MM + MIN_MARK_MM)
    return need <= room + _EPS


def _count(cell: float, gutter: float, bleed: float, room: float) -> int:
    n = 0
    while _fits(n + 1, cell, gutter, bleed, room):
        n += 1
    return n


def choose_layout(paper: str, card_w: float, card_h: float, bleed: float = 3.0, margin: float = 5.0,
                  gutter: float | None = None) -> SheetLayout:
    """The best grid for ``paper`` (see module doc). Raises ``LayoutError`` if nothing fits.

    >>> choose_layout("a4", 63, 88).per_sheet
    9
    """
    if paper not in PAPERS_MM:
        raise LayoutError(_("unknown paper {paper!r}; use one of: {papers}").format(paper=paper, papers=", ".join(PAPERS_MM)))
    lengths = [bleed, margin] + ([gutter] if gutter is not None else [])
    if not all(math.isfinite(v) and v >= 0 for v in lengths):
        raise LayoutError(_("bleed, margin and gutter must be finite and not negative"))
    # A zero-sized card would fit infinitely often: counting cells would never end.
    if not all(math.isfinite(v) and v >= MIN_CARD_MM for v in (card_w, card_h)):
        raise LayoutError(_("a card side must be at least {min:g} mm, got {w!r} × {h!r}")
                          .format(min=MIN_CARD_MM, w=card_w, h=card_h))
    pw, ph = PAPERS_MM[paper]
    room_w, room_h = pw - 2 * margin, ph - 2 * margin
    gutters = [gutter] if gutter is not None else [2 * bleed, 0.0]
    best: tuple | None = None
    for rotated in (False, True):
        cw, ch = (card_h, card_w) if rotated else (card_w, card_h)
        for g in gutters:
            cols, rows = _count(cw, g, bleed, room_w), _count(ch, g, bleed, room_h)
            if cols and rows:
                score = (cols * rows, not rotated, g)
                if best is None or score > best[0]:
                    best = (score, SheetLayout(paper, pw, ph, margin, bleed, g, cols, rows, rotated, card_w, card_h))
    if best is None:
        raise LayoutError(
            _("a {w:g} × {h:g} mm card with {bleed:g} mm bleed and room for crop marks does not fit "
              "{paper} paper inside a {margin:g} mm margin")
            .format(w=card_w, h=card_h, bleed=bleed, paper=paper.upper(), margin=margin)
        )
    return best[1]
