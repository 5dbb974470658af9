"""Per-card images for print shops and online tables.

* ``images/<card id>.png``: one image per distinct card at 300 dpi *including* bleed — with the
  default 1/8" bleed a 63 × 88 mm card is 820 × 1115 px — plus
  ``images/back-<name>.png`` for each back design.
* ``tts/sheet-NN.jpg``: Tabletop Simulator deck sheets, 10 × 7 slots of trimmed cards in print
  order (copies repeated), the last slot holding the back TTS shows for hidden cards; and
  ``tts/back-<name>.jpg``.

Route (fastest measured): the faces are drawn by the same painter into a one-card-per-page PDF,
rendered by pypdfium2, and written by Pillow with fast PNG compression. Memory stays flat: each
card's TTS cell (trimmed and resized) is made right after its render and kept on disk as a
lossless PNG, and the full image is dropped; the sheets are assembled from those cells. Rendering
and encoding (the costs) run in 2 worker processes, each opening the PDF itself and taking
chunks of its pages; the workers are spawned, importing only pypdfium2 and Pillow.
"""

from __future__ import annotations

import multiprocessing
import os
import struct
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pypdfium2 as pdfium
from PIL import Image

from .atomic import atomic_write, output_path

if TYPE_CHECKING:
    from .build import Prepared, Progress

#: Print shops' usual bleed: 1/8 inch.
SHOP_BLEED_MM = 25.4 / 8
TTS_COLS, TTS_ROWS = 10, 7
#: TTS caps a sheet at 4096 px on each side (and loads faster below it).
TTS_MAX_PX = 4096
PNG_COMPRESS = 1  # 10× faster than the default, files ~20% larger: right for intermediates
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
    size_px: tuple[int, int] = (0, 0)


def _render_pdf(prep: Prepared, bleed_mm: float, target: Path | None = None) -> bytes | None:
    """The one-card-per-page PDF (faces, then backs): written to ``target``, or returned."""
    import io

    from reportlab.lib.units import mm
    from reportlab.pdfgen.canvas import Canvas

    from .build import paint_forms

    size = prep.game.card_size
    w, h = (size.width_mm + 2 * bleed_mm) * mm, (size.height_mm + 2 * bleed_mm) * mm
    buf = io.BytesIO() if target is None else None
    c = Canvas(buf if buf is not None else str(target), pagesize=(w, h), initialFontName=prep.painter.fonts.regular)
    form_of, back_form = paint_forms([c], prep)
    for name in [*form_of.values(), *back_form.values()]:
        c.saveState()
        c.translate(bleed_mm * mm, bleed_mm * mm)
        c.doForm(name)
        c.restoreState()
        c.showPage()
    c.save()
    return buf.getvalue() if buf is not None else None


def _png(image: Image.Image, dpi: int) -> bytes:
    """An RGB image as PNG, unfiltered rows + zlib level 1: the same pixels and pHYs (dpi) as
    Pillow's writer, 2-3× faster (Pillow tries every row filter, the bulk of its encoding time),
    files ~10 % larger."""
    w, h = image.size
    raw = image.tobytes()
    stride = 3 * w
    rows = b"".join(b"\0" + raw[y * stride:(y + 1) * stride] for y in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ppm = int(dpi / 0.0254 + 0.5)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"pHYs", struct.pack(">IIB", ppm, ppm, 1)) + chunk(b"IDAT", zlib.compress(rows, PNG_COMPRESS))
            + chunk(b"IEND", b""))


def _save(image: Image.Image, path: Path, **params) -> Path:
    with atomic_write(path) as tmp:
        image.save(tmp, format="PNG" if path.suffix == ".png" else "JPEG", **params)
    return path


def tts_cell(prep: Prepared, dpi: int, bleed_mm: float) -> tuple[tuple[int, int], int]:
    """((cell w, cell h), bleed in px): the TTS slot size for this card size and resolution."""
    size = prep.game.card_size
    cell_w = min(TTS_MAX_PX // TTS_COLS, round(size.width_mm / 25.4 * dpi))
    cell_h = round(cell_w * size.height_mm / size.width_mm)
    if cell_h * TTS_ROWS > TTS_MAX_PX:
        cell_h = TTS_MAX_PX // TTS_ROWS
        cell_w = round(cell_h * size.width_mm / size.height_mm)
    return (cell_w, cell_h), round(bleed_mm / 25.4 * dpi)


def thumbnail(image: Image.Image, cell: tuple[int, int], cut: int) -> Image.Image:
    """A card image trimmed of its bleed and resized to its TTS slot."""
    return image.crop((cut, cut, image.width - cut, image.height - cut)).resize(cell, Image.LANCZOS)


# --- worker side: one open document per process ------------------------------------------------

_job: dict = {}


def _open(pdf: str, dpi: int, cell: tuple[int, int] | None, cut: int) -> None:
    _job.update(pdf=pdfium.PdfDocument(pdf), dpi=dpi, cell=cell, cut=cut)


def _render_range(task: tuple[int, list[tuple[Path, Path | None]]]) -> tuple[int, tuple[int, int]]:
    """Render pages ``start, start+1, …`` to their PNG paths (and their TTS cells, when asked)."""
    start, paths = task
    size = (0, 0)
    for n, (png, cell_png) in enumerate(paths, start):
        image = _job["pdf"][n].render(scale=_job["dpi"] / 72).to_pil().convert("RGB")
        with atomic_write(png) as tmp:
            tmp.write_bytes(_png(image, _job["dpi"]))
        size = image.size
        if cell_png is not None:
            cell_png.write_bytes(_png(thumbnail(image, _job["cell"], _job["cut"]), _job["dpi"]))
        del image
    return len(paths), size


def _close() -> None:
    if "pdf" in _job:
        _job.pop("pdf").close()


# --- parent side ---------------------------------------------------------------------------------

def write_images(prep: Prepared, out_dir: Path, dpi: int = 300, bleed_mm: float = SHOP_BLEED_MM,
                 tts: bool = True, progress: Progress | None = None, workers: int | None = None) -> ImagesResult:
    """Write per-card PNGs (and TTS sheets) for ``prep`` into ``out_dir``. ``prep`` must have been
    prepared with the same ``bleed_mm``. ``workers``: rendering processes (default: 2 on a
    machine with 2+ cores when there are enough cards to pay for starting them, else 1)."""
    assert prep.bleed_mm == bleed_mm, "prepare() and write_images() need the same bleed"
    result = ImagesResult()
    names = [*(card.id for card in prep.distinct), *(f"back-{b}" for b in prep.backs)]
    if workers is None:
        workers = min(2, os.cpu_count() or 1) if len(names) >= PARALLEL_FROM else 1
    cell, cut = tts_cell(prep, dpi, bleed_mm)
    with tempfile.TemporaryDirectory(prefix="cardpress-images-") as tmp:
        work = Path(tmp)
        pdf = work / "cards.pdf"
        _render_pdf(prep, bleed_mm, pdf)
        pngs = [output_path(out_dir / "images", f"{name}.png") for name in names]
        cells = {name: work / f"{n}.png" for n, name in enumerate(names)} if tts else {}
        pairs = [(png, cells.get(name)) for png, name in zip(pngs, names)]
        tasks = [(i, pairs[i:i + CHUNK]) for i in range(0, len(pairs), CHUNK)]
        done = 0

        def finished(count: int, size: tuple[int, int]) -> None:
            nonlocal done
            done += count
            result.size_px = size or result.size_px
            if progress:
                progress("card images", done, len(names))

        if workers <= 1:
            _open(str(pdf), dpi, cell, cut)
            try:
                for task in tasks:
                    finished(*_render_range(task))
            finally:
                _close()
        else:
            ctx = multiprocessing.get_context("spawn")
            with ctx.Pool(workers, initializer=_open, initargs=(str(pdf), dpi, cell, cut)) as pool:
                for count, size in pool.imap(_render_range, tasks):
                    finished(count, size)
        for png, name in zip(pngs, names):
            (result.backs if name.startswith("back-") else result.cards).append(png)
        if tts:
            _tts(prep, cells, out_dir / "tts", result, progress)
    return result


def _tts(prep: Prepared, cells: dict[str, Path], folder: Path, result: ImagesResult,
         progress: Progress | None) -> None:
    def load(name: str) -> Image.Image:
        with Image.open(cells[name]) as im:
            return im.convert("RGB")

    per_sheet = TTS_COLS * TTS_ROWS - 1  # the last slot is the hidden-card image
    sheets = [prep.sequence[i:i + per_sheet] for i in range(0, len(prep.sequence), per_sheet)]
    for s, batch in enumerate(sheets):
        hidden = load(f"back-{prep.back_of(batch[0])}")
        cell_w, cell_h = hidden.size
        sheet = Image.new("RGB", (cell_w * TTS_COLS, cell_h * TTS_ROWS), "white")
        thumbs: dict[str, Image.Image] = {}  # this sheet's copies share one load
        for slot, card in enumerate(batch):
            thumb = thumbs.get(card.id) or thumbs.setdefault(card.id, load(card.id))
            sheet.paste(thumb, ((slot % TTS_COLS) * cell_w, (slot // TTS_COLS) * cell_h))
        sheet.paste(hidden, ((TTS_COLS - 1) * cell_w, (TTS_ROWS - 1) * cell_h))
        result.tts_sheets.append(_save(sheet, output_path(folder, f"sheet-{s + 1:02d}.jpg"), quality=90))
        del sheet, thumbs
        if progress:
            progress("TTS sheets", s + 1, len(sheets))
    for back in prep.backs:
        result.tts_backs.append(_save(load(f"back-{back}"), output_path(folder, f"back-{back}.jpg"), quality=90))
