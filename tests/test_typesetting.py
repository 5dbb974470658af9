"""Card rules text set like a Chinese book, checked on the printed faces (positions from the PDF):
one rules-text size per card type, no last line of one glyph plus punctuation, the punctuation
geometry taken from the font itself, justified lines flush with the box."""

from __future__ import annotations

import collections

import pytest
from reportlab.lib.enums import TA_JUSTIFY
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import Paragraph

from engine.check import check_game
from pipeline.plan import prepare
from pipeline.render.painter import SHARED_SIZE_FLOOR_PT
from pipeline.render.fonts import register_fonts
from pipeline.render.text import CANNOT_START, blank_sides, plain_text

from test_linebreak import _font_sides, _page_chars, check_typeset

GAMES = ("backrooms", "duel", "ridm")


def _faces_pdf(game: str, path):
    """Every card face of a game on its own page; returns [(card, rules para element)] in page order."""
    prep = prepare(check_game(game).game)
    size = prep.game.card_size
    canvas = Canvas(str(path), pagesize=(size.width_mm * mm, size.height_mm * mm))
    out = []
    for card in prep.cards.values():
        elements = prep.layouts.face(card, prep.bleed_mm)
        prep.painter.paint(canvas, elements, card)
        canvas.showPage()
        para = next(e for e in elements if e.kind == "para" and e.get("field", "text") == "text")
        out.append((card, para))
    canvas.save()
    return prep, out


def _rules_lines(chars, para, card_h_mm):
    """The glyphs inside the rules box, grouped into lines by baseline."""
    x0 = float(para["x"]) * mm
    x1 = x0 + float(para["w"]) * mm
    top = float(para["y"]) * mm - 1
    bottom = (float(para["y"]) + float(para["h"])) * mm + 1
    rows = collections.defaultdict(list)
    for c in chars:
        baseline = card_h_mm * mm + c["top"]  # pdfium y is from the bottom; ours from the top
        if x0 - 8 <= c["x0"] <= x1 and top <= baseline <= bottom:
            rows[round(baseline, 1)].append(c)
    return [sorted(rows[k], key=lambda c: c["x0"]) for k in sorted(rows)], x0, x1 - x0


@pytest.fixture(scope="module", params=GAMES)
def faces(request, tmp_path_factory):
    path = tmp_path_factory.mktemp("faces") / f"{request.param}.pdf"
    prep, cards = _faces_pdf(request.param, path)
    pages = _page_chars(path)
    h = prep.game.card_size.height_mm
    return prep, [(card, para, *_rules_lines(chars, para, h)) for (card, para), chars in zip(cards, pages)]


def test_one_rules_text_size_per_card_type(faces):
    prep, cards = faces
    by_type = collections.defaultdict(list)
    for card, para, lines, x, width in cards:
        sizes = {round(c["size"], 2) for line in lines for c in line}
        assert len(sizes) == 1, (card.id, sizes)
        by_type[card.type].append((sizes.pop(), card, para))
    fonts = register_fonts()
    for card_type, entries in by_type.items():
        shared = max(s for s, _, _ in entries)
        template_size = max(float(p.get("size", 8.5)) for _, _, p in entries)
        for size, card, para in entries:
            if size < shared:  # shrinks alone: only below the floor, when it cannot fit at the shared size
                assert shared <= SHARED_SIZE_FLOOR_PT, (card.id, size, shared)
                assert not _fits(para, shared, fonts), (card.id, size, shared)
        if shared < template_size:  # the largest shared size: one more step and some card overflows,
            # unless the type is at the floor and only its longest texts shrank below it
            shrunk = any(size < shared for size, _, _ in entries)
            assert (shrunk and shared == SHARED_SIZE_FLOOR_PT) or any(
                not _fits(p, shared + 0.25, fonts) for _, _, p in entries), (card_type, shared)


def _fits(para, size, fonts) -> bool:
    style = ParagraphStyle("f", fontName=fonts.regular, fontSize=size, leading=size * float(para.get("leading", 1.32)),
                           wordWrap="CJK", alignment=TA_JUSTIFY)
    w, h = float(para["w"]) * mm, float(para["h"]) * mm
    _, used = Paragraph(str(para["text"]), style).wrap(w, h)
    return used <= h + 0.01


def test_no_last_line_of_one_glyph(faces):
    prep, cards = faces
    for card, para, lines, x, width in cards:
        text = plain_text(str(para["text"]))
        segments = [s for s in text.split("\n") if s.strip()]
        # Lines of the PDF, cut into the text's hard-broken segments.
        flat, k = lines, 0
        for segment in segments:
            glyphs = len(segment.replace(" ", ""))
            seg_lines, count = [], 0
            while k < len(flat) and count < glyphs:
                seg_lines.append(flat[k])
                count += sum(1 for c in flat[k] if c["text"] != " ")
                k += 1
            if len(seg_lines) > 1:
                last = "".join(c["text"] for c in seg_lines[-1])
                content = [c for c in last if c != " " and c not in CANNOT_START]
                assert len(content) > 1, (card.id, last)


def test_rules_text_is_justified_and_compressed_on_the_face(faces):
    prep, cards = faces
    sides = _font_sides(register_fonts().paths[0])
    justified = 0
    for card, para, lines, x, width in cards:
        text = plain_text(str(para["text"]))
        # The keyword font is the bold instance; its marks sit on the same halves (tested below).
        justified += check_typeset(lines, x, width, text, sides)
    assert justified > 0


@pytest.mark.parametrize("weight", [0, 1])
def test_blank_halves_come_from_the_font(weight):
    fonts = register_fonts()
    name = (fonts.regular, fonts.bold)[weight]
    expected = _font_sides(fonts.paths[weight])
    found = {ch: side for ch, side in blank_sides(name).items() if ch in expected}
    assert found == expected
    assert found["，"] == "right" and found["「"] == "left"  # Simplified Chinese: ，。 sit left
    assert blank_sides("Helvetica") == {}  # no geometry known: nothing is compressed


def test_an_orphan_is_pulled_down():
    """"…被摧 / 毁。" → the line above gives a glyph so the last line has two."""
    fonts = register_fonts()
    style = ParagraphStyle("t", fontName=fonts.regular, fontSize=10, leading=13, wordWrap="CJK", alignment=TA_JUSTIFY)
    text = "对方单位受到3点伤害后被摧毁。"
    # 10 glyphs a line: without the rule the second line would be "毁。"
    para = Paragraph(text, style)
    para.wrap(100, 1000)
    lines = ["".join(w.text for w in line.words) for line in para.blPara.lines]
    assert "".join(lines) == text and len(lines) == 2
    assert len(lines[-1].rstrip("。")) >= 2, lines
