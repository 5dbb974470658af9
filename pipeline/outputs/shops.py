"""What a print shop's upload page asks for: ``cardpress export GAME --shop NAME``.

Each shop is a preset kept as data, ``templates/_common/shops/<shop>.yaml``, each value with the
page it came from; a shop whose spec could not be found says so there (``spec_found: false``) and
is refused rather than guessed.

Route: every face and back is painted by the same painter as the sheets into a one-card-per-page
PDF (``pipeline.render.raster``), rendered by pdfium at the shop's resolution (300 dpi) and cut to the
shop's page (trim + bleed, centred on the card). Then:

* ``output: pdf`` (DriveThruCards): each image is converted to CMYK through the shipped ICC
  profile with the shop's total-ink limit (``pipeline.render.cmyk``) and the PDF is written here
  from those images (lossless, Flate): one page per card side in the shop's order, the TrimBox
  at the card's cut, an OutputIntent carrying the CMYK profile, and the PDF/X-1a:2003 keys
  (ISO 15930-4: PDF 1.4, ``GTS_PDFXVersion``, ``Trapped``, TrimBox/BleedBox on every page, a
  ``/GTS_PDFX`` OutputIntent, a document ID). Why images and not vectors: ReportLab writes
  RGB colour operators and RGB images, and a CMYK PDF with no RGB left means converting every
  colour and art file anyway; a raster at 300 dpi is what the shop prints from (its own spec
  asks for 300 dpi images), and text is then part of the image — sharp enough at 300 dpi for
  print, though not selectable. Each distinct image is stored once, however many copies.
* ``output: png`` (The Game Crafter): one RGB PNG per distinct face and per back, exactly the
  preset's pixel size, with an ``sRGB`` chunk (PNG 1.2 §4.2.2.4: the pixels are sRGB).
"""

from __future__ import annotations

import hashlib
import tempfile
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import CardpressError
from engine.i18n import _
from engine.paths import templates_root

from ..atomic import atomic_write, output_path

if TYPE_CHECKING:
    from PIL import Image

    from ..plan import Prepared
    from ..progress import Progress

SHOPS_DIR = templates_root() / "_common" / "shops"
MM_PER_IN = 25.4
#: How far a game's card may differ from a shop's trim size (each side, mm) and still be sent:
#: 63 × 88 mm cards go to shops whose poker trim is 2.5 × 3.5 in (63.5 × 88.9 mm).
SIZE_TOLERANCE_MM = 1.5


class ShopError(CardpressError):
    """An unknown shop, a shop without a known spec, or a game whose cards the shop does not take."""


@dataclass(frozen=True)
class Shop:
    id: str
    name: str
    source: str
    spec_found: bool
    trim_in: tuple[float, float] = (0.0, 0.0)
    bleed_in: float = 0.0
    dpi: int = 300
    output: str = ""
    pages: str = ""
    colour: str = "rgb"
    ink_limit: float = 400.0
    pdfx: str = ""
    pixels: tuple[int, int] | None = None
    path: Path = field(default=Path(), compare=False)

    @property
    def trim_mm(self) -> tuple[float, float]:
        return self.trim_in[0] * MM_PER_IN, self.trim_in[1] * MM_PER_IN

    @property
    def page_px(self) -> tuple[int, int]:
        """The image of one card side, trim + bleed, in pixels."""
        if self.pixels:
            return self.pixels
        return tuple(round((t + 2 * self.bleed_in) * self.dpi) for t in self.trim_in)  # type: ignore[return-value]


def shops() -> dict[str, Shop]:
    """Every shipped shop preset, by id (its file's name)."""
    from engine.yamlio import load_yaml

    found = {}
    for path in sorted(SHOPS_DIR.glob("*.yaml")):
        data = load_yaml(path)
        for key in ("trim_in", "pixels"):
            if key in data:
                data[key] = tuple(data[key])
        known = {k: v for k, v in data.items() if k in Shop.__dataclass_fields__}
        found[path.stem] = Shop(id=path.stem, path=path, **known)
    return found


def shop(name: str) -> Shop:
    """The preset ``name`` (any case); ``ShopError`` naming the shops there are, or saying that
    the shop's spec was not found."""
    every = shops()
    preset = every.get(name.lower())
    if preset is None:
        raise ShopError(_("unknown shop {shop!r}; use {shops}").format(shop=name, shops=", ".join(every)))
    if not preset.spec_found:
        raise ShopError(_("{shop}: its current card spec could not be found, so nothing is guessed (see {file}); "
                          "`cardpress images` writes 300 dpi PNGs with a 1/8 inch bleed to check against the "
                          "shop's upload page").format(shop=preset.name, file=preset.path))
    return preset


@dataclass
class ShopResult:
    shop: Shop
    files: list[Path] = field(default_factory=list)
    pages: int = 0
    size_px: tuple[int, int] = (0, 0)
    max_ink: float = 0.0


def _bleed_mm(preset: Shop, card_w: float, card_h: float) -> float:
    """The bleed to paint around the game's card so that it covers the shop's whole page."""
    page_w, page_h = (t + 2 * preset.bleed_in * MM_PER_IN for t in preset.trim_mm)
    return max((page_w - card_w) / 2, (page_h - card_h) / 2, 0.0) + 0.2  # + a little: no white hairline


def check_size(preset: Shop, card_w: float, card_h: float, game: str) -> None:
    tw, th = preset.trim_mm
    if abs(tw - card_w) > SIZE_TOLERANCE_MM or abs(th - card_h) > SIZE_TOLERANCE_MM:
        raise ShopError(_("{shop} takes {width} × {height} mm cards; {game}'s are {card_w} × {card_h} mm").format(
            shop=preset.name, width=f"{tw:g}", height=f"{th:g}", game=game, card_w=f"{card_w:g}",
            card_h=f"{card_h:g}"))


def _side_images(prep: Prepared, preset: Shop, bleed_mm: float, progress: Progress | None):
    """(name, RGB image of the shop's page size) for each distinct face, then each back."""
    from ..render.raster import faces_pdf, page_images

    names = [*(card.id for card in prep.distinct), *(f"back-{b}" for b in prep.backs)]
    w, h = preset.page_px
    # Scale so that the shop's page (in inches × dpi) is exactly w × h pixels.
    scale = w / ((preset.trim_in[0] + 2 * preset.bleed_in) * 72)
    with tempfile.TemporaryDirectory(prefix="cardpress-shop-") as tmp:
        pdf = Path(tmp) / "cards.pdf"
        faces_pdf(prep, bleed_mm, pdf)
        for n, (name, image) in enumerate(zip(names, page_images(pdf, scale=scale))):
            left, top = (image.width - w) // 2, (image.height - h) // 2
            yield name, image.crop((left, top, left + w, top + h))
            if progress:
                progress(_("shop images"), n + 1, len(names))


def export_shop(game, shop_name: str, out_dir: Path | None = None, deck: Path | None = None,
                progress: Progress | None = None) -> ShopResult:
    """Write what ``shop_name`` asks for into ``out_dir/<shop>/`` (default dist/GAME/<shop>)."""
    from engine.definitions import GameDefinition, load_game

    from ..plan import prepare

    preset = shop(shop_name)
    definition = game if isinstance(game, GameDefinition) else load_game(game)
    size = definition.card_size
    check_size(preset, size.width_mm, size.height_mm, definition.name)
    bleed = _bleed_mm(preset, size.width_mm, size.height_mm)
    prep = prepare(definition, deck, bleed, progress)
    for type_id in dict.fromkeys(card.type for card in prep.sequence):  # a card type may have its own size
        ctype = definition.card_types[type_id]
        check_size(preset, *definition.card_size_of(type_id).mm, f"{definition.name} ({ctype.name})")
    folder = output_path(out_dir or output_path(Path("dist"), definition.id), preset.id)
    result = ShopResult(preset, size_px=preset.page_px)
    if preset.output == "png":
        for name, image in _side_images(prep, preset, bleed, progress):
            result.files.append(write_png(image, output_path(folder, f"{name}.png"), preset.dpi))
        result.pages = len(result.files)
        return result
    from ..render.cmyk import to_cmyk, total_ink

    import numpy as np

    images: dict[str, Image.Image] = {}
    for name, image in _side_images(prep, preset, bleed, progress):
        images[name] = to_cmyk(image, preset.ink_limit)
        result.max_ink = max(result.max_ink, total_ink(np.asarray(images[name])))
    order = []
    for card in prep.sequence:  # back 1, front 1, back 2, front 2…
        sides = [f"back-{prep.back_of(card)}", card.id]
        order += sides if preset.pages == "back-front" else sides[::-1]
    stem = definition.id if deck is None else f"{definition.id}-{Path(deck).stem}"
    target = output_path(folder, f"{stem}.pdf")
    title = _("{game} — cards for {shop}").format(game=definition.name, shop=preset.name)
    write_cmyk_pdf(target, images, order, preset, title)
    result.files.append(target)
    result.pages = len(order)
    return result


def write_png(image: Image.Image, path: Path, dpi: int) -> Path:
    """An RGB PNG with an sRGB chunk (rendering intent 0, perceptual) and its resolution."""
    from PIL import PngImagePlugin

    info = PngImagePlugin.PngInfo()
    info.add(b"sRGB", b"\x00")
    with atomic_write(path) as tmp:
        image.save(tmp, format="PNG", pnginfo=info, dpi=(dpi, dpi), compress_level=6)
    return path


def _pdf_string(text: str) -> bytes:
    """A PDF text string: UTF-16BE with a BOM (PDF 1.4 §3.8.1), hex-encoded."""
    return b"<FEFF" + text.encode("utf-16-be").hex().upper().encode() + b">"


def write_cmyk_pdf(path: Path, images: dict[str, Image.Image], order: list[str], preset: Shop, title: str) -> Path:
    """A PDF/X-1a:2003-style PDF: one page per entry of ``order``, showing ``images[entry]`` (CMYK)
    over the whole page (trim + bleed), the TrimBox at the cut, and a CMYK OutputIntent."""
    from importlib.metadata import PackageNotFoundError, version

    from ..render.cmyk import CMYK_CONDITION, cmyk_profile_bytes

    try:
        producer = f"cardpress {version('cardpress')}"
    except PackageNotFoundError:
        producer = "cardpress"
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    def stream(head: bytes, data: bytes) -> bytes:
        return b"<<" + head + b" /Length %d>>\nstream\n" % len(data) + data + b"\nendstream"

    catalog = add(b"")  # filled in below
    pages = add(b"")
    icc = add(stream(b"/N 4 /Filter /FlateDecode", zlib.compress(cmyk_profile_bytes(), 9)))
    intent = add(b"<</Type /OutputIntent /S /GTS_PDFX /OutputConditionIdentifier " + _pdf_string("Custom")
                 + b" /OutputCondition " + _pdf_string(CMYK_CONDITION) + b" /Info " + _pdf_string(CMYK_CONDITION)
                 + b" /RegistryName (http://www.color.org) /DestOutputProfile %d 0 R>>" % icc)
    xobject = {}
    for name in dict.fromkeys(order):
        im = images[name]
        xobject[name] = add(stream(b"/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceCMYK "
                                   b"/BitsPerComponent 8 /Filter /FlateDecode" % im.size,
                                   zlib.compress(im.tobytes(), 6)))
    pt = 72 / preset.dpi
    kids = []
    for name in order:
        w, h = (v * pt for v in images[name].size)
        b = preset.bleed_in * 72
        content = add(stream(b"", b"q %.4f 0 0 %.4f 0 0 cm /Im0 Do Q" % (w, h)))
        kids.append(add(b"<</Type /Page /Parent %d 0 R /MediaBox [0 0 %.4f %.4f] /BleedBox [0 0 %.4f %.4f] "
                        b"/TrimBox [%.4f %.4f %.4f %.4f] /Resources <</XObject <</Im0 %d 0 R>>>> /Contents %d 0 R>>"
                        % (pages, w, h, w, h, b, b, w - b, h - b, xobject[name], content)))
    objects[catalog - 1] = b"<</Type /Catalog /Pages %d 0 R /OutputIntents [%d 0 R]>>" % (pages, intent)
    objects[pages - 1] = (b"<</Type /Pages /Count %d /Kids [" % len(kids)
                          + b" ".join(b"%d 0 R" % k for k in kids) + b"]>>")
    now = datetime.now(timezone.utc).strftime("D:%Y%m%d%H%M%SZ").encode()
    info = add(b"<</Title " + _pdf_string(title) + b" /Creator " + _pdf_string(producer)
               + b" /Producer " + _pdf_string(producer) + b" /CreationDate (" + now + b") /ModDate (" + now
               + b") /Trapped /False /GTS_PDFXVersion (" + (preset.pdfx or "PDF/X-1a:2003").encode() + b")>>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    doc_id = hashlib.md5(bytes(out)).hexdigest().encode()
    out += (b"trailer\n<</Size %d /Root %d 0 R /Info %d 0 R /ID [<%s> <%s>]>>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objects) + 1, catalog, info, doc_id, doc_id, xref))
    with atomic_write(path) as tmp:
        tmp.write_bytes(bytes(out))
    return path


def describe(preset: Shop) -> str:
    """What each card side is, for the summary line: its pixels, resolution and colour."""
    w, h = preset.page_px
    if preset.colour == "cmyk":
        return _("{width} × {height} px at {dpi} dpi, CMYK, total ink ≤ {limit} %").format(
            width=w, height=h, dpi=preset.dpi, limit=f"{preset.ink_limit:g}")
    return _("{width} × {height} px at {dpi} dpi, sRGB").format(width=w, height=h, dpi=preset.dpi)


__all__ = ["Shop", "ShopError", "ShopResult", "export_shop", "shop", "shops", "write_cmyk_pdf", "write_png",
           "check_size", "describe"]
