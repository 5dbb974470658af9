"""Card glitches seen on the printed sheets (issue 10 §1, card-level fixes), each read from what
is laid out or printed:

- ridm's class name ran into the ring of its 10 mm badge (all 22 operators);
- the backrooms level back's 层级 label was crossed by a frame line (all 11 levels);
- the dark title bar's corner peeked out below the cost badge;
- a full-width colon was followed by an ASCII space ("天赋： 本干员").
"""

from __future__ import annotations

import io
import math

import numpy as np
import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from engine.cards import load_cards
from engine.definitions import load_game
from pipeline.outputs.sheets import build_sheets
from pipeline.plan import BuildOptions, prepare
from pipeline.layout import Layouts

RING_PT = 1.2  # the badge's white ring (base-card.j2)


def _operators():
    game = load_game("ridm")
    layouts = Layouts(game)
    return [(card, layouts.face(card, 3)) for card in load_cards(game) if card.type == "operator"]


def _badge(elements):
    disc = next(e for e in elements if e.kind == "circle")
    label = next(e for e in elements if e.kind == "text" and e.get("field") == "class")
    return disc, label


def test_the_class_label_sits_inside_the_badges_inner_circle():
    operators = _operators()
    assert len(operators) == 22
    for card, elements in operators:
        disc, label = _badge(elements)
        inner = float(disc["r"]) - RING_PT * 0.3528 / 2
        cx, cy = float(disc["cx"]), float(disc["cy"])
        for x in (label["x"], label["x"] + label["w"]):
            for y in (label["y"], label["y"] + label["h"]):
                assert math.hypot(x - cx, y - cy) < inner, (card.id, card.values["class"])
        # The type is no taller than its box, so its ink stays in the box too.
        assert float(label["size"]) * 0.3528 <= float(label["h"]) + 1e-6, card.id


def _paint(elements, painter, size, card=None, dpi=300):
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=((size.width_mm + 6) * mm, (size.height_mm + 6) * mm),
               initialFontName=painter.fonts.regular)
    c.translate(3 * mm, 3 * mm)
    painter.paint(c, elements, card, label="test")
    c.showPage()
    c.save()
    return np.asarray(pdfium.PdfDocument(buf.getvalue())[0].render(scale=dpi / 72).to_pil().convert("RGB")).astype(int)


def _px(mm_value, dpi=300):
    return int(round((mm_value + 3) * dpi / 25.4))


@pytest.fixture(scope="module")
def ridm_prep():
    return prepare("ridm")


def test_no_white_of_the_ring_is_covered_by_the_class_label(ridm_prep):
    """Rasterised: the ring is white all round (no glyph of the label reaches it), so it reads as
    a ring. Measured on the widest class name's card."""
    card, elements = next((c, e) for c, e in _operators() if c.values["class"] == "重装")
    img = _paint(elements, ridm_prep.painter, ridm_prep.game.card_size, card)
    disc, _label = _badge(elements)
    cx, cy, r = float(disc["cx"]), float(disc["cy"]), float(disc["r"])
    ring = RING_PT * 0.3528
    # Sample the middle of the ring on 72 points round the disc: all near white.
    for k in range(72):
        a = 2 * math.pi * k / 72
        x, y = cx + r * math.cos(a), cy + r * math.sin(a)
        assert img[_px(y), _px(x)].min() > 200, (k, img[_px(y), _px(x)])
    # Just inside the ring, nothing white (the label's glyphs keep off it).
    for k in range(72):
        a = 2 * math.pi * k / 72
        d = r - ring / 2 - 0.25
        x, y = cx + d * math.cos(a), cy + d * math.sin(a)
        assert img[_px(y), _px(x)].max() < 120, (k, img[_px(y), _px(x)])


def test_no_title_bar_corner_shows_below_the_badge():
    for card, elements in _operators():
        disc, _label = _badge(elements)
        bar = next(e for e in elements if e.kind == "rect" and e.get("fill") == elements[0].get("fill")
                   and float(e["y"]) == 4.5)
        cx, cy, r = float(disc["cx"]), float(disc["cy"]), float(disc["r"])
        # The bar's left end (its rounded corners) lies under the disc.
        for y in (bar["y"], bar["y"] + bar["h"]):
            assert math.hypot(float(bar["x"]) - cx, y - cy) < r, card.id


def test_the_bar_corner_is_covered_when_rasterised(ridm_prep):
    card, elements = _operators()[0]
    img = _paint(elements, ridm_prep.painter, ridm_prep.game.card_size, card)
    disc, _label = _badge(elements)
    cx, cy, r = float(disc["cx"]), float(disc["cy"]), float(disc["r"])
    bar = next(e for e in elements if e.kind == "rect" and float(e["y"]) == 4.5)
    bottom = float(bar["y"]) + float(bar["h"])
    # Below-left of the disc, between the disc and the bar's bottom: the card's paper only.
    paper = np.array([0xee, 0xf1, 0xf3])
    for x in np.arange(4.7, cx - 1.0, 0.2):
        edge = cy + math.sqrt(max(r * r - (x - cx) ** 2, 0))
        for y in np.arange(edge + 0.4, bottom - 0.2, 0.2):
            pixel = img[_px(y), _px(x)]
            assert np.abs(pixel - paper).max() < 40, (x, y, pixel)


def test_no_frame_line_crosses_the_level_backs_label():
    game = load_game("backrooms")
    elements = Layouts(game).back("level", 3)
    label = next(e for e in elements if e.kind == "text" and e.get("text") == "层级")
    x0, y0 = float(label["x"]), float(label["y"])
    x1, y1 = x0 + float(label["w"]), y0 + float(label["h"])
    for e in elements:
        if e.kind != "rect" or not e.get("stroke"):
            continue
        half = float(e.get("stroke_width", 0.5)) * 0.3528 / 2
        left, top = float(e["x"]), float(e["y"])
        right, bottom = left + float(e["w"]), top + float(e["h"])
        for y in (top, bottom):  # horizontal edges
            assert not (y0 - half < y < y1 + half and left < x1 and right > x0), (e.source, y)
        for x in (left, right):  # vertical edges crossing the label's rows
            assert not (x0 - half < x < x1 + half and top < y1 and bottom > y0), (e.source, x)


def test_no_full_width_colon_is_followed_by_a_space_in_the_built_pdfs(tmp_path):
    result = build_sheets("ridm", BuildOptions(out_dir=tmp_path, papers=("a4",)))
    text = "".join(page.extract_text() or "" for page in PdfReader(result.files[0].path).pages)
    assert "天赋：" in text  # operators' talents are printed…
    assert "： " not in text  # …with no ASCII space after the full-width colon
