"""Draw: paint a card's element list with ReportLab, checking every glyph and every text box.

``CardPainter.paint(canvas, elements, ...)`` draws in a frame whose origin is the card's trim
bottom-left, in points. Text is checked against the font before it is drawn (a missing glyph is
an error naming card, field and characters) and fitted to its box (the largest size that fits,
down to the element's ``min_size``; still too big = an error naming card and field).
"""

from __future__ import annotations

import os
from collections import OrderedDict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, Iterable, Sequence

from reportlab import rl_config
from reportlab.lib.colors import HexColor, Color
from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY, TA_LEFT, TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.lib.utils import ImageReader
from reportlab.platypus import Flowable, Paragraph

from engine import limits
from engine.cards import Card
from engine.errors import CardpressError, Location
from engine.i18n import N_, _
from engine.paths import UnsafePath, check_regular, confine

from ..art import normalised_art
from .fonts import FontSet
from ..layout import Element
from .text import TextOverflow, fit_paragraph, plain_text

_ALIGN = {"left": TA_LEFT, "center": TA_CENTER, "right": TA_RIGHT, "justify": TA_JUSTIFY}


class CardTextError(CardpressError):
    """Text of a card cannot be printed: a glyph the font lacks, or text that cannot fit its box.

    ``where`` is the card's file and line (or, for a back, the template element), so the message
    reads ``cards/units.yaml, line 12: card 'scout', field 'text': …``.
    """

    def __init__(self, card: str, field: str, message: str, where: Location | str | None = None):
        self.card, self.field, self.where = card, field, where
        text = _("card {card!r}, field {field!r}: {error}").format(card=card, field=field, error=message)
        super().__init__(_("{where}: {message}").format(where=where, message=text) if where else text)


class GlyphMissing(CardTextError):
    def __init__(self, card: str, field: str, chars: str, where: Location | str | None = None):
        self.chars = chars
        listing = " ".join(f"{c!r} (U+{ord(c):04X})" for c in chars)
        super().__init__(card, field, _("the font has no glyph for {chars}; change the text or the font").format(chars=listing), where)


class CardImageError(CardTextError):
    """An ``image`` element names a file outside the game folder, not an image, or one too large."""


# Binary streams: ReportLab's default ASCII85-wraps every stream (images included), making
# PDFs 25% larger and spending time encoding. Every reader since PDF 1.0 takes binary.
rl_config.useA85 = 0

_RECENT_PARAGRAPHS = 16
#: Cards of one type share one rules-text size (``CardPainter.share_sizes``), but one card with
#: much text does not pull its whole type below this: it alone shrinks further (to its min_size).
#: 7 pt is about the smallest Chinese body text that stays comfortable on a card at arm's length.
SHARED_SIZE_FLOOR_PT = 7.0
_colors: dict[str, Color] = {}
_BLACK = Color(0, 0, 0)
_WHITE = Color(1, 1, 1)


def _initial(name: str) -> str:
    """The glyph shown on placeholder art: the name's first Chinese character, else its first."""
    for ch in name:
        if "\u3400" <= ch <= "\u9fff":
            return ch
    return name[:1]


def _mix(a: Color, b: Color, t: float) -> Color:
    """``a`` blended toward ``b`` by ``t`` (opaque; see ``_placeholder``)."""
    return Color(a.red + (b.red - a.red) * t, a.green + (b.green - a.green) * t, a.blue + (b.blue - a.blue) * t)


def color(value: str | None) -> Color | None:
    if value is None or value == "none":
        return None
    c = _colors.get(value)
    if c is None:
        c = _colors[value] = HexColor(value, hasAlpha=len(value) == 9)
    return c


def _bounded_image(path: Path, fail) -> ImageReader:
    """Decode an image element's file with the pixel limit (a decompression bomb is refused
    before it is decoded) into 8-bit RGB(A), as ReportLab needs."""
    from PIL import Image

    try:
        with Image.open(path) as img:
            w, h = img.size
            if w * h > limits.MAX_IMAGE_PIXELS:
                raise fail(_("image {name!r} has {w} × {h} pixels; at most {limit:,} are read")
                           .format(name=path.name, w=w, h=h, limit=limits.MAX_IMAGE_PIXELS))
            img.load()
            if img.mode in ("I;16", "I;16B", "I;16L", "I"):
                # 16-bit greyscale: scale to 8 bits (a plain convert clips everything to white).
                img = img.point(lambda v: v / 256).convert("L")
            if img.mode not in ("RGB", "RGBA", "L", "LA"):
                img = img.convert("RGBA" if "A" in img.getbands() or "transparency" in img.info else "RGB")
            else:
                img = img.copy()
    except CardImageError:
        raise
    except (Image.DecompressionBombError, OSError, ValueError, SyntaxError) as exc:
        raise fail(_("image {name!r} cannot be read as an image ({error})").format(name=path.name, error=exc)) from None
    return ImageReader(img)


class CardPainter:
    """Draws element lists for one build. Holds the caches (fitted sizes, normalised art)."""

    def __init__(self, fonts: FontSet, card_w_mm: float, card_h_mm: float, base_dir: Path | None = None):
        self.fonts = fonts
        self.w_mm, self.h_mm = card_w_mm, card_h_mm
        self.base_dir = base_dir
        self._fit_sizes: dict[tuple, float] = {}
        # The last few wrapped paragraphs: a face painted into several PDFs (one per paper) in a
        # row reuses them instead of wrapping again. Small, so memory stays flat.
        self._paragraphs: OrderedDict[tuple, tuple[Paragraph, float]] = OrderedDict()
        self._art_cache: dict[tuple, Path] = {}
        self._images: dict[Path, ImageReader] = {}
        #: Where the card being painted comes from (its file and line), for error messages.
        self._where: Location | str | None = None
        #: Rules-text size per (card type, field), from ``share_sizes``; the type being painted.
        self.type_sizes: dict[tuple[str, str], float] = {}
        self._card_type: str | None = None
        #: The image files (path, mask) the last ``paint`` drew, in order; None when it drew an
        #: image that is not a file (an ``image`` element's decoded picture).
        self.images_drawn: list[tuple[str, str | None]] | None = []

    def art_to_prepare(self, jobs: set[tuple[Path, float, float]]) -> list[tuple[Path, float, float]]:
        """The artworks ``(file, box w mm, box h mm)`` of ``jobs`` not yet normalised here, in order."""
        return sorted(key for key in jobs if key not in self._art_cache)

    def prepare_art(self, jobs: Iterable[tuple[Path, float, float]], progress=None, processes: int | None = None,
                    done: Callable[[int], None] | None = None) -> None:
        """Normalise artworks ``(file, box w mm, box h mm)`` before drawing.

        Normalising (decode, crop, resample, JPEG-encode) is the only CPU-heavy step of a cold
        build and each image is independent, so with ``processes`` unset it spreads over the
        machine's cores; a build that splits its work itself passes 1. ``done(n)`` (or
        ``progress``) hears how many are ready.
        """
        todo = self.art_to_prepare(set(jobs))
        if not todo:
            return
        workers = min(len(todo) // 8, processes or os.cpu_count() or 1)

        def finished(n: int) -> None:
            if done:
                done(n)
            if progress:
                progress(_("preparing art"), n, len(todo))

        if workers > 1:
            with ProcessPoolExecutor(workers) as pool:
                results = pool.map(normalised_art, *zip(*todo), chunksize=8)
                for n, (key, path) in enumerate(zip(todo, results)):
                    self._art_cache[key] = path
                    finished(n + 1)
        else:
            for n, key in enumerate(todo):
                self._art_cache[key] = normalised_art(*key)
                finished(n + 1)

    def known_art(self) -> list[tuple[str, float, float, str]]:
        """The normalised art of this painter as plain values (to hand to another process)."""
        return [(str(src), w, h, str(path)) for (src, w, h), path in self._art_cache.items()]

    def learn_art(self, known: Iterable[tuple[str, float, float, str]]) -> None:
        """Take normalised art found by another process (``known_art``)."""
        for src, w, h, path in known:
            self._art_cache[(Path(src), w, h)] = Path(path)

    # ------------------------------------------------------------------ geometry helpers
    def _box(self, e: Element) -> tuple[float, float, float, float]:
        """Element box in points, PDF orientation (x, y of bottom-left, w, h)."""
        x, y, w, h = (float(e[k]) for k in ("x", "y", "w", "h"))
        return x * mm, (self.h_mm - y - h) * mm, w * mm, h * mm

    def _check_glyphs(self, text: str, card: str, field: str) -> None:
        missing = self.fonts.missing(text)
        if missing:
            raise GlyphMissing(card, field, missing, self._where)

    # ------------------------------------------------------------------ element kinds
    @staticmethod
    def _paint_style(c, e: Element) -> tuple[int, int] | None:
        """Set fill and stroke from the element; return (stroke, fill) flags, None if invisible.
        Call inside saveState/restoreState."""
        fill, stroke = color(e.get("fill")), color(e.get("stroke"))
        if fill is None and stroke is None:
            return None
        if fill is not None:
            c.setFillColor(fill)
        if stroke is not None:
            c.setStrokeColor(stroke)
            c.setLineWidth(float(e.get("stroke_width", 0.5)))
        return int(stroke is not None), int(fill is not None)

    def _rect(self, c, e: Element) -> None:
        x, y, w, h = self._box(e)
        c.saveState()
        flags = self._paint_style(c, e)
        if flags:
            radius = float(e.get("radius", 0)) * mm
            if radius:
                c.roundRect(x, y, w, h, radius, stroke=flags[0], fill=flags[1])
            else:
                c.rect(x, y, w, h, stroke=flags[0], fill=flags[1])
        c.restoreState()

    def _circle(self, c, e: Element) -> None:
        cx, cy, r = float(e["cx"]) * mm, (self.h_mm - float(e["cy"])) * mm, float(e["r"]) * mm
        c.saveState()
        flags = self._paint_style(c, e)
        if flags:
            c.circle(cx, cy, r, stroke=flags[0], fill=flags[1])
        c.restoreState()

    def _line(self, c, e: Element) -> None:
        c.saveState()
        c.setStrokeColor(color(e.get("color", "#000000")))
        c.setLineWidth(float(e.get("width", 0.5)))
        if e.get("dash"):
            c.setDash(e["dash"])
        c.line(float(e["x1"]) * mm, (self.h_mm - float(e["y1"])) * mm,
               float(e["x2"]) * mm, (self.h_mm - float(e["y2"])) * mm)
        c.restoreState()

    def _polygon(self, c, e: Element) -> None:
        pts = [(float(px) * mm, (self.h_mm - float(py)) * mm) for px, py in e["points"]]
        c.saveState()
        flags = self._paint_style(c, e)
        if flags:
            path = c.beginPath()
            path.moveTo(*pts[0])
            for p in pts[1:]:
                path.lineTo(*p)
            path.close()
            c.drawPath(path, stroke=flags[0], fill=flags[1])
        c.restoreState()

    def _text(self, c, e: Element, card: str) -> None:
        """One line of text, shrunk to its box width if needed, centred vertically in its box."""
        text = str(e.get("text", ""))
        if not text:
            return
        field = e.get("field", "text")
        self._check_glyphs(text, card, field)
        x, y, w, h = self._box(e)
        font = self.fonts.bold if e.get("bold") else self.fonts.regular
        size = float(e.get("size", 9))
        min_size = float(e.get("min_size", size * 0.6))
        width = stringWidth(text, font, size)
        if width > w:
            size = size * w / width
            if size < min_size - 1e-6:
                raise CardTextError(card, field, _("{text!r} is too long for its {width:.1f} mm line even at {size:g} pt")
                                    .format(text=text, width=w / mm, size=min_size), self._where)
            width = stringWidth(text, font, size)
        # Baseline so the em box (ascent ~0.88, descent ~0.12 for Noto Sans) centres in the box.
        base = y + (h - size) / 2 + 0.14 * size
        c.saveState()
        c.setFillColor(color(e.get("color", "#000000")))
        c.setFont(font, size)
        align = e.get("align", "left")
        if align == "center":
            c.drawCentredString(x + w / 2, base, text)
        elif align == "right":
            c.drawRightString(x + w, base, text)
        else:
            c.drawString(x, base, text)
        c.restoreState()

    def _para_style(self, e: Element) -> tuple[str, float, float, float, ParagraphStyle]:
        """(markup, size, min_size, leading ratio, style) of a para element. Chinese rules text is
        justified unless the template asks otherwise (``align``)."""
        size = float(e.get("size", 8.5))
        min_size = float(e.get("min_size", min(5.5, size)))  # the default floor never exceeds the size itself
        leading = float(e.get("leading", 1.32))
        style = ParagraphStyle(
            "card", fontName=self.fonts.regular, fontSize=size, leading=size * leading,
            textColor=color(e.get("color", "#000000")), alignment=_ALIGN[e.get("align", "justify")],
            wordWrap="CJK", allowWidows=1, allowOrphans=1,
        )
        return str(e.get("text", "")), size, min_size, leading, style

    @staticmethod
    def _fit_key(e: Element, markup: str, w: float, h: float, size: float, min_size: float, leading: float) -> tuple:
        return (markup, w, h, size, min_size, leading, e.get("align", "justify"), e.get("color", "#000000"))

    def known_fits(self) -> dict[tuple, float]:
        """The fitted sizes found here, as plain values (to hand to another process)."""
        return dict(self._fit_sizes)

    def learn_fits(self, known: dict[tuple, float]) -> None:
        """Take fitted sizes found by another process (``known_fits``)."""
        self._fit_sizes.update(known)

    def fits_of(self, elements: Sequence[Element]) -> list[tuple[tuple, float]]:
        """The fitted sizes known for the para elements of a face (``fitted_size``), as
        (key, size) pairs to keep with its layout and give back with ``learn_fits``."""
        out = []
        for e in elements:
            if e.kind != "para":
                continue
            markup, size, min_size, leading, _rest = self._para_style(e)
            x, y, w, h = self._box(e)
            key = self._fit_key(e, markup, w, h, size, min_size, leading)
            if key in self._fit_sizes:
                out.append((key, self._fit_sizes[key]))
        return out

    def fitted_size(self, e: Element) -> float | None:
        """The largest size at which a para element's text fits its box on its own, or None when
        it fits at no allowed size or cannot be read (painting reports that, with the card)."""
        markup, size, min_size, leading, style = self._para_style(e)
        if not markup.strip():
            return None
        x, y, w, h = self._box(e)
        key = self._fit_key(e, markup, w, h, size, min_size, leading)
        if key not in self._fit_sizes:
            try:
                self._fit_sizes[key] = fit_paragraph(markup, style, w, h, size, min_size).size
            except (TextOverflow, ValueError):
                return None
        return self._fit_sizes[key]

    def text_fits(self, faces: Iterable[tuple[str, Sequence[Element]]]) -> dict[tuple[str, str], tuple[float, float]]:
        """For each (card type, field) of para elements in ``faces`` (card type, face elements):
        the smallest size at which a card's text fits on its own, and the floor a shared size
        keeps to (the element's size, else ``SHARED_SIZE_FLOOR_PT``, else its ``min_size``;
        the smallest among the type's cards). Plain values, so halves of a game fitted in two
        processes merge (``share_fits``)."""
        fits: dict[tuple[str, str], tuple[float, float]] = {}
        for card_type, elements in faces:
            for e in elements:
                if e.kind != "para":
                    continue
                fitted = self.fitted_size(e)
                if fitted is None:
                    continue
                key = (card_type, str(e.get("field", "text")))
                _markup, size, min_size, _leading, _rest = self._para_style(e)
                floor = min(size, max(min_size, SHARED_SIZE_FLOOR_PT))
                known = fits.get(key)
                fits[key] = (fitted, floor) if known is None else (min(known[0], fitted), min(known[1], floor))
        return fits

    def share_fits(self, *parts: dict[tuple[str, str], tuple[float, float]]) -> dict[tuple[str, str], float]:
        """Set one rules-text size per (card type, field) from ``text_fits`` of every card of the
        game: the largest size at which every card of the type fits, but not below the floor (a
        card that needs less shrinks alone). Painting cards then caps their paragraphs there."""
        merged: dict[tuple[str, str], tuple[float, float]] = {}
        for part in parts:
            for key, (fitted, floor) in part.items():
                known = merged.get(key)
                merged[key] = (fitted, floor) if known is None else (min(known[0], fitted), min(known[1], floor))
        self.type_sizes = {key: max(fitted, floor) for key, (fitted, floor) in merged.items()}
        return dict(self.type_sizes)

    def share_sizes(self, faces: Iterable[tuple[str, Sequence[Element]]]) -> dict[tuple[str, str], float]:
        """``share_fits`` of ``text_fits`` of ``faces``: every card of the game, in one process."""
        return self.share_fits(self.text_fits(faces))

    def _para(self, c, e: Element, card: str) -> None:
        markup, size, min_size, leading, style = self._para_style(e)
        if not markup.strip():
            return
        field = e.get("field", "text")
        self._check_glyphs(plain_text(markup), card, field)
        x, y, w, h = self._box(e)
        cap = self.type_sizes.get((self._card_type, str(field))) if self._card_type else None
        alone = None
        if cap is not None and cap < size:
            # Fitted on its own below the shared size (share_sizes), it keeps that size: the
            # largest that fits up to the element's size is the largest up to the cap too.
            alone = self._fit_sizes.get(self._fit_key(e, markup, w, h, size, min_size, leading))
            size = cap
            min_size = min(min_size, size)
            style.fontSize, style.leading = size, size * leading
        key = self._fit_key(e, markup, w, h, size, min_size, leading)
        fitted_size = self._fit_sizes.get(key)
        if fitted_size is None and alone is not None and alone <= size:
            fitted_size = alone
        recent = self._paragraphs.get(key)
        if recent is not None:
            para, ph = recent
        else:
            try:
                if fitted_size is None:
                    fitted = fit_paragraph(markup, style, w, h, size, min_size)
                    self._fit_sizes[key] = fitted.size
                    para, ph = fitted.paragraph, fitted.height
                else:
                    style.fontSize, style.leading = fitted_size, fitted_size * leading
                    para = Paragraph(markup, style)
                    _pw, ph = para.wrap(w, h)
            except TextOverflow as exc:
                raise CardTextError(card, field, _("text does not fit its box even at {size:g} pt ({error})")
                                    .format(size=min_size, error=exc), self._where) from None
            except ValueError as exc:  # ReportLab's paragraph parser on markup it cannot read
                raise CardTextError(card, field, _("paragraph markup cannot be read: {error}").format(error=exc),
                                    self._where) from None
        if recent is None:
            self._paragraphs[key] = (para, ph)
            if len(self._paragraphs) > _RECENT_PARAGRAPHS:
                self._paragraphs.popitem(last=False)
        valign = e.get("valign", "top")
        top = y + h
        if valign == "middle":
            top = y + h - (h - ph) / 2
        elif valign == "bottom":
            top = y + ph
        para.drawOn(c, x, top - ph)

    def _art(self, c, e: Element, card: Card | None) -> None:
        x, y, w, h = self._box(e)
        radius = float(e.get("radius", 0)) * mm
        c.saveState()
        path = c.beginPath()
        if radius:
            path.roundRect(x, y, w, h, radius)
        else:
            path.rect(x, y, w, h)
        c.clipPath(path, stroke=0, fill=0)
        norm = self.art_file(e, card)
        if norm is not None:
            mask = "auto" if norm.suffix == ".png" else None
            c.drawImage(str(norm), x, y, w, h, mask=mask)
            if self.images_drawn is not None and (str(norm), mask) not in self.images_drawn:
                self.images_drawn.append((str(norm), mask))
        else:
            self._placeholder(c, e, x, y, w, h, card)
        c.restoreState()

    def art_file(self, e: Element, card: Card | None) -> Path | None:
        """The normalised file an ``art`` element prints (named by its content), or None when the
        card has no art file and the placeholder is drawn."""
        src = card.art_path if card is not None else None
        if src is None or not src.is_file():
            return None
        key = (src, float(e["w"]), float(e["h"]))
        norm = self._art_cache.get(key)
        if norm is None:
            norm = self._art_cache[key] = normalised_art(src, float(e["w"]), float(e["h"]))
        return norm

    def _placeholder(self, c, e: Element, x: float, y: float, w: float, h: float, card: Card | None) -> None:
        """A designed stand-in for missing art: the type colour shading darker downwards, fine
        hatching, and the name's first glyph in a lighter tint.

        Only opaque colours and plain fills: transparency groups and shadings are page resources
        in ReportLab, which a form XObject (how each face is stored once) cannot reference.
        """
        base = color(e.get("color", "#50606e"))
        bands = 24
        for i in range(bands):
            t = i / (bands - 1)
            c.setFillColor(_mix(base, _BLACK, 0.15 + 0.35 * t))
            c.rect(x, y + h - (i + 1) * h / bands, w, h / bands + 0.3, stroke=0, fill=1)
        c.setStrokeColor(_mix(base, _WHITE, 0.12))
        c.setLineWidth(0.6)
        step = 2.2 * mm
        k = -h
        while k < w:
            c.line(x + k, y, x + k + h, y + h)
            k += step
        label = str(e.get("label") or (_initial(card.name) if card is not None else ""))
        if label:
            self._check_glyphs(label, card.id if card else "back", "name")
            size = min(w, h) * 0.55
            c.setFillColor(_mix(base, _WHITE, 0.30))
            c.setFont(self.fonts.bold, size)
            c.drawCentredString(x + w / 2, y + h / 2 - size * 0.36, label)

    def _image(self, c, e: Element, card: str) -> None:
        x, y, w, h = self._box(e)
        self.images_drawn = None  # a decoded picture: the face cannot be kept (buildcache)
        c.drawImage(self._image_reader(e, card), x, y, w, h, mask="auto",
                    preserveAspectRatio=bool(e.get("keep_ratio", True)))

    def _image_reader(self, e: Element, card: str) -> ImageReader:
        """The image of an ``image`` element: a regular file inside the game folder, within the
        pixel limit, decoded once per build."""
        src = Path(e["src"])
        where = e.source or self._where

        def fail(message: str) -> CardImageError:
            return CardImageError(card, "src", message, where)

        if self.base_dir is None:
            raise fail(_("an image element needs a game folder to read from"))
        try:
            real = confine(self.base_dir / src, [self.base_dir], N_("image"))
            check_regular(real, N_("image"))
        except UnsafePath as exc:
            raise fail(str(exc)) from None
        if not real.is_file():
            raise fail(_("image file {name!r} not found in the game folder").format(name=str(src)))
        cached = self._images.get(real)
        if cached is None:
            cached = self._images[real] = _bounded_image(real, fail)
        return cached

    # ------------------------------------------------------------------ entry point
    def paint(self, c, elements: Sequence[Element], card: Card | None = None, label: str = "back",
              size_mm: tuple[float, float] | None = None) -> None:
        """Draw ``elements`` with the card's trim bottom-left at the canvas origin. ``size_mm``:
        this card's (w, h) when its type has a size of its own (elements are placed from the top
        of the card, so the height decides where each lands); else the painter's."""
        if size_mm is not None and size_mm != (self.w_mm, self.h_mm):
            kept = self.w_mm, self.h_mm
            self.w_mm, self.h_mm = size_mm
            try:
                self.paint(c, elements, card, label)
            finally:
                self.w_mm, self.h_mm = kept
            return
        name = card.id if card is not None else label
        self.images_drawn = []
        self._where = card.where if card is not None else None
        self._card_type = card.type if card is not None else None
        for e in elements:
            if card is None:
                self._where = e.source or None
            kind = e.kind
            if kind == "rect":
                self._rect(c, e)
            elif kind == "para":
                self._para(c, e, name)
            elif kind == "text":
                self._text(c, e, name)
            elif kind == "art":
                self._art(c, e, card)
            elif kind == "circle":
                self._circle(c, e)
            elif kind == "line":
                self._line(c, e)
            elif kind == "polygon":
                self._polygon(c, e)
            elif kind == "image":
                self._image(c, e, name)


class CardFlowable(Flowable):
    """A card face (or back) as a platypus flowable, scaled to ``width_mm`` (for rulebooks).

    Drawn by the same painter and templates as the card sheets, clipped to the trim.
    """

    def __init__(self, painter: CardPainter, elements: Sequence[Element], card: Card | None, width_mm: float,
                 corner_mm: float = 3.0, size_mm: tuple[float, float] | None = None):
        super().__init__()
        self.painter, self.elements, self.card = painter, elements, card
        # The card's own trim size (a card type may have one; default the painter's, the game's).
        self.size_mm = size_mm or (painter.w_mm, painter.h_mm)
        self.scale = width_mm / self.size_mm[0]
        self.width = width_mm * mm
        self.height = self.size_mm[1] * self.scale * mm
        self.corner = corner_mm * self.scale * mm

    def wrap(self, availWidth, availHeight):
        return self.width, self.height

    def draw(self):
        c = self.canv
        c.saveState()
        path = c.beginPath()
        path.roundRect(0, 0, self.width, self.height, self.corner)
        c.clipPath(path, stroke=0, fill=0)
        c.scale(self.scale, self.scale)
        self.painter.paint(c, self.elements, self.card, size_mm=self.size_mm)
        c.restoreState()
        c.saveState()
        c.setStrokeColor(Color(0.55, 0.55, 0.55))
        c.setLineWidth(0.4)
        c.roundRect(0, 0, self.width, self.height, self.corner, stroke=1, fill=0)
        c.restoreState()
