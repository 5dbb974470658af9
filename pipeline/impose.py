"""Impose: place cards on sheets, with bleed, crop marks and duplex (or fold-over) backs.

The grid is computed, never assumed: from the paper, the printer's unprintable margin, the card
size, the bleed and the gutter. A home duplex printer shifts the back page against the front by
a millimetre or two, so every layout carries its **drift tolerance**: how far the backs may
shift before something wrong shows on a card's trim. Cards whose gutter ``g`` holds
``i = min(bleed, g/2)`` of each card's bleed (the sheet's outer edges keep ``e ≤ bleed``):

* shifting by ``d`` moves a neighbour's back onto a card once ``d > g − i``;
* it uncovers a card's trim (white paper, or a neighbour's bleed) once ``d > i`` (inside) or
  ``d > e`` (at the sheet's edge).

So the tolerance is ``min(i, e)`` (``g − i ≥ i``); with shared cut lines (``g = 0``) it is 0.
When no gutter is given, gutters from 0 to 2 × bleed are tried in 0.1 mm steps and the outer
bleed may shrink below the bleed asked for (never below ``MIN_EDGE_MM``) if that buys more
tolerance: most cards per sheet first, then the largest tolerance, then upright cards, then
the widest gutter. A4 and Letter both hold 9 poker cards (Letter at a smaller tolerance; the
best layout with fewer cards is kept as ``alternative``, the trade-off the build prints).

Crop marks: every cut line extended outside the bleed on each side where the printable margin
leaves at least ``MIN_MARK_MM`` (the same length on every side, at most ``MARK_MM``), plus ticks
in every gutter on each cut line that crosses it, so a strip keeps its marks after the first cut.

``kind="silhouette"`` / ``kind="cricut"`` (print and cut): registration marks a cutting
machine's optical sensor reads, cards only where it can cut (see ``CutterSpec``), no crop
marks (the blade cuts), a gap of 2 × bleed between cards so each keeps its whole bleed and the
blade follows each outline, the sheet label and scale bar clear of the marks' zones;
``pipeline.outputs.cutfile`` writes the outlines to cut.

``kind="fold"`` (gutterfold): the fronts fill the left half of a page and their backs the
right half, mirrored about the fold line in the page's middle, so folding the sheet (a paper
turned over its long edge, the same mirror as long-edge duplex) puts each back behind its front.

Geometry is in millimetres with the origin at the page's bottom-left (PDF orientation).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

from engine.errors import CardpressError
from engine.i18n import _
from engine.limits import MIN_CARD_MM
from engine.presets import paper as _paper

#: Crop marks start this far outside the bleed, so they never print on the card's bleed.
MARK_GAP_MM = 0.5
#: A crop mark shorter than this is hard to see and to align a blade on.
MIN_MARK_MM = 2.0
#: Outer crop marks are this long where the margin leaves room (shorter, all alike, where not).
MARK_MM = 5.0
MAX_MARK_MM = MARK_MM
#: Gutter ticks stop this short of the cards' corners.
TICK_CLEAR_MM = 0.2
#: The outer bleed may shrink to buy drift tolerance, never below this (or the bleed asked for).
MIN_EDGE_MM = 0.5
GUTTER_STEP_MM = 0.1
#: The sheet label and the scale bar use at most this depth of a margin strip.
STRIP_MM = 4.0
#: The scale bar's length: a user measures it to see the printer did not scale the page.
SCALE_BAR_MM = 50.0
_EPS = 1e-6


def paper_size(paper: str) -> tuple[float, float]:
    """(width, height) mm of ``paper`` (``templates/_common/presets/papers.yaml``)."""
    return _paper(paper).mm


Flip = Literal["long", "short"]
Kind = Literal["duplex", "fold", "silhouette", "cricut"]
KINDS = ("duplex", "fold", "silhouette", "cricut")
CUTTER_KINDS = ("silhouette", "cricut")


@dataclass(frozen=True)
class CutterSpec:
    """Registration marks of a print-and-cut machine, in mm.

    Silhouette Studio ("Type 1", CAMEO/Portrait/Curio): a filled square at the top left and
    L-shaped marks at the top right and bottom left, each 5 mm long and 1 mm thick, inset 10 mm
    from the page's edges by default (10 mm is also the least Studio allows) — see
    https://github.com/fablabnbg/inkscape-silhouette/blob/main/USERGUIDE.md ("mark distance from
    document: Left=10.0mm, Top=10.0mm") and https://alan-cha.github.io/silhouette-card-maker/
    miscellaneous/borderless/ ("Silhouette Studio limits the minimum inset of registration marks
    to 10mm"). Nothing prints in a mark's zone (the mark and ``zone_clear`` around it); the
    cards sit inside the marks' rectangle, clear of those zones.

    Cricut Design Space's Print Then Cut: a black rectangular frame round the printable area,
    whose largest size is 6.75 × 9.25 in on Letter and A4 (Cricut's help page "Print Then Cut
    FAQ"; not found in the search corpus, taken from the issue; a user reports the marks need a
    14 mm margin: https://github.com/luziferius/MTGProxyPrinter/discussions/4). The frame is
    drawn ``frame_gap`` outside that area, ``thick`` wide; the cards' bleed stays inside it.

    The sheet label and scale bar (``SheetLayout.margin_strips``) go where neither sensor looks
    for a mark: inside ``cut_area()`` (Silhouette: the marks' rectangle, the part of the page
    Studio lays designs out in; Cricut: inside the frame, where Design Space prints the design),
    outside every mark zone (``zone_clear`` round each mark), outside the cards' bleed and inside
    the printable margin. The Silhouette sensor searches each mark at its expected position, so
    the region it scans is the page near the marks ("The plotter will search the registration
    marks at the given positions", https://github.com/fablabnbg/inkscape-silhouette/blob/main/
    USERGUIDE.md); no scan region beyond the zones is modelled here, and Studio's own wording on
    keeping the area round the marks clear was not found in the search corpus. The strips sit
    next to the cards' bleed, at most ``STRIP_MM`` deep, which on A4 and Letter keeps them over
    20 mm from every Silhouette mark.
    """

    inset: float = 10.0
    length: float = 5.0
    thick: float = 1.0
    zone_clear: float = 2.0
    area_w: float = 0.0  # cricut: the print-then-cut area (mm); 0: the marks' rectangle
    area_h: float = 0.0
    frame_gap: float = 2.0


SILHOUETTE = CutterSpec()
CRICUT = CutterSpec(thick=1.0, area_w=6.75 * 25.4, area_h=9.25 * 25.4)
CUTTERS = {"silhouette": SILHOUETTE, "cricut": CRICUT}


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
    cols: int  # cards across (on a fold page: fronts across; the backs add as many columns)
    rows: int
    rotated: bool
    card_w: float  # the card's own width/height (upright)
    card_h: float
    #: The bleed kept at the sheet's outer edges, left/right and top/bottom (≤ ``bleed``).
    edge_x: float = -1.0
    edge_y: float = -1.0
    kind: Kind = "duplex"
    #: The best layout with fewer cards and more tolerance: (cards per sheet, tolerance, its --gutter).
    alternative: tuple[int, float, float] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.edge_x < 0:
            object.__setattr__(self, "edge_x", self.bleed)
        if self.edge_y < 0:
            object.__setattr__(self, "edge_y", self.bleed)

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def grid_cols(self) -> int:
        """Columns of cells on a page: the fronts, and on a fold page their backs too."""
        return 2 * self.cols if self.kind == "fold" else self.cols

    @property
    def cell_w(self) -> float:
        return self.card_h if self.rotated else self.card_w

    @property
    def cell_h(self) -> float:
        return self.card_w if self.rotated else self.card_h

    @property
    def block_w(self) -> float:
        """Width of all trims and gutters (bleed excluded)."""
        return self.grid_cols * self.cell_w + (self.grid_cols - 1) * self.gutter

    @property
    def block_h(self) -> float:
        return self.rows * self.cell_h + (self.rows - 1) * self.gutter

    @property
    def origin(self) -> tuple[float, float]:
        """Bottom-left of the trim block, centred on the page."""
        return (self.paper_w - self.block_w) / 2, (self.paper_h - self.block_h) / 2

    @property
    def inner_bleed(self) -> float:
        """How much of each card's bleed shows in a gutter."""
        return min(self.bleed, self.gutter / 2)

    @property
    def drift_tolerance_xy(self) -> tuple[float, float]:
        """Drift (mm) across and up/down the backs stand before anything wrong shows on a trim."""
        tx = min(self.edge_x, self.inner_bleed if self.grid_cols > 1 else math.inf)
        ty = min(self.edge_y, self.inner_bleed if self.rows > 1 else math.inf)
        return tx, ty

    @property
    def drift_tolerance(self) -> float:
        """See the module doc: ``min(inner bleed, outer bleed)``; 0 with shared cut lines."""
        return round(min(self.drift_tolerance_xy), 3)

    @property
    def cutter(self) -> CutterSpec | None:
        return CUTTERS.get(self.kind)

    def cut_area(self) -> tuple[float, float, float, float]:
        """Where a cutter's cards (bleed included) may go: x0, y0, x1, y1 (the page for others)."""
        spec = self.cutter
        if spec is None:
            return 0.0, 0.0, self.paper_w, self.paper_h
        if spec.area_w:
            x0, y0 = (self.paper_w - spec.area_w) / 2, (self.paper_h - spec.area_h) / 2
            return x0, y0, x0 + spec.area_w, y0 + spec.area_h
        return spec.inset, spec.inset, self.paper_w - spec.inset, self.paper_h - spec.inset

    def registration_marks(self) -> list[tuple[float, float, float, float]]:
        """The filled rectangles (x0, y0, x1, y1, mm) a cutter's sensor reads; [] for others."""
        return registration_marks(self.kind, self.paper_w, self.paper_h)

    def mark_zones(self) -> list[tuple[float, float, float, float]]:
        """Where nothing else may print: each mark (a frame: its bars) with ``zone_clear`` round it."""
        spec = self.cutter
        if spec is None:
            return []
        c = spec.zone_clear
        if spec.area_w:  # the frame's bars
            return [(x0 - c, y0 - c, x1 + c, y1 + c) for x0, y0, x1, y1 in self.registration_marks()]
        w, h, i, n = self.paper_w, self.paper_h, spec.inset, spec.length
        return [(i - c, h - i - n - c, i + n + c, h - i + c),  # top-left square
                (w - i - n - c, h - i - n - c, w - i + c, h - i + c),  # top-right L
                (i - c, i - c, i + n + c, i + n + c)]  # bottom-left L

    def bleed_boxes(self) -> list[tuple[float, float, float, float]]:
        return [cell.clip for cell in self.front_cells()]

    def describe(self) -> str:
        if self.cutter is not None:
            return self._describe_cutter()
        orient = _("cards upright") if not self.rotated else _("cards lying down")
        bleed = _("own bleed on every side") if self.gutter + _EPS >= 2 * self.bleed else _("shared cut lines")
        if self.gutter > _EPS and self.gutter + _EPS < 2 * self.bleed:
            bleed = _("{inner:g} mm of bleed each into it").format(inner=round(self.inner_bleed, 2))
        if self.kind == "fold":
            what = _("gutterfold: fronts left, backs right, fold on the dashed line; tolerates ±{tol:g} mm "
                     "of fold error").format(tol=self.drift_tolerance)
        else:
            what = _("tolerates ±{tol:g} mm duplex drift").format(tol=self.drift_tolerance)
        edge = min(self.edge_x, self.edge_y)
        return (_("{cols}×{rows} = {per_sheet} per {paper} sheet, {orient}, gutter {gutter:g} mm ({bleed}), "
                  "bleed {bleed_mm:g} mm (outer edge {edge:g} mm), margin {margin:g} mm, {what}")
                .format(cols=self.cols, rows=self.rows, per_sheet=self.per_sheet, paper=self.paper.upper(),
                        orient=orient, gutter=round(self.gutter, 2), bleed=bleed, bleed_mm=self.bleed,
                        edge=round(edge, 2), margin=self.margin, what=what))

    def _describe_cutter(self) -> str:
        orient = _("cards upright") if not self.rotated else _("cards lying down")
        if self.kind == "silhouette":
            marks = _("Silhouette print-and-cut marks (square top left, L-marks top right and bottom left, "
                      "{length:g} mm × {thick:g} mm, {inset:g} mm from the edges)").format(
                length=SILHOUETTE.length, thick=SILHOUETTE.thick, inset=SILHOUETTE.inset)
        else:
            marks = _("Cricut Print Then Cut frame round a {w:g} × {h:g} in area").format(w=6.75, h=9.25)
        text = (_("{cols}×{rows} = {per_sheet} per {paper} sheet, {orient}, gap {gutter:g} mm, bleed {bleed_mm:g} mm, "
                  "{marks}; no crop marks: cut file beside the PDF (SVG and DXF)")
                .format(cols=self.cols, rows=self.rows, per_sheet=self.per_sheet, paper=self.paper.upper(),
                        orient=orient, gutter=round(self.gutter, 2), bleed_mm=self.bleed, marks=marks))
        label, bar = self.furniture_strips()
        if label is None:
            text += "; " + _("no room clear of the marks and cards for the sheet label and the {mm:g} mm scale bar: "
                             "check with a ruler that the printer did not scale the page").format(mm=SCALE_BAR_MM)
        elif bar is None:
            text += "; " + _("no room clear of the marks and cards for the {mm:g} mm scale bar: check with a ruler "
                             "that the printer did not scale the page").format(mm=SCALE_BAR_MM)
        return text

    def trade_off(self) -> str | None:
        """What more tolerance would cost in cards per sheet, when a layout with fewer has more."""
        if self.alternative is None:
            return None
        n, tol, gutter = self.alternative
        return (_("{paper}: {n} per sheet would tolerate ±{tol:g} mm (this layout: {per_sheet} per sheet, "
                  "±{mine:g} mm): --gutter {gutter:g} prints that")
                .format(paper=self.paper.upper(), n=n, tol=tol, per_sheet=self.per_sheet, mine=self.drift_tolerance,
                        gutter=gutter))

    # ------------------------------------------------------------------ positions
    def _clip(self, x: float, y: float, col: int, row: int) -> tuple[float, float, float, float]:
        inner = self.inner_bleed
        left = self.edge_x if col == 0 else inner
        right = self.edge_x if col == self.grid_cols - 1 else inner
        top = self.edge_y if row == 0 else inner
        bottom = self.edge_y if row == self.rows - 1 else inner
        return x - left, y - bottom, x + self.cell_w + right, y + self.cell_h + top

    def _grid(self, cols: range) -> list[Cell]:
        ox, oy = self.origin
        rot = 90 if self.rotated else 0
        cells = []
        for row in range(self.rows):
            for col in cols:
                x = ox + col * (self.cell_w + self.gutter)
                y = oy + self.block_h - self.cell_h - row * (self.cell_h + self.gutter)
                cells.append(Cell(x, y, self.cell_w, self.cell_h, rot, self._clip(x, y, col, row)))
        return cells

    def front_cells(self) -> list[Cell]:
        """Cells in reading order (rows top to bottom, columns left to right)."""
        return self._grid(range(self.cols))

    def back_cells(self, flip: Flip = "long", offset: tuple[float, float] = (0.0, 0.0)) -> list[Cell]:
        """Where the back of each front cell prints, in the same order as ``front_cells``.

        Portrait paper turned over its long edge mirrors x (the back is drawn at -rotation);
        over its short edge it mirrors y (the back turns 180°). ``offset`` (mm, x right / y up
        as seen on the back page) corrects a printer's duplex drift. On a fold page the backs
        mirror x about the fold line, on the same page (``flip`` and ``offset`` do not apply).
        """
        if self.kind == "fold":
            flip, offset = "long", (0.0, 0.0)
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

    def fold_line(self) -> tuple[float, float, float, float] | None:
        """The fold line (x0, y0, x1, y1) of a fold page: the page's middle, across the cards' rows."""
        if self.kind != "fold":
            return None
        _ox, oy = self.origin
        x = self.paper_w / 2
        return x, oy - self.edge_y, x, oy + self.block_h + self.edge_y

    def cut_lines(self) -> tuple[list[float], list[float]]:
        """x positions of vertical cut lines and y positions of horizontal ones (mm)."""
        ox, oy = self.origin
        xs, ys = [], []
        for col in range(self.grid_cols):
            x = ox + col * (self.cell_w + self.gutter)
            xs += [x, x + self.cell_w]
        for row in range(self.rows):
            y = oy + row * (self.cell_h + self.gutter)
            ys += [y, y + self.cell_h]
        return sorted(set(round(v, 6) for v in xs)), sorted(set(round(v, 6) for v in ys))

    def mark_room(self) -> dict[str, float]:
        """Depth (mm) between the bleed (plus ``MARK_GAP_MM``) and the printable margin on each
        side: "top", "bottom", "left", "right"."""
        ox, oy = self.origin
        x_room = ox - self.edge_x - MARK_GAP_MM - self.margin
        y_room = oy - self.edge_y - MARK_GAP_MM - self.margin
        return {"top": y_room, "bottom": y_room, "left": x_room, "right": x_room}

    @property
    def mark_length(self) -> float:
        """The outer crop marks' length, the same on every side that has them (0: none fit)."""
        rooms = [r for r in self.mark_room().values() if r + _EPS >= MIN_MARK_MM]
        return round(min([MARK_MM, *rooms]), 3) if rooms else 0.0

    def mark_sides(self) -> list[str]:
        length = self.mark_length
        return [side for side, r in self.mark_room().items() if length and r + _EPS >= length]

    def crop_marks(self) -> list[tuple[float, float, float, float]]:
        """Outer crop mark segments (x0, y0, x1, y1) in mm: each cut line extended outside the
        bleed, ``mark_length`` long, on the sides the printable margin leaves room on (none for a
        cutter: its blade cuts)."""
        if self.cutter is not None:
            return []
        ox, oy = self.origin
        xs, ys = self.cut_lines()
        left, right = ox - self.edge_x - MARK_GAP_MM, ox + self.block_w + self.edge_x + MARK_GAP_MM
        bottom, top = oy - self.edge_y - MARK_GAP_MM, oy + self.block_h + self.edge_y + MARK_GAP_MM
        length, sides = self.mark_length, self.mark_sides()
        segs = []
        for x in xs:
            if "top" in sides:
                segs.append((x, top, x, top + length))
            if "bottom" in sides:
                segs.append((x, bottom, x, bottom - length))
        for y in ys:
            if "left" in sides:
                segs.append((left, y, left - length, y))
            if "right" in sides:
                segs.append((right, y, right + length, y))
        return segs

    def gutter_ticks(self) -> list[tuple[float, float, float, float]]:
        """Ticks inside the gutters: every vertical cut line across each gap between rows, every
        horizontal one across each gap between columns (stopping ``TICK_CLEAR_MM`` short of the
        cards), so the strips a first cut leaves still carry the marks of the other direction."""
        if self.gutter < 2 * TICK_CLEAR_MM + 0.2 or self.cutter is not None:
            return []
        ox, oy = self.origin
        xs, ys = self.cut_lines()
        segs = []
        for row in range(self.rows - 1):  # gaps between rows: [top of a row, bottom of the row above]
            y0 = oy + row * (self.cell_h + self.gutter) + self.cell_h
            for x in xs:
                segs.append((x, y0 + TICK_CLEAR_MM, x, y0 + self.gutter - TICK_CLEAR_MM))
        for col in range(self.grid_cols - 1):
            x0 = ox + col * (self.cell_w + self.gutter) + self.cell_w
            for y in ys:
                segs.append((x0 + TICK_CLEAR_MM, y, x0 + self.gutter - TICK_CLEAR_MM, y))
        return segs

    def margin_strips(self) -> list[tuple[str, float, float, float]]:
        """Where a label or scale bar may go: (side, lo, hi, depth) — a stretch along a side's
        margin between two neighbouring cut lines (so it crosses no crop mark), its extent along
        the side in mm, and how deep the room is. Top and bottom first, wider stretches first.
        A cutter's strips avoid its marks' zones instead (``_cutter_strips``)."""
        if self.cutter is not None:
            return self._cutter_strips()
        xs, ys = self.cut_lines()
        room = self.mark_room()
        out = []
        for side in ("top", "bottom", "left", "right"):
            lines = xs if side in ("top", "bottom") else ys
            for lo, hi in zip(lines, lines[1:]):
                if hi - lo > 20:
                    out.append((side, lo, hi, room[side]))
        return [s for s in out if s[3] > 1.5]

    def _cutter_strips(self) -> list[tuple[str, float, float, float]]:
        """A cutter's strips: next to the cards' bleed (``MARK_GAP_MM`` off it), at most
        ``STRIP_MM`` deep, inside the cut area and the printable margin, each stretch ending
        where a mark zone crosses the strip (so nothing printed there can be read as a mark;
        see ``CutterSpec``). No crop marks to stay between: a stretch runs the strip's length."""
        ox, oy = self.origin
        ax0, ay0, ax1, ay1 = self.cut_area()
        m = self.margin
        ax0, ay0, ax1, ay1 = max(ax0, m), max(ay0, m), min(ax1, self.paper_w - m), min(ay1, self.paper_h - m)
        left, right = ox - self.edge_x - MARK_GAP_MM, ox + self.block_w + self.edge_x + MARK_GAP_MM
        bottom, top = oy - self.edge_y - MARK_GAP_MM, oy + self.block_h + self.edge_y + MARK_GAP_MM
        depths = {"top": ay1 - top, "bottom": bottom - ay0, "left": left - ax0, "right": ax1 - right}
        zones = self.mark_zones()
        out = []
        for side in ("top", "bottom", "left", "right"):
            depth = min(depths[side], STRIP_MM)
            if depth <= 1.5:
                continue
            if side in ("top", "bottom"):
                y0 = top if side == "top" else bottom - depth
                rect, lo, hi = (ax0, y0, ax1, y0 + depth), ax0, ax1
                blocked = [(z[0], z[2]) for z in zones if _overlaps(rect, z)]
            else:
                x0 = left - depth if side == "left" else right
                rect, lo, hi = (x0, ay0, x0 + depth, ay1), ay0, ay1
                blocked = [(z[1], z[3]) for z in zones if _overlaps(rect, z)]
            for a, b in _free(lo, hi, blocked):
                if b - a > 20:
                    out.append((side, a, b, depth))
        return out

    def furniture_strips(self) -> tuple[tuple[str, float, float, float] | None, tuple[str, float, float, float] | None]:
        """The strips (``margin_strips``) the sheet label and the scale bar go in, None where none
        has room: the label in the widest top or bottom strip (a side's if none), the bar in
        another strip at least ``SCALE_BAR_MM`` + 2 mm long, on another side when one has room."""
        strips = sorted(self.margin_strips(), key=lambda s: (s[0] not in ("top", "bottom"), -(s[2] - s[1])))
        if not strips:
            return None, None
        rest = [s for s in strips[1:] if s[2] - s[1] >= SCALE_BAR_MM + 2]
        rest.sort(key=lambda s: s[0] == strips[0][0])  # another side than the label's when there is one
        return strips[0], (rest[0] if rest else None)


def _free(lo: float, hi: float, blocked: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """What of [lo, hi] the ``blocked`` intervals leave, in order."""
    out, at = [], lo
    for a, b in sorted(blocked):
        if a > at + _EPS:
            out.append((at, min(a, hi)))
        at = max(at, b)
    if hi > at + _EPS:
        out.append((at, hi))
    return [(a, b) for a, b in out if b > a + _EPS]


def registration_marks(kind: str, w: float, h: float) -> list[tuple[float, float, float, float]]:
    """The filled rectangles of ``kind``'s registration marks on a ``w`` × ``h`` mm page."""
    spec = CUTTERS.get(kind)
    if spec is None:
        return []
    t = spec.thick
    if spec.area_w:  # Cricut: a frame of four bars, ``frame_gap`` outside the area
        x0, y0 = (w - spec.area_w) / 2 - spec.frame_gap - t, (h - spec.area_h) / 2 - spec.frame_gap - t
        x1, y1 = w - x0, h - y0
        return [(x0, y1 - t, x1, y1), (x0, y0, x1, y0 + t), (x0, y0 + t, x0 + t, y1 - t), (x1 - t, y0 + t, x1, y1 - t)]
    i, n = spec.inset, spec.length
    return [(i, h - i - n, i + n, h - i),  # the filled square, top left
            (w - i - n, h - i - t, w - i, h - i), (w - i - t, h - i - n, w - i, h - i - t),  # L, top right
            (i, i, i + n, i + t), (i, i + t, i + t, i + n)]  # L, bottom left


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] - _EPS and b[0] < a[2] - _EPS and a[1] < b[3] - _EPS and b[1] < a[3] - _EPS


def cutter_layouts(paper: str, card_w: float, card_h: float, bleed: float, margin: float,
                   gutter: float | None, kind: Kind) -> list[SheetLayout]:
    """A cutter's grids: every card's full bleed inside the cut area and clear of the marks'
    zones, ``gutter`` (default 2 × bleed, at least 1 mm) between cards; most cards first."""
    pw, ph = paper_size(paper)
    g = gutter if gutter is not None else max(2 * bleed, 1.0)
    found = []
    for rotated in (False, True):
        cw, ch = (card_h, card_w) if rotated else (card_w, card_h)
        probe = SheetLayout(paper, pw, ph, margin, bleed, g, 1, 1, rotated, card_w, card_h, bleed, bleed, kind)
        x0, y0, x1, y1 = probe.cut_area()
        x0, y0, x1, y1 = max(x0, margin), max(y0, margin), min(x1, pw - margin), min(y1, ph - margin)
        # the block is centred on the page: fit it in the area's part symmetric about the centre
        room_w = 2 * min(pw / 2 - x0, x1 - pw / 2) - 2 * bleed
        room_h = 2 * min(ph / 2 - y0, y1 - ph / 2) - 2 * bleed
        max_c = int((room_w + g + _EPS) // (cw + g)) if room_w > 0 else 0
        max_r = int((room_h + g + _EPS) // (ch + g)) if room_h > 0 else 0
        for cols in range(max_c, 0, -1):
            for rows in range(max_r, 0, -1):
                lay = SheetLayout(paper, pw, ph, margin, bleed, g, cols, rows, rotated, card_w, card_h,
                                  bleed, bleed, kind)
                zones = lay.mark_zones()
                if not any(_overlaps(box, z) for box in lay.bleed_boxes() for z in zones):
                    found.append(lay)
    found.sort(key=lambda lay: (lay.per_sheet, not lay.rotated, lay.cols), reverse=True)
    return found


def _axis(n: int, cell: float, gutter: float, bleed: float, room: float) -> float | None:
    """The outer bleed ``n`` cells keep on an axis of ``room`` mm, None if they do not fit."""
    edge = round(min(bleed, (room - n * cell - (n - 1) * gutter) / 2), 6)
    return edge if edge + _EPS >= min(bleed, MIN_EDGE_MM) else None


def _count(cell: float, gutter: float, bleed: float, room: float, step: int = 1) -> int:
    n = 0
    while _axis(n + step, cell, gutter, bleed, room) is not None:
        n += step
    return n


def _gutters(bleed: float, gutter: float | None) -> list[float]:
    if gutter is not None:
        return [gutter]
    steps = int(round(2 * bleed / GUTTER_STEP_MM))
    return [round(k * GUTTER_STEP_MM, 3) for k in range(steps + 1)]


def candidate_layouts(paper: str, card_w: float, card_h: float, bleed: float = 3.0, margin: float = 5.0,
                      gutter: float | None = None, kind: Kind = "duplex") -> list[SheetLayout]:
    """Every layout tried (both orientations, each gutter), best first (see the module doc)."""
    if kind in CUTTER_KINDS:
        return cutter_layouts(paper, card_w, card_h, bleed, margin, gutter, kind)
    pw, ph = paper_size(paper)
    room_w, room_h = pw - 2 * margin, ph - 2 * margin
    found = []
    for rotated in (False, True):
        cw, ch = (card_h, card_w) if rotated else (card_w, card_h)
        for g in _gutters(bleed, gutter):
            grid_cols = _count(cw, g, bleed, room_w, 2 if kind == "fold" else 1)
            rows = _count(ch, g, bleed, room_h)
            if not (grid_cols and rows):
                continue
            # Fewer cells than fit may leave more outer bleed: try the most that fit only.
            ex, ey = _axis(grid_cols, cw, g, bleed, room_w), _axis(rows, ch, g, bleed, room_h)
            cols = grid_cols // 2 if kind == "fold" else grid_cols
            found.append(SheetLayout(paper, pw, ph, margin, bleed, g, cols, rows, rotated, card_w, card_h,
                                     ex, ey, kind))
    found.sort(key=lambda lay: (lay.per_sheet, lay.drift_tolerance, not lay.rotated, lay.gutter), reverse=True)
    return found


def choose_layout(paper: str, card_w: float, card_h: float, bleed: float = 3.0, margin: float = 5.0,
                  gutter: float | None = None, kind: Kind = "duplex") -> SheetLayout:
    """The best grid for ``paper`` (see module doc). Raises ``LayoutError`` if nothing fits.

    >>> choose_layout("a4", 63, 88).per_sheet
    9
    """
    paper_size(paper)  # an unknown paper: UnknownPaper, naming the papers there are
    if kind not in KINDS:
        raise LayoutError(_("unknown layout {layout!r}; use one of: {layouts}").format(layout=kind, layouts=", ".join(KINDS)))
    lengths = [bleed, margin] + ([gutter] if gutter is not None else [])
    if not all(math.isfinite(v) and v >= 0 for v in lengths):
        raise LayoutError(_("bleed, margin and gutter must be finite and not negative"))
    # A zero-sized card would fit infinitely often: counting cells would never end.
    if not all(math.isfinite(v) and v >= MIN_CARD_MM for v in (card_w, card_h)):
        raise LayoutError(_("a card side must be at least {min:g} mm, got {w!r} × {h!r}")
                          .format(min=MIN_CARD_MM, w=card_w, h=card_h))
    found = candidate_layouts(paper, card_w, card_h, bleed, margin, gutter, kind)
    if not found:
        raise LayoutError(
            _("a {w:g} × {h:g} mm card with {bleed:g} mm bleed and room for crop marks does not fit "
              "{paper} paper inside a {margin:g} mm margin")
            .format(w=card_w, h=card_h, bleed=bleed, paper=paper.upper(), margin=margin)
        )
    best = found[0]
    if gutter is None and kind not in CUTTER_KINDS:
        # The trade-off: the most cards a layout with more tolerance keeps, if --gutter reaches it.
        for alt in sorted((lay for lay in found if lay.drift_tolerance > best.drift_tolerance + _EPS),
                          key=lambda lay: (lay.per_sheet, lay.drift_tolerance), reverse=True):
            again = candidate_layouts(paper, card_w, card_h, bleed, margin, alt.gutter, kind)[0]
            if again.drift_tolerance > best.drift_tolerance + _EPS:
                best = _with_alternative(best, (again.per_sheet, again.drift_tolerance, again.gutter))
                break
    return best


def _with_alternative(layout: SheetLayout, alternative: tuple[int, float, bool]) -> SheetLayout:
    from dataclasses import replace

    return replace(layout, alternative=alternative)
