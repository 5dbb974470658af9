"""Pictures of cards and pages: the one place a PDF becomes pixels (pypdfium2).

Every picture cardpress makes of a card goes the same way: the painter draws the face into a
PDF page of the card's own size plus bleed (``faces_pdf`` for a build's faces, ``face_pdf`` for
one face), and pdfium renders the page (``page_image``). Per-card PNGs for print shops take the
fast route of ``render_rows`` and ``png_of_rows``: pdfium renders straight into a PNG's raw row
layout, deflated by ISA-L (no copy, no filter search).

pdfium is not thread-safe: every rendering in a process holds ``PDFIUM_LOCK`` (the watch page's
server, the table page's card pictures and the build loop share a process).

ReportLab is imported only by the functions that paint: the spawned workers of ``cardpress
images`` import this module to render, and load pypdfium2, ISA-L and Pillow only.
"""

from __future__ import annotations

import ctypes
import io
import math
import struct
import threading
import zlib
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

if TYPE_CHECKING:
    from PIL import Image

    from engine.cards import Card

    from ..layout import Element
    from ..plan import Prepared
    from .painter import CardPainter

PDFIUM_LOCK = threading.RLock()
PNG_LEVEL = 1  # ISA-L's fastest deflate: files ~5 % larger than zlib's level 1 (ISA-L has 0-3)


# --- card faces into PDF pages -------------------------------------------------------------------

def faces_pdf(prep: "Prepared", bleed_mm: float, target: Path | None = None) -> bytes | None:
    """One page per distinct face of ``prep``, then one per back, each the size of its card
    (a card type may have its own) plus ``bleed_mm``: written to ``target``, or returned.
    Raises ``CardErrors`` naming every card that cannot print."""
    from reportlab.lib.units import mm
    from reportlab.pdfgen.canvas import Canvas

    from .forms import paint_forms
    from .streams import compress_page, save

    buf = io.BytesIO() if target is None else None
    c = Canvas(buf if buf is not None else str(target), initialFontName=prep.painter.fonts.regular, pageCompression=1)
    form_of, back_form = paint_forms([c], prep)
    sizes = [prep.game.card_size_of(card.type).mm for card in prep.distinct]
    sizes += [prep.game.back_size(back).mm for back in prep.backs]
    for name, (w, h) in zip([*form_of.values(), *back_form.values()], sizes):
        c.setPageSize(((w + 2 * bleed_mm) * mm, (h + 2 * bleed_mm) * mm))
        c.saveState()
        c.translate(bleed_mm * mm, bleed_mm * mm)
        c.doForm(name)
        c.restoreState()
        c.showPage()
        compress_page(c)
    if buf is not None:
        c.save()
        return buf.getvalue()
    save(c, target)
    return None


def face_pdf(painter: "CardPainter", elements: list["Element"], card: "Card | None", label: str,
             size_mm: tuple[float, float], bleed_mm: float) -> bytes:
    """A one-page PDF of one face (or back, ``card`` None) of ``size_mm`` plus ``bleed_mm``.
    Raises the painter's errors for a face that cannot print."""
    from reportlab.lib.units import mm
    from reportlab.pdfgen.canvas import Canvas

    w, h = size_mm
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=((w + 2 * bleed_mm) * mm, (h + 2 * bleed_mm) * mm), initialFontName=painter.fonts.regular)
    c.translate(bleed_mm * mm, bleed_mm * mm)
    painter.paint(c, elements, card, label=label, size_mm=size_mm)
    c.showPage()
    c.save()
    return buf.getvalue()


# --- pages into pictures -------------------------------------------------------------------------

def _scale(page: pdfium.PdfPage, dpi: float | None, width_px: int | None, scale: float | None) -> float:
    if scale is not None:
        return scale
    if width_px is not None:
        return width_px / page.get_width()
    return (dpi or 72) / 72


def page_images(pdf: bytes | str | Path, *, dpi: float | None = None, width_px: int | None = None,
                scale: float | None = None, indices: list[int] | None = None, rgb: bool = True) -> Iterator["Image.Image"]:
    """Pages of ``pdf`` (all, or ``indices``) as Pillow images, at ``dpi``, ``width_px`` wide or
    at ``scale`` pixels per point; RGB unless ``rgb`` is false (then as pdfium renders: BGRA
    when the page has transparency). The lock is held while each page renders, not between."""
    with PDFIUM_LOCK:
        doc = pdfium.PdfDocument(str(pdf) if isinstance(pdf, Path) else pdf)
    try:
        for n in (range(len(doc)) if indices is None else indices):
            with PDFIUM_LOCK:
                page = doc[n]
                try:
                    image = page.render(scale=_scale(page, dpi, width_px, scale)).to_pil()
                finally:
                    page.close()
            yield image.convert("RGB") if rgb else image
    finally:
        with PDFIUM_LOCK:
            doc.close()


def page_image(pdf: bytes | str | Path, index: int = 0, **how) -> "Image.Image":
    """Page ``index`` of ``pdf`` as a Pillow image (``how``: as ``page_images``)."""
    return next(page_images(pdf, indices=[index], **how))


def png_bytes(image: "Image.Image", dpi: float | None = None, compress_level: int = 1, optimize: bool = False) -> bytes:
    """``image`` as PNG (with its resolution when ``dpi`` is given)."""
    out = io.BytesIO()
    params: dict = {"compress_level": compress_level, "optimize": optimize}
    if dpi:
        params["dpi"] = (dpi, dpi)
    image.save(out, "PNG", **params)
    return out.getvalue()


# --- the fast route: pdfium into a PNG's rows ----------------------------------------------------

class OpenPages:
    """Pages of several PDFs, taken PDF by PDF: one document is open at a time, the previous
    one closed when the next is opened (pdfium keeps what a document decoded, its art, until it
    is closed). A worker process keeps one."""

    def __init__(self) -> None:
        self._docs: dict[str, pdfium.PdfDocument] = {}

    def page(self, pdf: str, index: int) -> pdfium.PdfPage:
        if pdf not in self._docs:
            self.close()
            with PDFIUM_LOCK:
                self._docs[pdf] = pdfium.PdfDocument(pdf)
        return self._docs[pdf][index]

    def close(self) -> None:
        with PDFIUM_LOCK:
            for doc in self._docs.values():
                doc.close()
        self._docs.clear()


def full_size(page: pdfium.PdfPage, dpi: int) -> tuple[int, int]:
    """The full image's size in pixels: what ``page.render(scale=dpi / 72)`` makes (rounded up)."""
    return math.ceil(page.get_width() * dpi / 72), math.ceil(page.get_height() * dpi / 72)


def trimmed_place(page: pdfium.PdfPage, cell: tuple[int, int], bleed_pt: float) -> tuple[int, int, int, int]:
    """Where to draw the page so that its trimmed card (bleed cut off) fills exactly ``cell``:
    rendered from the vector page at the cell's size (5-6 ms) rather than resampled from a
    300 dpi render (LANCZOS: 16 ms)."""
    sx = cell[0] / (page.get_width() - 2 * bleed_pt)
    sy = cell[1] / (page.get_height() - 2 * bleed_pt)
    return -round(bleed_pt * sx), -round(bleed_pt * sy), round(page.get_width() * sx), round(page.get_height() * sy)


def render_rows(page: pdfium.PdfPage, width: int, height: int, place: tuple[int, int, int, int]) -> memoryview:
    """Render ``page`` (drawn at ``place`` = x, y, width, height in bitmap pixels) into a
    ``width`` × ``height`` RGB bitmap whose rows sit one byte apart, so that the buffer *is* a PNG's
    raw image data (each row led by filter byte 0): no copy between pdfium and deflate. The pixels
    are those of ``page.render()`` (same flags: annotations on, white fill; RGB byte order)."""
    stride = 3 * width + 1
    buf = (ctypes.c_ubyte * (stride * height))()  # zeroed: every row's filter byte is 0
    first_row = ctypes.cast(ctypes.byref(buf, 1), ctypes.POINTER(ctypes.c_ubyte))
    with PDFIUM_LOCK:
        bitmap = pdfium_c.FPDFBitmap_CreateEx(width, height, pdfium_c.FPDFBitmap_BGR, first_row, stride)
        try:
            pdfium_c.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xFFFFFFFF)
            pdfium_c.FPDF_RenderPageBitmap(bitmap, page, *place, 0,
                                           pdfium_c.FPDF_ANNOT | pdfium_c.FPDF_REVERSE_BYTE_ORDER)
        finally:
            pdfium_c.FPDFBitmap_Destroy(bitmap)
    return memoryview(buf).cast("B")


def png_of_rows(rows: memoryview, width: int, height: int, dpi: int) -> bytes:
    """RGB rows, each already led by its filter byte 0 (none), as PNG: the same pixels and pHYs
    (dpi) as Pillow's writer, plus an sRGB chunk (the pixels are sRGB). Pillow tries every row
    filter, the bulk of its time; unfiltered rows deflated by ISA-L at level 1 take 3 ms per
    300 dpi card (zlib level 1: 14 ms), files ~5 % larger than zlib's."""
    from isal import isal_zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ppm = int(dpi / 0.0254 + 0.5)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"sRGB", b"\x00") + chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1))
            + chunk(b"IDAT", isal_zlib.compress(rows, PNG_LEVEL)) + chunk(b"IEND", b""))
