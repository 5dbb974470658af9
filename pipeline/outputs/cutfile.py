"""Cut files for print-and-cut machines (``--layout silhouette`` / ``cricut``): each card's
outline at trim size, with rounded corners, exactly where the card sits on the sheet.

Both files are in millimetres with the page's own size and origin, so imported at 100 % they
line up with the registration marks printed on the PDF page:

* SVG: ``width``/``height`` in mm, ``viewBox`` in mm (y down, as SVG is), one ``<path>`` a card.
* DXF: AutoCAD R12 ASCII (``$ACADVER AC1009``, ``$INSUNITS`` 4 = mm), each outline as LINE
  and ARC entities (arcs counter-clockwise, angles in degrees) — R12 has no LWPOLYLINE, and
  every cutter's importer reads LINE/ARC. y is up, as on the PDF page.
"""

from __future__ import annotations

import math
from pathlib import Path

from engine.errors import CardpressError
from engine.i18n import _

from ..impose import SheetLayout

Box = tuple[float, float, float, float]  # x, y (bottom-left, PDF orientation), w, h — mm


class CutFileError(CardpressError):
    """The corner radius does not fit the card."""


def check_radius(radius: float, card_w: float, card_h: float) -> None:
    if not math.isfinite(radius) or radius < 0 or radius > min(card_w, card_h) / 2:
        raise CutFileError(_("--corner-radius must be between 0 and {max:g} mm (half the card's shorter side), "
                             "got {value!r}").format(max=min(card_w, card_h) / 2, value=radius))


def outlines(layout: SheetLayout, count: int | None = None) -> list[Box]:
    """The trim boxes of a sheet's first ``count`` card positions (all: a full sheet), in reading
    order — the order the sheet fills them in, so a partial last sheet's cards are these."""
    cells = layout.front_cells()
    return [(c.x, c.y, c.w, c.h) for c in cells[:len(cells) if count is None else count]]


def _f(v: float) -> str:
    return f"{v:.4f}".rstrip("0").rstrip(".") or "0"


def svg(layout: SheetLayout, radius: float, count: int | None = None) -> str:
    w, h = layout.paper_w, layout.paper_h
    paths = []
    boxes = outlines(layout, count)
    for x, y, bw, bh in boxes:
        top = h - (y + bh)  # SVG's y runs down
        r = radius
        d = (f"M {_f(x + r)} {_f(top)} H {_f(x + bw - r)} "
             + (f"A {_f(r)} {_f(r)} 0 0 1 {_f(x + bw)} {_f(top + r)} " if r else "")
             + f"V {_f(top + bh - r)} "
             + (f"A {_f(r)} {_f(r)} 0 0 1 {_f(x + bw - r)} {_f(top + bh)} " if r else "")
             + f"H {_f(x + r)} "
             + (f"A {_f(r)} {_f(r)} 0 0 1 {_f(x)} {_f(top + bh - r)} " if r else "")
             + f"V {_f(top + r)} "
             + (f"A {_f(r)} {_f(r)} 0 0 1 {_f(x + r)} {_f(top)} " if r else "")
             + "Z")
        paths.append(f'  <path d="{d}" fill="none" stroke="#ff0000" stroke-width="0.1"/>')
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(w)}mm" height="{_f(h)}mm" '
            f'viewBox="0 0 {_f(w)} {_f(h)}">\n'
            f'  <title>cut lines: {len(boxes)} cards, {layout.paper.upper()}, corner radius {_f(radius)} mm</title>\n'
            + "\n".join(paths) + "\n</svg>\n")


def dxf(layout: SheetLayout, radius: float, count: int | None = None) -> str:
    out = ["0", "SECTION", "2", "HEADER", "9", "$ACADVER", "1", "AC1009", "9", "$INSUNITS", "70", "4",
           "9", "$EXTMIN", "10", "0", "20", "0", "9", "$EXTMAX", "10", _f(layout.paper_w), "20", _f(layout.paper_h),
           "0", "ENDSEC", "0", "SECTION", "2", "ENTITIES"]

    def line(x0, y0, x1, y1):
        out.extend(["0", "LINE", "8", "CUT", "10", _f(x0), "20", _f(y0), "30", "0", "11", _f(x1), "21", _f(y1),
                    "31", "0"])

    def arc(cx, cy, start):
        out.extend(["0", "ARC", "8", "CUT", "10", _f(cx), "20", _f(cy), "30", "0", "40", _f(radius),
                    "50", _f(start), "51", _f(start + 90)])

    r = radius
    for x, y, w, h in outlines(layout, count):
        line(x + r, y, x + w - r, y)
        line(x + w, y + r, x + w, y + h - r)
        line(x + w - r, y + h, x + r, y + h)
        line(x, y + h - r, x, y + r)
        if r:
            arc(x + w - r, y + r, 270)
            arc(x + w - r, y + h - r, 0)
            arc(x + r, y + h - r, 90)
            arc(x + r, y + r, 180)
    out.extend(["0", "ENDSEC", "0", "EOF"])
    return "\n".join(out) + "\n"


def write_cut_files(layout: SheetLayout, radius: float, svg_path: Path, dxf_path: Path,
                    count: int | None = None) -> None:
    """Write both files (the caller passes ``atomic_write`` temp paths): the outlines of the first
    ``count`` cells (a partial last sheet's), every cell when None."""
    svg_path.write_text(svg(layout, radius, count), encoding="utf-8")
    dxf_path.write_text(dxf(layout, radius, count), encoding="ascii")
