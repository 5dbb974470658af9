"""Per-card images for print shops and online tables.

* ``images/<card id>.png``: one image per distinct card at 300 dpi *including* bleed — with the
  default 1/8" bleed a 63 × 88 mm card is 820 × 1115 px — plus
  ``images/back-<name>.png`` for each back design.
* ``tts/sheet-NN.jpg``: Tabletop Simulator deck sheets, 10 × 7 slots of trimmed cards in print
  order (copies repeated), the last slot holding the back TTS shows for hidden cards; and
  ``tts/back-<name>.jpg``.

Route (fastest measured): the faces are drawn by the same painter into a one-card-per-page PDF
in memory, rendered by pypdfium2, and written by Pillow with fast PNG compression.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from .atomic import atomic_write, output_path
from .build import Prepared, Progress, paint_forms

#: Print shops' usual bleed: 1/8 inch.
SHOP_BLEED_MM = 25.4 / 8
TTS_COLS, TTS_ROWS = 10, 7
#: TTS caps a sheet at 4096 px on each side (and loads faster below it).
TTS_MAX_PX = 4096
PNG_COMPRESS = 1  # 10× faster than the default, files ~20% larger: right for intermediates


@dataclass
class ImagesResult:
    cards: list[Path] = field(default_factory=list)
    backs: list[Path] = field(default_factory=list)
    tts_sheets: list[Path] = field(default_factory=list)
    tts_backs: list[Path] = field(default_factory=list)
    size_px: tuple[int, int] = (0, 0)


def _render_pdf(prep: Prepared, bleed_mm: float) -> bytes:
    size = prep.game.card_size
    w, h = (size.width_mm + 2 * bleed_mm) * mm, (size.height_mm + 2 * bleed_mm) * mm
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(w, h), initialFontName=prep.painter.fonts.regular)
    form_of, back_form = paint_forms([c], prep)
    for name in [*form_of.values(), *back_form.values()]:
        c.saveState()
        c.translate(bleed_mm * mm, bleed_mm * mm)
        c.doForm(name)
        c.restoreState()
        c.showPage()
    c.save()
    return buf.getvalue()


def _save(image: Image.Image, path: Path, **params) -> Path:
    with atomic_write(path) as tmp:
        image.save(tmp, format="PNG" if path.suffix == ".png" else "JPEG", **params)
    return path


def write_images(prep: Prepared, out_dir: Path, dpi: int = 300, bleed_mm: float = SHOP_BLEED_MM,
                 tts: bool = True, progress: Progress | None = None) -> ImagesResult:
    """Write per-card PNGs (and TTS sheets) for ``prep`` into ``out_dir``. ``prep`` must have been
    prepared with the same ``bleed_mm``."""
    assert prep.bleed_mm == bleed_mm, "prepare() and write_images() need the same bleed"
    pdf = pdfium.PdfDocument(_render_pdf(prep, bleed_mm))
    result = ImagesResult()
    names = [*(card.id for card in prep.distinct), *(f"back-{b}" for b in prep.backs)]
    rendered: dict[str, Image.Image] = {}
    try:
        for n, name in enumerate(names):
            image = pdf[n].render(scale=dpi / 72).to_pil().convert("RGB")
            path = _save(image, output_path(out_dir / "images", f"{name}.png"), compress_level=PNG_COMPRESS, dpi=(dpi, dpi))
            (result.backs if name.startswith("back-") else result.cards).append(path)
            result.size_px = image.size
            if tts:
                rendered[name] = image
            if progress:
                progress("card images", n + 1, len(names))
    finally:
        pdf.close()
    if tts:
        _tts(prep, rendered, out_dir / "tts", dpi, bleed_mm, result, progress)
    return result


def _tts(prep: Prepared, rendered: dict[str, Image.Image], folder: Path, dpi: int, bleed_mm: float,
         result: ImagesResult, progress: Progress | None) -> None:
    size = prep.game.card_size
    cell_w = min(TTS_MAX_PX // TTS_COLS, round(size.width_mm / 25.4 * dpi))
    cell_h = round(cell_w * size.height_mm / size.width_mm)
    if cell_h * TTS_ROWS > TTS_MAX_PX:
        cell_h = TTS_MAX_PX // TTS_ROWS
        cell_w = round(cell_h * size.width_mm / size.height_mm)
    cut = round(bleed_mm / 25.4 * dpi)

    def trimmed(name: str) -> Image.Image:
        img = rendered[name]
        return img.crop((cut, cut, img.width - cut, img.height - cut)).resize((cell_w, cell_h), Image.LANCZOS)

    thumbs: dict[str, Image.Image] = {}
    per_sheet = TTS_COLS * TTS_ROWS - 1  # the last slot is the hidden-card image
    sheets = [prep.sequence[i:i + per_sheet] for i in range(0, len(prep.sequence), per_sheet)]
    for s, batch in enumerate(sheets):
        sheet = Image.new("RGB", (cell_w * TTS_COLS, cell_h * TTS_ROWS), "white")
        for slot, card in enumerate(batch):
            thumb = thumbs.get(card.id) or thumbs.setdefault(card.id, trimmed(card.id))
            sheet.paste(thumb, ((slot % TTS_COLS) * cell_w, (slot // TTS_COLS) * cell_h))
        hidden = trimmed(f"back-{prep.back_of(batch[0])}")
        sheet.paste(hidden, ((TTS_COLS - 1) * cell_w, (TTS_ROWS - 1) * cell_h))
        result.tts_sheets.append(_save(sheet, output_path(folder, f"sheet-{s + 1:02d}.jpg"), quality=90))
        if progress:
            progress("TTS sheets", s + 1, len(sheets))
    for back in prep.backs:
        result.tts_backs.append(_save(trimmed(f"back-{back}"), output_path(folder, f"back-{back}.jpg"), quality=90))
