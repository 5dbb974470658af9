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

import multiprocessing
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from PIL import Image

from engine.i18n import _

from ..atomic import atomic_write, output_path
from ..render.fonts import release_font_files
from ..render.raster import OpenPages, faces_pdf, full_size, png_of_rows, render_rows, trimmed_place
from .tts import TTS_COLS, TTS_MAX_PX, TTS_ROWS, TtsDeck, plan_decks, write_saved_object

if TYPE_CHECKING:
    from ..plan import Prepared
    from ..progress import Progress

#: Print shops' usual bleed: 1/8 inch.
SHOP_BLEED_MM = 25.4 / 8
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
            faces_pdf(replace(prep, sequence=theirs, backs={}), bleed_mm, Path(pdfs["theirs"]))

    def parent() -> None:
        faces_pdf(replace(prep, sequence=mine), bleed_mm, Path(pdfs["mine"]))

    in_parallel(child, parent, jobs)
    page = {card.id: (pdfs["theirs"], n) for n, card in enumerate(theirs)}
    page.update((card.id, (pdfs["mine"], n)) for n, card in enumerate(mine))
    order = [(*page[card.id], card.id) for card in distinct]
    return order + [(pdfs["mine"], len(mine) + n, f"back-{back}") for n, back in enumerate(prep.backs)]


def _save(image: Image.Image, path: Path, **params) -> Path:
    with atomic_write(path) as tmp:
        image.save(tmp, format="PNG" if path.suffix == ".png" else "JPEG", **params)
    return path


def tts_cell(size_mm: tuple[float, float], dpi: int) -> tuple[int, int]:
    """(cell w, cell h): the TTS slot size for cards of ``size_mm`` at ``dpi`` (a 10 × 7 sheet
    stays within TTS's 4096 px)."""
    w, h = size_mm
    cell_w = min(TTS_MAX_PX // TTS_COLS, round(w / 25.4 * dpi))
    cell_h = round(cell_w * h / w)
    if cell_h * TTS_ROWS > TTS_MAX_PX:
        cell_h = TTS_MAX_PX // TTS_ROWS
        cell_w = round(cell_h * w / h)
    return cell_w, cell_h


# --- worker side: one open document per process ------------------------------------------------

_job: dict = {}


def _open(dpi: int, bleed_mm: float) -> None:
    _job.update(pages=OpenPages(), dpi=dpi, bleed_pt=bleed_mm / 25.4 * 72)


def _render_range(task: list[tuple[str, int, Path, Path | None, tuple[int, int]]]) -> tuple[int, tuple[int, int]]:
    """Render each (PDF, page, PNG path, TTS cell path or None, TTS cell size) of ``task``."""
    dpi, size = _job["dpi"], (0, 0)
    for pdf, n, png, cell_png, cell in task:
        page = _job["pages"].page(pdf, n)
        size = full_size(page, dpi)
        rows = render_rows(page, *size, (0, 0, *size))
        with atomic_write(png) as tmp:
            tmp.write_bytes(png_of_rows(rows, *size, dpi))
        del rows
        if cell_png is not None:
            cell_png.write_bytes(png_of_rows(render_rows(page, *cell, trimmed_place(page, cell, _job["bleed_pt"])),
                                             *cell, dpi))
        page.close()
    return len(task), size


def _close() -> None:
    pages = _job.pop("pages", None)
    if pages is not None:
        pages.close()


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
    # Each TTS deck (one per back design) has the cell of its back's card size.
    cell_of = {f"back-{back}": tts_cell(prep.game.back_size(back).mm, dpi) for back in prep.backs}
    cell_of.update((card.id, cell_of[f"back-{prep.back_of(card)}"]) for card in prep.distinct)
    with tempfile.TemporaryDirectory(prefix="cardpress-images-") as tmp:
        work = Path(tmp)
        pages = _render_pdfs(prep, bleed_mm, work, 2 if workers > 1 else 1)
        release_font_files(prep.painter.fonts)  # painted: the workers render from the PDFs
        pngs = [output_path(out_dir / "images", f"{name}.png") for _pdf, _page, name in pages]
        cells = {name: work / f"{n}.png" for n, (_pdf, _page, name) in enumerate(pages)} if tts else {}
        jobs = sorted((pdf, page, png, cells.get(name), cell_of[name]) for (pdf, page, name), png in zip(pages, pngs))
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
            _open(dpi, bleed_mm)
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
            with ctx.Pool(workers, initializer=_open, initargs=(dpi, bleed_mm)) as pool:
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
    if "pages" in _job:  # the rendering is over: drop what pdfium decoded
        _job["pages"].close()
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
