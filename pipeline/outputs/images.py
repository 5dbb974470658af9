"""Per-card images for print shops and online tables.

* ``images/<card id>.png``: one image per distinct card at 300 dpi *including* bleed — with the
  default 1/8" bleed a 63 × 88 mm card is 820 × 1115 px — plus
  ``images/back-<name>.png`` for each back design.
* ``tts/sheet-<back>-NN.jpg``: Tabletop Simulator deck sheets, one set per back design (a TTS
  deck has one back image), 10 × 7 slots of trimmed cards in print order (copies repeated), the
  last slot holding the back TTS shows for hidden cards; ``tts/back-<back>.jpg``; and
  ``tts/<name>.json``, the Saved Object a TTS user imports (``pipeline.outputs.tts``).

Route (fastest measured): the faces are drawn by the same painter into a one-card-per-page PDF
and rendered by pdfium straight into a PNG's raw row layout, deflated by ISA-L. Memory stays
flat: each card's TTS cell is rendered from the same page at the cell's own size right after the
full image, kept on disk as a lossless PNG, and the sheets are assembled from those cells.
On two cores every step is split: the card PDF is painted as two halves (a forked child paints
every other card, ``pipeline.workers``); rendering and encoding (the costs) run in 2 worker
processes, each opening the PDFs itself and taking chunks of their pages (spawned, importing
only pypdfium2, isal and Pillow), and the same workers then make the TTS sheets, one each at a
time.
"""

from __future__ import annotations

import ctypes
import math
import multiprocessing
import os
import struct
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from isal import isal_zlib
from PIL import Image

from engine.i18n import _

from ..atomic import atomic_write, output_path
from ..render.fonts import release_font_files
from .tts import TTS_COLS, TTS_MAX_PX, TTS_ROWS, TtsDeck, plan_decks, write_saved_object

if TYPE_CHECKING:
    from ..plan import Prepared
    from ..progress import Progress

#: Print shops' usual bleed: 1/8 inch.
SHOP_BLEED_MM = 25.4 / 8
PNG_LEVEL = 1  # ISA-L's fastest deflate: files ~5 % larger than zlib's level 1 (ISA-L has 0-3)
#: Pages per task handed to a worker (small enough for even shares and a live progress bar).
CHUNK = 12
#: Below this many images one process is faster than starting two.
PARALLEL_FROM = 24


@dataclass
class ImagesResult:
    cards: list[Path] = field(default_factory=list)
    backs: list[Path] = field(default_factory=list)
    tts_sheets: list[Path] = field(default_factory=list)
    tts_backs: list[Path] = field(default_factory=list)
    #: One per back design: its cards, sheets and back (``pipeline.outputs.tts``).
    tts_decks: list[TtsDeck] = field(default_factory=list)
    #: The Tabletop Simulator Saved Object (``tts/<name>.json``).
    tts_json: Path | None = None
    size_px: tuple[int, int] = (0, 0)


def _render_pdf(prep: Prepared, bleed_mm: float, target: Path | None = None) -> bytes | None:
    """The one-card-per-page PDF (faces, then backs): written to ``target``, or returned."""
    import io

    from reportlab.lib.units import mm
    from reportlab.pdfgen.canvas import Canvas

    from ..render.forms import paint_forms
    from ..render.streams import compress_page, save

    size = prep.game.card_size
    w, h = (size.width_mm + 2 * bleed_mm) * mm, (size.height_mm + 2 * bleed_mm) * mm
    buf = io.BytesIO() if target is None else None
    c = Canvas(buf if buf is not None else str(target), pagesize=(w, h), initialFontName=prep.painter.fonts.regular,
               pageCompression=1)
    form_of, back_form = paint_forms([c], prep)
    for name in [*form_of.values(), *back_form.values()]:
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


def _render_pdfs(prep: Prepared, bleed_mm: float, folder: Path, jobs: int) -> list[tuple[str, int, str]]:
    """The card PDFs to render, painted on ``jobs`` processes (``pipeline.workers``): with 2, a
    forked child paints every other card into a PDF of its own while this process paints the
    rest and the backs. Returns each image's (PDF, page, name) in output order (cards, then backs)."""
    from dataclasses import replace

    from ..workers import halves, in_parallel

    distinct = prep.distinct
    theirs, mine = halves(distinct) if jobs > 1 else ([], distinct)
    pdfs = {"theirs": str(folder / "cards-b.pdf"), "mine": str(folder / "cards-a.pdf")}

    def child() -> None:
        if theirs:  # one process: nothing to paint here, and no empty PDF
            _render_pdf(replace(prep, sequence=theirs, backs={}), bleed_mm, Path(pdfs["theirs"]))

    def parent() -> None:
        _render_pdf(replace(prep, sequence=mine), bleed_mm, Path(pdfs["mine"]))

    in_parallel(child, parent, jobs)
    page = {card.id: (pdfs["theirs"], n) for n, card in enumerate(theirs)}
    page.update((card.id, (pdfs["mine"], n)) for n, card in enumerate(mine))
    order = [(*page[card.id], card.id) for card in distinct]
    return order + [(pdfs["mine"], len(mine) + n, f"back-{back}") for n, back in enumerate(prep.backs)]


def _png(rows: memoryview, width: int, height: int, dpi: int) -> bytes:
    """RGB rows, each already led by its filter byte 0 (none), as PNG: the same pixels and pHYs
    (dpi) as Pillow's writer. Pillow tries every row filter, the bulk of its time; unfiltered rows
    deflated by ISA-L at level 1 take 3 ms per 300 dpi card (zlib level 1: 14 ms), files ~5 %
    larger than zlib's."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ppm = int(dpi / 0.0254 + 0.5)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)) + chunk(b"IDAT", isal_zlib.compress(rows, PNG_LEVEL))
            + chunk(b"IEND", b""))


def _render_rows(page: pdfium.PdfPage, width: int, height: int, place: tuple[int, int, int, int]) -> memoryview:
    """Render ``page`` (drawn at ``place`` = x, y, width, height in bitmap pixels) into a
    ``width`` × ``height`` RGB bitmap whose rows sit one byte apart, so that the buffer *is* a PNG's
    raw image data (each row led by filter byte 0): no copy between pdfium and deflate. The pixels
    are those of ``page.render()`` (same flags: annotations on, white fill; RGB byte order)."""
    stride = 3 * width + 1
    buf = (ctypes.c_ubyte * (stride * height))()  # zeroed: every row's filter byte is 0
    first_row = ctypes.cast(ctypes.byref(buf, 1), ctypes.POINTER(ctypes.c_ubyte))
    bitmap = pdfium_c.FPDFBitmap_CreateEx(width, height, pdfium_c.FPDFBitmap_BGR, first_row, stride)
    try:
        pdfium_c.FPDFBitmap_FillRect(bitmap, 0, 0, width, height, 0xFFFFFFFF)
        pdfium_c.FPDF_RenderPageBitmap(bitmap, page, *place, 0, pdfium_c.FPDF_ANNOT | pdfium_c.FPDF_REVERSE_BYTE_ORDER)
    finally:
        pdfium_c.FPDFBitmap_Destroy(bitmap)
    return memoryview(buf).cast("B")


def _save(image: Image.Image, path: Path, **params) -> Path:
    with atomic_write(path) as tmp:
        image.save(tmp, format="PNG" if path.suffix == ".png" else "JPEG", **params)
    return path


def tts_cell(prep: Prepared, dpi: int) -> tuple[int, int]:
    """(cell w, cell h): the TTS slot size for this card size and resolution."""
    size = prep.game.card_size
    cell_w = min(TTS_MAX_PX // TTS_COLS, round(size.width_mm / 25.4 * dpi))
    cell_h = round(cell_w * size.height_mm / size.width_mm)
    if cell_h * TTS_ROWS > TTS_MAX_PX:
        cell_h = TTS_MAX_PX // TTS_ROWS
        cell_w = round(cell_h * size.width_mm / size.height_mm)
    return cell_w, cell_h


# --- worker side: one open document per process ------------------------------------------------

_job: dict = {}


def _open(dpi: int, cell: tuple[int, int], bleed_mm: float) -> None:
    _job.update(docs={}, dpi=dpi, cell=cell, bleed_pt=bleed_mm / 25.4 * 72)


def _document(pdf: str) -> pdfium.PdfDocument:
    """This worker's open copy of ``pdf``. Pages come PDF by PDF, so the previous one is closed
    when the next is opened: pdfium keeps what a document decoded (its art) until it is closed."""
    docs = _job["docs"]
    if pdf not in docs:
        for other in docs.values():
            other.close()
        docs.clear()
        docs[pdf] = pdfium.PdfDocument(pdf)
    return docs[pdf]


def _full_place(page: pdfium.PdfPage, dpi: int) -> tuple[int, int]:
    """The full image's size in pixels: what ``page.render(scale=dpi / 72)`` makes (rounded up)."""
    return math.ceil(page.get_width() * dpi / 72), math.ceil(page.get_height() * dpi / 72)


def _cell_place(page: pdfium.PdfPage, cell: tuple[int, int], bleed_pt: float) -> tuple[int, int, int, int]:
    """Where to draw the page so that its trimmed card (bleed cut off) fills exactly ``cell``: the
    TTS image is rendered from the vector page at its own size (5-6 ms) rather than resampled
    from the 300 dpi render (LANCZOS: 16 ms)."""
    sx = cell[0] / (page.get_width() - 2 * bleed_pt)
    sy = cell[1] / (page.get_height() - 2 * bleed_pt)
    return -round(bleed_pt * sx), -round(bleed_pt * sy), round(page.get_width() * sx), round(page.get_height() * sy)


def _render_range(task: list[tuple[str, int, Path, Path | None]]) -> tuple[int, tuple[int, int]]:
    """Render each (PDF, page, PNG path, TTS cell path or None) of ``task``."""
    dpi, size = _job["dpi"], (0, 0)
    for pdf, n, png, cell_png in task:
        page = _document(pdf)[n]
        size = _full_place(page, dpi)
        rows = _render_rows(page, *size, (0, 0, *size))
        with atomic_write(png) as tmp:
            tmp.write_bytes(_png(rows, *size, dpi))
        del rows
        if cell_png is not None:
            cell = _job["cell"]
            cell_png.write_bytes(_png(_render_rows(page, *cell, _cell_place(page, cell, _job["bleed_pt"])), *cell, dpi))
        page.close()
    return len(task), size


def _close() -> None:
    for doc in _job.pop("docs", {}).values():
        doc.close()


# --- parent side ---------------------------------------------------------------------------------

def write_images(prep: Prepared, out_dir: Path, dpi: int = 300, bleed_mm: float = SHOP_BLEED_MM,
                 tts: bool = True, progress: Progress | None = None, workers: int | None = None,
                 tts_name: str | None = None) -> ImagesResult:
    """Write per-card PNGs (and TTS sheets, one set per back design, and the Saved Object
    ``tts/<tts_name>.json``, default the game's id) for ``prep`` into ``out_dir``. ``prep`` must
    have been prepared with the same ``bleed_mm``. ``workers``: rendering processes (default: 2 on
    a machine with 2+ cores when there are enough cards to pay for starting them, else 1)."""
    assert prep.bleed_mm == bleed_mm, "prepare() and write_images() need the same bleed"
    result = ImagesResult()
    names = [*(card.id for card in prep.distinct), *(f"back-{b}" for b in prep.backs)]
    if workers is None:
        workers = min(2, os.cpu_count() or 1) if len(names) >= PARALLEL_FROM else 1
    cell = tts_cell(prep, dpi)
    with tempfile.TemporaryDirectory(prefix="cardpress-images-") as tmp:
        work = Path(tmp)
        pages = _render_pdfs(prep, bleed_mm, work, 2 if workers > 1 else 1)
        release_font_files(prep.painter.fonts)  # painted: the workers render from the PDFs
        pngs = [output_path(out_dir / "images", f"{name}.png") for _pdf, _page, name in pages]
        cells = {name: work / f"{n}.png" for n, (_pdf, _page, name) in enumerate(pages)} if tts else {}
        jobs = sorted((pdf, page, png, cells.get(name)) for (pdf, page, name), png in zip(pages, pngs))
        tasks = [jobs[i:i + CHUNK] for i in range(0, len(jobs), CHUNK)]
        done = 0

        def finished(count: int, size: tuple[int, int]) -> None:
            nonlocal done
            done += count
            result.size_px = size or result.size_px
            if progress:
                progress(_("card images"), done, len(names))

        result.tts_decks = plan_decks(prep.sequence, prep.back_of, out_dir / "tts") if tts else []
        sheets = _sheet_tasks(result.tts_decks, cells)

        def made(count: int) -> None:
            if progress:
                progress(_("TTS sheets"), count, len(sheets))

        if workers <= 1:
            _open(dpi, cell, bleed_mm)
            try:
                for task in tasks:
                    finished(*_render_range(task))
            finally:
                _close()
            for n, task in enumerate(sheets):
                result.tts_sheets.append(Path(_make_sheet(task)))
                made(n + 1)
        else:
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(workers, initializer=_open, initargs=(dpi, cell, bleed_mm)) as pool:
                for count, size in pool.imap(_render_range, tasks):
                    finished(count, size)
                # The sheets in the same light workers, one at a time each (a sheet is 49 MB).
                for n, sheet in enumerate(pool.imap(_make_sheet, sheets)):
                    result.tts_sheets.append(Path(sheet))
                    made(n + 1)
        for png, name in zip(pngs, names):
            (result.backs if name.startswith("back-") else result.cards).append(png)
        for deck in result.tts_decks:
            result.tts_backs.append(_save(_load_cell(str(cells[f"back-{deck.back}"])), deck.back_image, quality=90))
        if tts:
            result.tts_json = write_saved_object(output_path(out_dir / "tts", f"{tts_name or prep.game.id}.json"),
                                                 result.tts_decks, lambda deck: _deck_nickname(prep, deck))
    return result


def _deck_nickname(prep: Prepared, deck: TtsDeck) -> str:
    """A TTS deck's name: the game and the card types that share its back (层级, 前哨…)."""
    types = dict.fromkeys(prep.game.card_types[card.type].name for card in deck.cards)
    return _("{game}: {types}").format(game=prep.game.name, types="/".join(types))


def _sheet_tasks(decks: list[TtsDeck], cells: dict[str, Path]) -> list[tuple[str, list[str], str]]:
    """One task per TTS sheet: (its file, the cell image of each slot in print order, the
    hidden-card cell for the last slot: the back of the sheet's cards, one back per sheet)."""
    return [(str(sheet.path), [str(cells[card.id]) for card in sheet.cards], str(cells[f"back-{deck.back}"]))
            for deck in decks for sheet in deck.sheets]


def _load_cell(path: str) -> Image.Image:
    with Image.open(path) as im:
        return im.convert("RGB")


def _make_sheet(task: tuple[str, list[str], str]) -> str:
    """Assemble and write one TTS sheet (in a worker: a 16-megapixel sheet and one cell in memory)."""
    target, slots, hidden_path = task
    docs = _job.get("docs", {})
    for doc in docs.values():  # the rendering is over: drop what pdfium decoded
        doc.close()
    docs.clear()
    hidden = _load_cell(hidden_path)
    cell_w, cell_h = hidden.size
    sheet = Image.new("RGB", (cell_w * TTS_COLS, cell_h * TTS_ROWS), "white")
    last: tuple[str, Image.Image] | None = None  # a deck's copies follow each other: one load each
    for slot, cell in enumerate(slots):
        if last is None or last[0] != cell:
            last = (cell, _load_cell(cell))
        sheet.paste(last[1], ((slot % TTS_COLS) * cell_w, (slot // TTS_COLS) * cell_h))
    sheet.paste(hidden, ((TTS_COLS - 1) * cell_w, (TTS_ROWS - 1) * cell_h))
    return str(_save(sheet, Path(target), quality=90))
