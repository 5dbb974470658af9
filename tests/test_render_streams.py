"""Finished pages and forms are kept compressed while a PDF is drawn (memory flat with the
deck), and the PDF written is byte for byte ReportLab's own; laid-out faces kept packed come
back equal."""

from __future__ import annotations

import io

import pytest
from reportlab.pdfgen.canvas import Canvas

from pipeline.layout import Layouts
from pipeline.layout.elements import Element, pack, unpack
from pipeline.render.streams import compress_form, compress_page


@pytest.fixture(autouse=True)
def binary_streams(monkeypatch):
    """As the pipeline draws (pipeline.render.painter turns ASCII85 off); with it on, nothing is compressed early."""
    from reportlab import rl_config

    monkeypatch.setattr(rl_config, "useA85", 0)


def _pdf(compress: bool, page_compression: int = 1) -> bytes:
    buf = io.BytesIO()
    c = Canvas(buf, invariant=1, pageCompression=page_compression)
    for n in range(3):
        c.beginForm(f"Face{n}", 0, 0, 100, 100)
        c.setFillColorRGB(0.2 * n, 0.3, 0.4)
        c.roundRect(5, 5, 90, 90, 4, fill=1)
        c.drawString(10, 50, f"card {n} é")
        c.endForm()
        if compress:
            compress_form(c, f"Face{n}")
    for n in range(4):
        c.doForm(f"Face{n % 3}")
        c.line(0, 0, 100 + n, 100)
        c.showPage()
        if compress:
            compress_page(c)
    c.save()
    return buf.getvalue()


@pytest.mark.parametrize("page_compression", [1, 0])
def test_compressing_early_writes_the_same_pdf(page_compression):
    assert _pdf(True, page_compression) == _pdf(False, page_compression)


def test_with_ascii85_on_nothing_is_compressed_early_and_the_pdf_is_the_same(monkeypatch):
    from reportlab import rl_config

    monkeypatch.setattr(rl_config, "useA85", 1)
    assert _pdf(True) == _pdf(False)


def test_saving_object_by_object_writes_the_same_pdf(tmp_path):
    from pipeline.render.streams import save

    def draw(path):
        c = Canvas(str(path), invariant=1, pageCompression=1)
        c.setFont("Helvetica", 12)
        for n in range(5):
            c.drawString(72, 72 + n, f"page {n}")
            c.showPage()
        c.drawString(72, 72, "unfinished page: save() finishes it")
        return c

    draw(tmp_path / "plain.pdf").save()
    save(draw(tmp_path / "streamed.pdf"), tmp_path / "streamed.pdf")
    assert (tmp_path / "streamed.pdf").read_bytes() == (tmp_path / "plain.pdf").read_bytes()
    from reportlab.pdfbase import pdfdoc

    assert pdfdoc.PDFFile.__name__ == "PDFFile"  # ReportLab's own collector is back


def test_a_finished_form_and_page_hold_only_compressed_bytes():
    c = Canvas(io.BytesIO(), pageCompression=1)
    c.beginForm("F", 0, 0, 10, 10)
    for k in range(200):
        c.line(0, 0, k, 10)
    c.endForm()
    compress_form(c, "F")
    form = c._doc.idToObject["FormXob.F"]
    assert form.stream is None and len(form.Contents.content) < 2000  # 200 similar lines, deflated
    c.doForm("F")
    c.showPage()
    compress_page(c)
    assert c._doc.Pages.pages[-1].stream is None


@pytest.mark.parametrize("game", ["backrooms", "duel", "ridm"])
def test_packed_faces_come_back_equal(game):
    from engine.check import check_game
    from engine.definitions import load_game

    definition = load_game(game)
    layouts = Layouts(definition)
    report = check_game(definition)
    for card in report.cards.values():
        face = layouts.face(card, 3.0)
        blob = pack(face)
        assert blob is not None and len(blob) < 4096
        back = unpack(blob)
        assert back == face and [e.source for e in back] == [e.source for e in face]


def test_a_value_marshal_cannot_keep_is_not_packed():
    from markupsafe import Markup

    assert pack([Element("text", {"text": Markup("<b>x</b>")})]) is None
