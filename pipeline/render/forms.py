"""Reuse a painted card face (a form XObject) from one build's PDF in the next one's.

A face's form is its content stream plus the resources it names: the document's fonts (by
internal name, ``/F1+0``: font 1, subset 0) and the images it shows (``/FormXob.<digest>``). The
stream's text is encoded through the document's font subsets — which code each character has
is decided as characters are first drawn (ReportLab's ``TTFont.State``). So a kept stream is
valid in a new document exactly when that document gives every character the same code and
every font the same internal name. ``capture_encoding`` takes that state from a finished
document (before ``save``, which consumes it); ``seed_encoding`` gives it to a new one before
anything is drawn. Characters new in this build are then appended after the seeded ones, so
the kept forms stay valid and only the last subset of each font grows.

``paint_forms`` paints each distinct face and back of a build once into a form on every PDF
of the build (or adds the form a cache kept: ``FormReuse``); sheets then place the forms by
name, so copies cost a few bytes and each image is embedded once.

``record_form`` keeps a just-painted form (its deflated stream and the images it shows);
``inject_form`` registers it in another document: the same bytes, the same resources. Written
against ReportLab 5.x's ``pdfgen.canvas`` and ``pdfbase.pdfdoc`` (the image registration below
is ``Canvas.drawImage``'s own; pyproject pins ReportLab below 6).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Sequence

from reportlab.lib.units import mm
from reportlab.lib.utils import _digester
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from engine.cards import Card
from engine.errors import CardpressError
from engine.i18n import _, ngettext

from ..art import ArtError
from ..layout import Element
from ..progress import DRAWING, Label, Progress
from .painter import CardTextError
from .streams import _DeflatedStream, compress_form

if TYPE_CHECKING:
    from ..buildcache import BuildCache
    from ..plan import Prepared

Images = tuple[tuple[str, "str | None"], ...]


def capture_encoding(canvas: Canvas) -> list | None:
    """The document's fonts in the order they were named, with each TrueType font's character
    codes, as plain values: ``[(font name, internal name, codes or None), …]``; None when a
    font is one this module cannot carry over."""
    doc = canvas._doc
    out = []
    for font_name, mapped in doc.fontMapping.items():
        internal = mapped.lstrip("/")  # fontMapping holds PDF names: "/F1"
        font = pdfmetrics.getFont(font_name)
        if isinstance(font, TTFont):
            state = font.state.get(doc)
            if state is None or state.frozen:
                return None
            out.append((font_name, internal, (dict(state.assignments), [list(s) for s in state.subsets],
                                              state.nextCode)))
        else:
            out.append((font_name, internal, None))
    return out


def valid_encoding(encoding: object) -> bool:
    """Whether ``encoding`` (read back from a cache file) has the shape ``capture_encoding`` makes."""
    if not isinstance(encoding, list):
        return False
    for item in encoding:
        if not (isinstance(item, tuple) and len(item) == 3 and isinstance(item[0], str) and isinstance(item[1], str)):
            return False
        codes = item[2]
        if codes is None:
            continue
        if not (isinstance(codes, tuple) and len(codes) == 3 and isinstance(codes[0], dict)
                and isinstance(codes[1], list) and isinstance(codes[2], int)):
            return False
        if not all(isinstance(k, int) and isinstance(v, int) for k, v in codes[0].items()):
            return False
        if not all(isinstance(s, list) and all(isinstance(c, int) for c in s) for s in codes[1]):
            return False
    return True


def seed_encoding(canvas: Canvas, encoding: list) -> bool:
    """Give a new document (nothing drawn yet) the fonts and character codes of ``encoding``.
    False when it cannot be given exactly (a font no longer registered); the document is then
    left as it was."""
    doc = canvas._doc
    if doc.fontMapping:
        return False
    fonts = []
    for font_name, internal, codes in encoding:
        try:
            font = pdfmetrics.getFont(font_name)
        except KeyError:
            return False
        if isinstance(font, TTFont) != (codes is not None):
            return False
        fonts.append((font, internal, codes))
    for font, internal, codes in fonts:
        if codes is None:
            got = doc.getInternalFontName(font.fontName)
            if got != "/" + internal:
                raise AssertionError(f"seeded font {font.fontName} became {got}, not /{internal}")
            continue
        state = font._assignState(doc)
        assignments, subsets, next_code = codes
        state.assignments = dict(assignments)
        state.subsets = [list(s) for s in subsets]
        state.nextCode = next_code
        state.internalName = internal
        doc.fontMapping[font.fontName] = "/" + internal
        doc.delayedFonts.append(font)
    return True


def image_name(path: str, mask: str | None) -> str:
    """The name ``Canvas.drawImage`` gives an image drawn from the file ``path``."""
    return _digester(f"{path}{mask}".encode("utf-8"))


def record_form(canvas: Canvas, name: str, images: Sequence[tuple[str, str | None]]) -> bytes | None:
    """The deflated stream of form ``name`` (just finished and compressed by
    ``streams.compress_form``), or None when it is not kept compressed (ASCII85 on)."""
    form = canvas._doc.idToObject.get(pdfdoc.xObjectName(name))
    contents = getattr(form, "Contents", None)
    if not isinstance(contents, _DeflatedStream):
        return None
    return contents.content


def _register_image(canvas: Canvas, path: str, mask: str | None) -> str:
    # What Canvas.drawImage does the first time it sees a file (reportlab 5.1, canvas.py).
    name = image_name(path, mask)
    doc = canvas._doc
    reg = doc.getXObjectName(name)
    if doc.idToObject.get(reg) is None:
        img = pdfdoc.PDFImageXObject(name, path, mask=mask)
        img.name = name
        canvas._setXObjects(img)
        doc.Reference(img, reg)
        doc.addForm(name, img)
        smask = getattr(img, "_smask", None)
        if smask:
            sreg = doc.getXObjectName(smask.name)
            if doc.idToObject.get(sreg) is None:
                canvas._setXObjects(smask)
                img.smask = doc.Reference(smask, sreg)
            else:
                img.smask = pdfdoc.PDFObjectReference(sreg)
            del img._smask
    return name


def inject_form(canvas: Canvas, name: str, bbox: tuple[float, float, float, float], stream: bytes,
                images: Images) -> None:
    """Add form ``name`` to the document from a kept stream (``record_form``) and its images."""
    form = pdfdoc.PDFFormXObject(*bbox)
    form.compression = canvas._pageCompression
    form.Contents = _DeflatedStream.deflated(stream, "xobject form stream")
    form.stream = None
    names = [_register_image(canvas, path, mask) for path, mask in images]
    form.XObjects = canvas._doc.xobjDict(names) if names else None
    canvas._doc.addForm(name, form)


class CardDrawError(CardpressError):
    """A card could not be drawn for a reason other than its text (art, a drawing error)."""

    def __init__(self, label: str, field: str | None, error: CardpressError):
        self.card, self.field, self.error = label, field, error
        if field:
            text = _("card {card!r}, field {field!r}: {error}").format(card=label, field=field, error=error)
        else:
            text = _("card {card!r}: {error}").format(card=label, error=error)
        super().__init__(text)


class CardErrors(CardpressError):
    """Several cards cannot be drawn; every one is listed."""

    def __init__(self, errors: list[CardpressError]):
        self.errors = errors
        lines = [str(e) for e in errors]
        super().__init__(lines[0] if len(lines) == 1 else
                         ngettext("{n} card cannot be printed:", "{n} cards cannot be printed:", len(lines))
                         .format(n=len(lines)) + "\n  - " + "\n  - ".join(lines))


def paint_forms(canvases: list[Canvas], prep: "Prepared", progress: Progress | None = None) -> tuple[dict, dict]:
    """Lay out every distinct face once and paint it into a form XObject on each canvas (one
    per paper), then the backs; return the form names ``({card id: name}, {back: name})``.

    A face laid out in advance (``prep.faces``) is dropped as soon as it is painted, and its
    fitted paragraphs are reused for the next canvas. With ``prep.reuse`` (canvases seeded with
    the cache's encoding: ``FormReuse.seed``), a face whose digest the cache holds is not laid out
    or painted: its kept form is added as it is; the others are painted and kept. A card that
    cannot print (bad template, missing glyph, text too long) is recorded and the others still
    painted, so one run reports them all (``CardErrors``); the callers' temp files are then
    dropped.
    """
    b = prep.bleed_mm

    def bbox(size_mm: tuple[float, float]) -> tuple[float, float, float, float]:
        return (-b * mm, -b * mm, (size_mm[0] + b) * mm, (size_mm[1] + b) * mm)

    errors: list[CardpressError] = []
    reuse = prep.reuse
    face_digests, back_digests = prep.digests or ({}, {})

    def kept(digest: str | None):
        return reuse.form(digest) if reuse is not None and digest is not None else None

    def paint_everywhere(name: str, elements: list[Element], card: Card | None, label: str,
                         digest: str | None, size_mm: tuple[float, float]) -> None:
        # The same drawing goes into every canvas; a card that fails is reported once.
        failed = False
        for c in canvases:
            c.beginForm(name, *bbox(size_mm))
            if not failed:
                try:
                    prep.painter.paint(c, elements, card, label=label, size_mm=size_mm)
                except CardTextError as exc:
                    errors.append(exc)
                    failed = True
                except ArtError as exc:
                    errors.append(CardDrawError(label, "art", exc))
                    failed = True
                except CardpressError as exc:
                    errors.append(CardDrawError(label, None, exc))
                    failed = True
            c.endForm()
            compress_form(c, name)
        images = prep.painter.images_drawn
        if reuse is not None and digest is not None and not failed and images is not None:
            stream = record_form(canvases[0], name, images)
            if stream is not None:
                reuse.pending[digest] = (stream, tuple(images))
        prep.painted += 1

    def inject_everywhere(name: str, record: list, size_mm: tuple[float, float]) -> None:
        for c in canvases:
            inject_form(c, name, bbox(size_mm), record[0], record[1])
        prep.reused += 1

    form_of: dict[str, str] = {}
    distinct = prep.distinct
    for n, card in enumerate(distinct):
        name = form_of[card.id] = f"Face{n}"
        size_mm = prep.game.card_size_of(card.type).mm
        record = kept(face_digests.get(card.id))
        if record is not None:
            prep.faces.pop(card.id, None)
            inject_everywhere(name, record, size_mm)
        else:
            try:
                if card.id in prep.face_errors:
                    raise prep.face_errors[card.id]
                elements = prep.faces.pop(card.id, None) or prep.layouts.face(card, b)
            except CardpressError as exc:
                elements = []
                errors.append(exc)
            paint_everywhere(name, elements, card, card.id, face_digests.get(card.id), size_mm)
        if progress:
            progress(Label(DRAWING), n + 1, len(distinct))
    back_form: dict[str, str] = {}
    for n, (back, elements) in enumerate(prep.backs.items()):
        name = back_form[back] = f"Back{n}"
        size_mm = prep.game.back_size(back).mm
        record = kept(back_digests.get(back))
        if record is not None:
            inject_everywhere(name, record, size_mm)
        else:
            paint_everywhere(name, elements, None, f"back {back}", back_digests.get(back), size_mm)
    if errors:
        raise CardErrors(errors)
    return form_of, back_form


class FormReuse:
    """The forms of a build's cache this build may use (its PDFs seeded with the cache's
    encoding: ``render.forms``), and the forms painted in this build, kept only once every PDF
    of the build is written (``commit``)."""

    def __init__(self, cache: BuildCache):
        self.cache = cache
        self.pending: dict[str, tuple[bytes, tuple]] = {}
        self.encoding = cache.encoding

    def form(self, digest: str) -> list | None:
        return self.cache.form(digest) if self.encoding is not None else None

    def seed(self, canvas: Canvas) -> None:
        """Give a new PDF the cache's encoding; when it cannot be given, no form is reused."""
        if self.encoding is not None and not seed_encoding(canvas, self.encoding):
            self.encoding = None

    def capture(self, canvas: Canvas) -> None:
        """The encoding of this build's PDF, just before it is saved (saving consumes it)."""
        self.captured = capture_encoding(canvas)

    def commit(self) -> None:
        captured = getattr(self, "captured", None)
        if captured is None:
            self.cache.reset_forms()
            return
        if self.encoding is None:
            self.cache.reset_forms()  # a new encoding: the old forms are not valid with it
        for digest, (stream, images) in self.pending.items():
            self.cache.keep_form(digest, stream, images)
        self.cache.encoding = captured


def scratch_canvas(font: str) -> Canvas:
    """A PDF in memory that is never saved: faces painted there only to learn they print."""
    return Canvas(io.BytesIO(), initialFontName=font)
