"""Keep a PDF's finished pages and forms compressed while the rest of it is drawn.

ReportLab holds every page and form XObject of a document as plain content-stream text until
``Canvas.save()``, and compresses them only then, so a card sheet PDF's memory grows with the
deck: about 9 KB per distinct face and 2 KB per page, plus the same again while saving. Calling
``compress_form`` after each ``endForm`` and ``compress_page`` after each ``showPage`` deflates
the stream at once (zlib at ReportLab's own level) and keeps only the compressed bytes. The PDF
written is byte for byte the one ReportLab writes (a test checks it): the same FlateDecode
stream, dictionary and comment, only made earlier.
"""

from __future__ import annotations

import zlib
from pathlib import Path

from reportlab.pdfbase import pdfdoc
from reportlab.pdfgen.canvas import Canvas


class _DeflatedStream(pdfdoc.PDFStream):
    """A stream whose content is already FlateDecode-compressed; formatted as ``PDFStream``
    formats one it compresses itself (Filter, then Length, after the other entries)."""

    def __init__(self, data: bytes, comment: str):
        super().__init__(content=zlib.compress(data))
        self.__Comment__ = comment

    @classmethod
    def deflated(cls, compressed: bytes, comment: str) -> "_DeflatedStream":
        """One made from bytes already compressed (a form kept from an earlier build)."""
        stream = cls.__new__(cls)
        pdfdoc.PDFStream.__init__(stream, content=compressed)
        stream.__Comment__ = comment
        return stream

    def format(self, document) -> bytes:
        dictionary = pdfdoc.PDFDictionary(self.dictionary.dict.copy())
        dictionary["Filter"] = pdfdoc.PDFArray([pdfdoc.PDFName("FlateDecode")])
        content = document.encrypt.encode(self.content)
        body = pdfdoc.format(content, document)
        dictionary["Length"] = len(content)
        return pdfdoc.format(dictionary, document) + b"\nstream\n" + body + b"endstream\n"


def _as_bytes(stream: str | bytes) -> bytes:
    # What ReportLab's zlib filter does with the text it is given.
    return stream.encode("utf8") if isinstance(stream, str) else stream


def compress_form(canvas: Canvas, name: str) -> None:
    """Deflate the form XObject ``name`` just finished with ``endForm`` (page compression on)."""
    form = canvas._doc.idToObject[pdfdoc.xObjectName(name)]
    if form.compression and form.stream and not form.Contents and not pdfdoc.rl_config.useA85:
        form.Contents = _DeflatedStream(_as_bytes(form.stream), "xobject form stream")
        form.stream = None


def compress_page(canvas: Canvas) -> None:
    """Deflate the page just finished with ``showPage`` (page compression on)."""
    page = canvas._doc.Pages.pages[-1]
    if page.compression and page.stream and not page.Contents and not pdfdoc.rl_config.useA85:
        page.Contents = _DeflatedStream(_as_bytes(page.stream), "page stream")
        page.stream = None


def save(canvas: Canvas, path: Path) -> None:
    """``canvas.save()`` that writes each object to ``path`` as soon as it is formatted.

    ReportLab formats the whole document into a list of byte strings and joins them before
    writing: twice the PDF's size in memory at the end of a build (22 MB for a 10,000-card
    sheet PDF). Here the same bytes go to the file in the same order as they are made; only
    ``PDFFile``, the collector ReportLab's formatter creates, is swapped for the length of the
    call (one canvas at a time: build processes draw with one thread).
    """
    if len(canvas._code):
        canvas.showPage()
    document = canvas._doc
    with open(path, "wb") as fh:

        class _ToFile(_Collector):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                for chunk in self.strings:  # the header ReportLab writes first
                    fh.write(chunk)
                self.strings = []
                self.write = fh.write

        pdfdoc.PDFFile = _ToFile
        try:
            rest = document.GetPDFData(canvas)
        finally:
            pdfdoc.PDFFile = _Collector
        document._savedToFile = True
        fh.write(rest)  # empty: every object went to the file


_Collector = pdfdoc.PDFFile
