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

``record_form`` keeps a just-painted form (its deflated stream and the images it shows);
``inject_form`` registers it in another document: the same bytes, the same resources. Written
against ReportLab 5.x's ``pdfgen.canvas`` and ``pdfbase.pdfdoc`` (the image registration below
is ``Canvas.drawImage``'s own; pyproject pins ReportLab below 6).
"""

from __future__ import annotations

from typing import Sequence

from reportlab.lib.utils import _digester
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from .streams import _DeflatedStream

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
