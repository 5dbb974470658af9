"""Card art: normalise each artwork once into a content-hashed cache.

PNG art straight into a PDF costs ~0.2 s per image and ~15× the size (measured): we resample
to 300 dpi at the art box (never upscale), flatten to JPEG unless the image has real
transparency, and key the cache on the source bytes and the target size, so a second build —
or another card using the same file — pays nothing. Drawing by *filename* lets ReportLab embed
each image once per PDF.

Art comes from an untrusted folder: a file is read bounded, an image claiming more than
``MAX_IMAGE_PIXELS`` is refused before it is decoded, and every decoder failure is an
``ArtError`` naming the file.
"""

from __future__ import annotations

import hashlib
import io
import re
import warnings
from pathlib import Path

from PIL import Image

from engine.errors import CardpressError
from engine.i18n import N_, _
from engine.limits import MAX_ART_FILE_BYTES, MAX_IMAGE_PIXELS
from engine.paths import read_bounded

from .atomic import atomic_write
from .render.fonts import cache_dir

PRINT_DPI = 300
MM_PER_INCH = 25.4
JPEG_QUALITY = 90
#: 16-bit samples (0..65535) → 8-bit (0..255): 65535 / 255.
_SIXTEEN_TO_EIGHT = 257
#: Pillow's own guard, set to ours: it raises ``DecompressionBombError`` past twice this.
Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS


class ArtError(CardpressError):
    """An art file exists but cannot be read as an image (or is too large to be art)."""

    def __init__(self, path: Path, reason: str):
        self.path, self.reason = Path(path), reason
        super().__init__(f"{path}: {reason}")

    def __reduce__(self):  # raised in worker processes: must survive pickling with its path
        return (type(self), (self.path, self.reason))


def _has_alpha(img) -> bool:
    if img.mode in ("RGBA", "LA") or (img.mode == "P" and "transparency" in img.info):
        alpha = img.convert("RGBA").getchannel("A")
        return alpha.getextrema()[0] < 255
    return False


def to_display_mode(img: Image.Image) -> Image.Image:
    """``img`` in a mode ``convert("RGB"/"RGBA")`` maps faithfully.

    Pillow opens 16-bit greyscale PNGs as ``I;16``/``I`` (0..65535); converting those straight
    to RGB clips every value above 255 to white, so they are scaled to 8 bits first. Palette,
    LA, CMYK and 8-bit greyscale already convert correctly.
    """
    if img.mode.startswith("I;16") or img.mode == "I":
        img = img.convert("I") if img.mode != "I" else img
        return img.point(lambda v: v * (1 / _SIXTEEN_TO_EIGHT)).convert("L")
    if img.mode == "F":
        return img.point(lambda v: v * 255).convert("L")
    return img


def open_image(data: bytes, src: Path) -> Image.Image:
    """Decode art bytes, refusing images over ``MAX_IMAGE_PIXELS`` before decoding pixels."""
    with warnings.catch_warnings():
        # Pillow only warns between 1× and 2× its limit; for us the limit is the limit.
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            img = Image.open(io.BytesIO(data))
            w, h = img.size
            if w * h > MAX_IMAGE_PIXELS:
                raise ArtError(src, _("image is {w} × {h} = {megapixels:,.0f} megapixels; cardpress refuses "
                                      "art over {limit:,.0f} megapixels")
                               .format(w=w, h=h, megapixels=w * h / 1e6, limit=MAX_IMAGE_PIXELS / 1e6))
            img.load()
        except ArtError:
            raise
        except Image.UnidentifiedImageError:
            raise ArtError(src, _("cannot read image (not a PNG, JPEG or WebP file, or damaged)")) from None
        except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
            # Raised by Image.open before we see the size; Pillow's message carries the count.
            claimed = re.search(r"\((\d+) pixels\)", str(exc))
            size = (_("{megapixels:,.0f} megapixels").format(megapixels=int(claimed.group(1)) / 1e6) if claimed
                    else _("too many pixels"))
            raise ArtError(src, _("image is {size}; cardpress refuses art over {limit:,.0f} megapixels")
                           .format(size=size, limit=MAX_IMAGE_PIXELS / 1e6)) from None
        except Exception as exc:  # Pillow's decoders raise OSError, ValueError, SyntaxError, …
            raise ArtError(src, _("cannot read image ({error})").format(error=exc)) from None
    return img


def normalised_art(src: Path, box_w_mm: float, box_h_mm: float) -> Path:
    """Path of ``src`` resampled for a ``box_w_mm`` × ``box_h_mm`` box at 300 dpi (cover fit)."""
    from PIL import ImageOps

    try:
        data = read_bounded(src, MAX_ART_FILE_BYTES, N_("art file"))
    except OSError as exc:
        raise ArtError(src, _("cannot read image ({error})").format(error=exc.strerror or exc)) from None
    except CardpressError as exc:  # not a regular file, or too large
        raise ArtError(src, str(exc)) from None
    target = (round(box_w_mm / MM_PER_INCH * PRINT_DPI), round(box_h_mm / MM_PER_INCH * PRINT_DPI))
    key = hashlib.sha1(data + f"|{target}|{JPEG_QUALITY}|2".encode()).hexdigest()[:20]
    folder = cache_dir() / "art"
    for suffix in (".jpg", ".png"):
        hit = folder / f"{key}{suffix}"
        if hit.is_file():
            return hit
    img = open_image(data, src)
    try:
        ImageOps.exif_transpose(img, in_place=True)  # turned only if EXIF says so, no copy otherwise
        img = to_display_mode(img)
        alpha = _has_alpha(img)
        mode = "RGBA" if alpha else "RGB"
        if img.mode != mode:  # convert() copies even to the same mode: 2 ms a 300 dpi artwork
            img = img.convert(mode)
        # Cover-fit: crop to the box's aspect ratio, then shrink (never enlarge).
        w, h = img.size
        ratio = target[0] / target[1]
        if w / h > ratio:
            nw = round(h * ratio)
            img = img.crop(((w - nw) // 2, 0, (w - nw) // 2 + nw, h))
        else:
            nh = round(w / ratio)
            img = img.crop((0, (h - nh) // 2, w, (h - nh) // 2 + nh))
        if img.width > target[0]:
            img = img.resize(target, Image.LANCZOS)
    except Exception as exc:  # a mode Pillow cannot turn into RGB, a damaged EXIF block, …
        raise ArtError(src, _("cannot read image ({error})").format(error=exc)) from None
    out = folder / f"{key}{'.png' if alpha else '.jpg'}"
    with atomic_write(out) as tmp:
        if alpha:
            img.save(tmp, "PNG", optimize=False)
        else:
            img.save(tmp, "JPEG", quality=JPEG_QUALITY, optimize=True)
    return out
