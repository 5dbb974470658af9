"""Saddle-stitch booklet imposition: half-size pages, two per landscape sheet side.

``booklet_order(n)`` is the pure page order (tested on its own); ``impose_booklet`` applies it
to a finished PDF with pypdf, whose page merging shares fonts and images by reference, so
they stay embedded once.

Duplex: with **long-edge** flipping, a landscape sheet turns over around its long (top) edge,
so the back of every sheet must be drawn upside down to read the right way up; with short-edge
flipping it is drawn upright. Blank pages pad the count to a multiple of 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.i18n import _

from .errors import RulebookError


@dataclass(frozen=True)
class SheetSide:
    """One side of one sheet: the 0-based page on the left and right half (None = blank)."""

    sheet: int
    front: bool
    left: int | None
    right: int | None
    rotated: bool  # drawn upside down (backs, long-edge duplex)


def booklet_order(pages: int, duplex: str = "long") -> list[SheetSide]:
    """Sides in print order for a booklet of ``pages`` pages (padded to a multiple of 4).

    >>> [(s.left, s.right) for s in booklet_order(4)]
    [(3, 0), (1, 2)]
    """
    if pages < 1:
        raise RulebookError(_("a booklet needs at least one page"))
    if duplex not in ("long", "short"):
        raise RulebookError(_("duplex must be 'long' or 'short', not {duplex!r}").format(duplex=duplex))
    total = -(-pages // 4) * 4

    def real(i: int) -> int | None:
        return i if i < pages else None

    sides = []
    for sheet in range(total // 4):
        outer, inner = 2 * sheet, total - 1 - 2 * sheet
        sides.append(SheetSide(sheet, True, real(inner), real(outer), False))
        sides.append(SheetSide(sheet, False, real(outer + 1), real(inner - 1), duplex == "long"))
    return sides


def impose_booklet(src: Path, dest: Path, sheet_size: tuple[float, float], duplex: str = "long") -> int:
    """Impose ``src`` (half-size pages) 2-up onto landscape ``sheet_size`` sheets; return sheet sides.

    pypdf merges each page's content with a transformation and shares its resources by
    reference, so the embedded font subsets are stored once, not once per sheet.
    """
    from pypdf import PdfReader, PdfWriter, Transformation

    sheet_w, sheet_h = max(sheet_size), min(sheet_size)
    reader = PdfReader(str(src))
    writer = PdfWriter()
    sides = booklet_order(len(reader.pages), duplex)
    for side in sides:
        sheet = writer.add_blank_page(sheet_w, sheet_h)
        for slot, index in ((0, side.left), (1, side.right)):
            if index is None:
                continue
            page = reader.pages[index]
            w, h = float(page.mediabox.width), float(page.mediabox.height)
            scale = min((sheet_w / 2) / w, sheet_h / h)
            dx = slot * sheet_w / 2 + (sheet_w / 2 - w * scale) / 2
            dy = (sheet_h - h * scale) / 2
            t = Transformation().scale(scale, scale).translate(dx, dy)
            if side.rotated:
                t = t.rotate(180).translate(sheet_w, sheet_h)
            sheet.merge_transformed_page(page, t)
    writer.add_metadata({k: str(v) for k, v in (reader.metadata or {}).items()})
    with open(dest, "wb") as fh:
        writer.write(fh)
    return len(sides)
