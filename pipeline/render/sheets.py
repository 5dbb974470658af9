"""Card sheets as a printer and a cutter read them: each page of a build's PDF.

A sheet's front page places the faces' forms (``render.forms``) in the cells of its
``SheetLayout`` (``pipeline.impose``: where the cells, marks and margins are), clipped to each
card's bleed; its back page places the backs, mirrored for the duplex flip (a fold layout puts
both on one page, beside a fold line). On top: crop marks outside the block and ticks in the
gutters, a cutter's registration marks, and in the margin the sheet label and a 50 mm scale bar.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from engine.definitions import GameDefinition
from engine.i18n import _

from ..impose import MARK_GAP_MM, SCALE_BAR_MM, STRIP_MM, Cell, SheetLayout
from ..progress import SHEETS, Label, Progress
from .fonts import FontError
from .streams import compress_page

if TYPE_CHECKING:
    from engine.cards import Card

    from ..plan import BuildOptions, Prepared

CROP_MARK_WIDTH_PT = 0.3  # hairline, as printers expect
#: Gutter ticks sit on the cards' bleed: a white line under the hairline keeps them visible on dark art.
TICK_HALO_PT = 1.0
SCALE_BAR_WIDTH_PT = 0.4  # not the crop marks' hairline: a reader of the PDF tells them apart


def _place(c: Canvas, cell: Cell, form: str) -> None:
    c.saveState()
    x0, y0, x1, y1 = cell.clip
    path = c.beginPath()
    path.rect(x0 * mm, y0 * mm, (x1 - x0) * mm, (y1 - y0) * mm)
    c.clipPath(path, stroke=0, fill=0)
    x, y, w, h = cell.x * mm, cell.y * mm, cell.w * mm, cell.h * mm
    if cell.rotation == 90:
        c.translate(x + w, y)
        c.rotate(90)
    elif cell.rotation == 270:
        c.translate(x, y + h)
        c.rotate(-90)
    elif cell.rotation == 180:
        c.translate(x + w, y + h)
        c.rotate(180)
    else:
        c.translate(x, y)
    c.doForm(form)
    c.restoreState()


def _boxes(c: Canvas, layout: SheetLayout, cells: list[Cell]) -> None:
    x0 = min(cell.x for cell in cells)
    y0 = min(cell.y for cell in cells)
    x1 = max(cell.x + cell.w for cell in cells)
    y1 = max(cell.y + cell.h for cell in cells)
    bx, by = layout.edge_x, layout.edge_y
    c.setTrimBox((x0 * mm, y0 * mm, x1 * mm, y1 * mm))
    c.setBleedBox(((x0 - bx) * mm, (y0 - by) * mm, (x1 + bx) * mm, (y1 + by) * mm))


def _crop_marks(c: Canvas, layout: SheetLayout, offset: tuple[float, float] = (0.0, 0.0)) -> None:
    """Outer marks, and the gutter ticks (hairlines on a white halo: they sit on the bleed).
    A back page's marks are its front's shifted by the back offset (the block is centred, so
    mirroring leaves the cut lines where they were)."""
    dx, dy = offset
    c.saveState()
    c.setLineCap(0)
    ticks = layout.gutter_ticks()
    if ticks:
        c.setStrokeColorRGB(1, 1, 1)
        c.setLineWidth(TICK_HALO_PT)
        for x0, y0, x1, y1 in ticks:
            c.line((x0 + dx) * mm, (y0 + dy) * mm, (x1 + dx) * mm, (y1 + dy) * mm)
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(CROP_MARK_WIDTH_PT)
    for x0, y0, x1, y1 in layout.crop_marks() + ticks:
        c.line((x0 + dx) * mm, (y0 + dy) * mm, (x1 + dx) * mm, (y1 + dy) * mm)
    c.restoreState()


def _registration_marks(c: Canvas, layout: SheetLayout) -> None:
    """A cutter's registration marks (``SheetLayout.registration_marks``), solid black."""
    marks = layout.registration_marks()
    if not marks:
        return
    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    for x0, y0, x1, y1 in marks:
        c.rect(x0 * mm, y0 * mm, (x1 - x0) * mm, (y1 - y0) * mm, stroke=0, fill=1)
    c.restoreState()


def _fold_line(c: Canvas, layout: SheetLayout) -> None:
    line = layout.fold_line()
    if line is None:
        return
    x0, y0, x1, y1 = line
    c.saveState()
    c.setStrokeColorRGB(0.35, 0.35, 0.35)
    c.setLineWidth(0.6)
    c.setDash(3 * mm, 2 * mm)
    c.line(x0 * mm, y0 * mm, x1 * mm, y1 * mm)
    c.restoreState()


def sheet_label(game: GameDefinition, layout: SheetLayout, n: int, of: int, side: str) -> str:
    """The margin's label: game, sheet n of m, front/back, paper, layout."""
    sides = {"front": _("front"), "back": _("back"), "fold": _("front and back")}
    kinds = {"duplex": _("duplex {cols}×{rows}"), "fold": _("gutterfold {cols}×{rows}"),
             "silhouette": _("Silhouette {cols}×{rows}"), "cricut": _("Cricut {cols}×{rows}")}
    return (_("{game} · sheet {n} of {of} · {side} · {paper} · {layout} · ±{tol:g} mm")
            .format(game=game.name, n=n, of=of, side=sides[side], paper=layout.paper.upper(),
                    layout=kinds[layout.kind].format(cols=layout.cols, rows=layout.rows), tol=layout.drift_tolerance))


def _strip_origin(c: Canvas, layout: SheetLayout, side: str, lo: float, depth: float,
                  offset: tuple[float, float]) -> None:
    """Move the canvas so local x runs along a margin strip (from ``lo``) and local y across it."""
    ox, oy = layout.origin
    dx, dy = offset
    if side == "top":
        c.translate((lo + dx) * mm, (oy + layout.block_h + layout.edge_y + MARK_GAP_MM + dy) * mm)
    elif side == "bottom":
        c.translate((lo + dx) * mm, (oy - layout.edge_y - MARK_GAP_MM - depth + dy) * mm)
    else:
        outer = (ox - layout.edge_x - MARK_GAP_MM if side == "left"
                 else ox + layout.block_w + layout.edge_x + MARK_GAP_MM + depth)
        c.translate((outer + dx) * mm, (lo + dy) * mm)
        c.rotate(90)


def _furniture(c: Canvas, layout: SheetLayout, fonts, label: str, offset: tuple[float, float] = (0.0, 0.0),
               scale_bar: bool = True) -> None:
    """The sheet label and a 50 mm scale bar in the margin (between crop marks, never on them;
    on a cutter's sheet clear of its marks' zones), in the strips ``SheetLayout.furniture_strips``
    picks: a user measures the bar to see the printer did not scale the page. The label's text is
    glyph-checked like every text on paper."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    missing = fonts.missing(label)
    if missing:
        raise FontError(_("the sheet label needs glyphs the font lacks: {missing!r}").format(missing=missing))
    label_strip, bar_strip = layout.furniture_strips()
    if label_strip is None:
        return  # no room (a cutter's describe() says so)
    side, lo, hi, depth = label_strip
    depth = min(depth, STRIP_MM)
    size = min(depth - 0.6, 2.2)  # mm
    width = stringWidth(label, fonts.regular, 1) * size  # mm, at a size of ``size`` mm
    if width > hi - lo - 2:
        size *= (hi - lo - 2) / width
    if size >= 0.8:
        c.saveState()
        _strip_origin(c, layout, side, lo, depth, offset)
        c.setFillColorRGB(0, 0, 0)
        c.setFont(fonts.regular, size / 25.4 * 72)
        c.drawCentredString((hi - lo) / 2 * mm, (depth - size) / 2 * mm + 0.15 * size * mm, label)
        c.restoreState()
    if not scale_bar:
        return
    if bar_strip is None:
        return
    side, lo, hi, depth = bar_strip
    depth = min(depth, STRIP_MM)
    start = (hi - lo - SCALE_BAR_MM) / 2
    tick = min(depth - 0.4, 2.0)
    c.saveState()
    _strip_origin(c, layout, side, lo, depth, offset)
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(SCALE_BAR_WIDTH_PT)
    base = (depth - tick) / 2
    c.line(start * mm, base * mm, (start + SCALE_BAR_MM) * mm, base * mm)
    for k in range(0, int(SCALE_BAR_MM) + 1, 10):
        c.line((start + k) * mm, base * mm, (start + k) * mm, (base + (tick if k in (0, 50) else tick / 2)) * mm)
    text = _("{mm:g} mm").format(mm=SCALE_BAR_MM)  # centred between the 20 and 30 mm ticks
    if not fonts.missing(text) and depth > 1.5:
        c.setFillColorRGB(0, 0, 0)
        c.setFont(fonts.regular, min(tick, 1.6) / 25.4 * 72)
        c.drawCentredString((start + SCALE_BAR_MM / 2) * mm, (base + 0.3) * mm, text)
    c.restoreState()


def sheet_canvas(path: Path, game: GameDefinition, layout: SheetLayout, font: str) -> Canvas:
    """A new sheet PDF at ``path``: the layout's paper, a title naming the game and paper."""
    c = Canvas(str(path), pagesize=(layout.paper_w * mm, layout.paper_h * mm), initialFontName=font, pageCompression=1)
    c.setTitle(f"{game.name} — print-and-play card sheets ({layout.paper.upper()})")
    c.setAuthor("cardpress")
    c.setSubject(layout.describe())
    return c


def impose_pages(c: Canvas, prep: "Prepared", plan: list[tuple[SheetLayout, list["Card"]]], forms: tuple[dict, dict],
                 options: "BuildOptions", progress: Progress | None = None) -> int:
    """Place the forms on sheets: fronts, then their mirrored backs (a fold layout: both on one
    page); return the page count. ``plan`` is the print sequence grouped by card size, each
    group with its layout (``plan.size_layouts``): each size gets sheets of its own."""
    sheets = [(lay, group[i:i + lay.per_sheet]) for lay, group in plan for i in range(0, len(group), lay.per_sheet)]
    pages = 0
    for s, (lay, sheet) in enumerate(sheets):
        pages += _impose_sheet(c, prep, lay, sheet, forms, options, s + 1, len(sheets))
        if progress:
            progress(Label(SHEETS, paper=lay.paper.upper()), s + 1, len(sheets))
    return pages


def _impose_sheet(c: Canvas, prep: "Prepared", layout: SheetLayout, sheet: list["Card"], forms: tuple[dict, dict],
                  options: "BuildOptions", number: int, of: int) -> int:
    """One sheet: its front page and back page (one page for a fold layout); the pages written."""
    form_of, back_form = forms
    fronts = layout.front_cells()
    back_cells = layout.back_cells(options.flip, options.back_offset_mm)
    fonts = prep.painter.fonts
    fold = layout.kind == "fold"
    _boxes(c, layout, fronts[: len(sheet)] + (back_cells[: len(sheet)] if fold else []))
    for card, cell in zip(sheet, fronts):
        _place(c, cell, form_of[card.id])
    if fold:
        for card, cell in zip(sheet, back_cells):
            _place(c, cell, back_form[prep.back_of(card)])
        _fold_line(c, layout)
    _crop_marks(c, layout)
    _registration_marks(c, layout)
    _furniture(c, layout, fonts, sheet_label(prep.game, layout, number, of, "fold" if fold else "front"))
    c.showPage()
    compress_page(c)
    if not fold:
        _boxes(c, layout, back_cells[: len(sheet)])
        for card, cell in zip(sheet, back_cells):
            _place(c, cell, back_form[prep.back_of(card)])
        if options.back_marks:
            _crop_marks(c, layout, options.back_offset_mm)
        _furniture(c, layout, fonts, sheet_label(prep.game, layout, number, of, "back"),
                   options.back_offset_mm, scale_bar=options.back_marks)
        c.showPage()
        compress_page(c)
    return 1 if fold else 2
