"""Chinese line breaking: across many box widths, no line starts or ends with a forbidden mark,
no line is wider than its box, and no character is lost or reordered; justified and compressed
lines checked on the PDF (pdfplumber positions): no ink outside the box, no gap over the limit,
last lines ragged, opening brackets at a line start without their blank half, adjacent marks at
half width."""

from __future__ import annotations

import pytest
from reportlab.lib.enums import TA_JUSTIFY
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph

from engine.check import check_game
from pipeline.render.fonts import register_fonts
from pipeline.layout import Layouts
from pipeline.render.text import CANNOT_END, CANNOT_START, can_break, paragraph_lines, plain_text

MUST_NOT_START = "，。、；：？！）」』》〉”’…"
MUST_NOT_END = "（「『《〈“‘"


def test_tables_cover_the_chinese_rules():
    assert set(MUST_NOT_START) <= CANNOT_START
    assert set(MUST_NOT_END) <= CANNOT_END
    assert not can_break("击", "，") and not can_break("「", "迫") and can_break("，", "迫")
    assert not can_break("G", ".") and not can_break("1", "1") and not can_break("—", "—")


def _texts():
    fonts = register_fonts()
    for game_id in ("backrooms", "duel", "ridm"):
        report = check_game(game_id)
        layouts = Layouts(report.game)
        for card in report.cards.values():
            for key in ("text", "assist_text", "talent"):
                if card.get(key):
                    yield f"{card.id}.{key}", layouts._rich(card[key])
    yield "synthetic", ("「迫击炮！！！」的效果（一回合一次）：对方牌手受到3点伤害……"
                        "然后——若G.O.I为M.E.G.，抽1张牌。“你好，”他说。《规则》【切入】时：抽1张。")
    assert fonts


def _check(markup, width, style, fonts):
    para = Paragraph(markup, style)
    para.wrap(width, 10_000)
    lines = paragraph_lines(para)
    assert "".join(lines) == plain_text(markup).replace("\n", "")
    for n, line in enumerate(lines):
        if n > 0 and line:
            assert line[0] not in CANNOT_START, (width, lines[n - 1], line)
        if n < len(lines) - 1 and line:
            assert line[-1] not in CANNOT_END, (width, line, lines[n + 1])
        for ch in "\u3000":
            assert ch not in line
    return lines


@pytest.mark.parametrize("size", [6.0, 8.5])
def test_sweep_widths_over_all_card_texts(size):
    fonts = register_fonts()
    style = ParagraphStyle("t", fontName=fonts.regular, fontSize=size, leading=size * 1.3, wordWrap="CJK")
    checked = 0
    for name, markup in _texts():
        # From ~7 characters per line to ~26.
        for width in range(int(size * 7), int(size * 26), 3):
            _check(markup, width, style, fonts)
            checked += 1
    assert checked > 1000


def test_mixed_style_lines_stay_inside_the_box():
    fonts = register_fonts()
    style = ParagraphStyle("t", fontName=fonts.regular, fontSize=8, leading=10.4, wordWrap="CJK")
    markup = Layouts(check_game("duel").game)._rich("①：【贯穿】时，对方牌手受到3点伤害。△：此牌协助的主战者得到「迫击炮！！！」的效果，攻击力+2。")
    for width in range(60, 200, 2):
        para = Paragraph(markup, style)
        para.wrap(width, 10_000)
        for line in para.blPara.lines:
            assert width - line.extraSpace <= width + 0.01


# ---------------------------------------------------------------------------- read back from a PDF


def _font_sides(path) -> dict[str, str]:
    """Blank half of each full-width mark, read with fontTools from the glyph bounding boxes
    (independently of pipeline.render.text, which reads the same font its own way)."""
    from fontTools.ttLib import TTFont

    font = TTFont(str(path), lazy=True)
    cmap, glyf, hmtx = font.getBestCmap(), font["glyf"], font["hmtx"]
    sides = {}
    for ch in "，。、；：？！）》」』】〉”’（《「『【〈“‘":
        name = cmap[ord(ch)]
        glyph, (advance, _) = glyf[name], hmtx[name]
        if glyph.xMax <= advance / 2:
            sides[ch] = "right"
        elif glyph.xMin >= advance / 2:
            sides[ch] = "left"
    return sides


#: Justification limit the PDF is held to (em of the glyph size): MAX_JUSTIFY_GAP_EM.
GAP_LIMIT_EM = 0.25
EPS = 0.02  # points: PDF coordinates are written with a few decimals


def _set_in_pdf(path, jobs, style):
    """Draw each (markup, width) paragraph side by side on one page per markup; return the
    boxes ``[(page, x_left, width, plain text)]``."""
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=(4000, 3000))
    boxes = []
    for page, (markup, widths) in enumerate(jobs):
        x = 20
        for width in widths:
            para = Paragraph(markup, style)
            _, h = para.wrap(width, 3000)
            para.drawOn(canvas, x, 2980 - h)
            boxes.append((page, x, width, plain_text(markup)))
            x += width + 40
        canvas.showPage()
    canvas.save()
    return boxes


def _page_chars(path):
    """Per page, the glyphs as a PDF renderer places them: text, pen x (x0), x0 + advance (x1),
    baseline y and size, read with pdfium. (pdfminer, under pdfplumber, drops the character
    spacing after the last glyph of each string, against PDF 32000-1 §9.3.2, so its x0 drift
    wherever ReportLab switches font subset mid-word.)"""
    import ctypes

    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    pdf = pdfium.PdfDocument(str(path))
    pages = []
    for page in pdf:
        text = page.get_textpage()
        chars = []
        for i in range(text.count_chars()):
            if raw.FPDFText_IsGenerated(text.raw, i):
                continue
            ch = chr(raw.FPDFText_GetUnicode(text.raw, i))
            if ch in "\r\n":
                continue
            x, y = ctypes.c_double(), ctypes.c_double()
            raw.FPDFText_GetCharOrigin(text.raw, i, x, y)
            left, _, right, _ = text.get_charbox(i, loose=True)
            chars.append({"text": ch, "x0": x.value, "x1": x.value + (right - left), "top": -y.value,
                          "size": raw.FPDFText_GetFontSize(text.raw, i)})
        pages.append(chars)
    pdf.close()
    return pages


def _lines_from_pdf(path, boxes):
    """Per box: its lines as lists of glyphs, in reading order."""
    out = [[] for _ in boxes]
    by_page = {}
    for n, (page, x, width, _) in enumerate(boxes):
        by_page.setdefault(page, []).append((x, width, n))
    for page_no, chars in enumerate(_page_chars(path)):
        chars = sorted(chars, key=lambda c: (round(c["top"], 1), c["x0"]))
        for x, width, n in by_page.get(page_no, []):
            rows = {}
            for c in chars:
                if x - 8 <= c["x0"] < x + width + 8:
                    rows.setdefault(round(c["top"], 1), []).append(c)
            out[n] = [rows[k] for k in sorted(rows)]
    return out


def check_typeset(lines, x, width, text, sides):
    """What a reader sees on paper (positions from the PDF): no ink outside the box, no gap wider than the limit, every
    segment's last line ragged, justified lines flush, opening brackets at a line start without
    their blank half, adjacent marks at half width. Returns how many lines were justified."""
    flat = "".join(c["text"] for line in lines for c in line)
    assert flat.replace(" ", "") == text.replace("\n", "").replace(" ", ""), (flat, text)
    ends, k = set(), 0  # indices (in flat, spaces dropped) of glyphs followed by a hard break
    for ch in text:
        if ch == "\n":
            ends.add(k - 1)
        elif ch != " ":
            k += 1
    justified, seen = 0, 0
    right_edge = x + width
    for n, line in enumerate(lines):
        ink = [c for c in line if c["text"] != " "]
        seen += len(ink)
        size = max(c["size"] for c in ink)
        first, last = ink[0], ink[-1]
        left_ink = first["x0"] + (first["size"] / 2 if sides.get(first["text"]) == "left" else 0)
        right_ink = last["x1"] - (last["size"] / 2 if sides.get(last["text"]) == "right" else 0)
        assert abs(left_ink - x) <= EPS, ("line does not start at the box edge", line_text(line))
        assert right_ink <= right_edge + EPS, ("overfull", right_ink - right_edge, line_text(line))
        gaps = []
        for a, b in zip(line, line[1:]):
            gap = b["x0"] - a["x1"]
            assert gap <= GAP_LIMIT_EM * size + EPS, ("gap over the limit", gap, line_text(line))
            pair_compressed = sides.get(a["text"]) == "right" and b["text"] in sides or (
                sides.get(a["text"]) == "left" and sides.get(b["text"]) == "left")
            if pair_compressed:
                assert gap <= -a["size"] / 2 + GAP_LIMIT_EM * size + EPS, ("adjacent marks not at half width", a["text"], b["text"])
            else:
                gaps.append(gap)
        segment_end = n == len(lines) - 1 or (seen - 1) in ends
        if segment_end:
            assert all(g <= EPS for g in gaps), ("last line of a segment is spaced", line_text(line))
        elif max(gaps, default=0) > EPS:
            justified += 1
            assert abs(right_ink - right_edge) <= EPS * 4, ("spaced line not flush", right_ink - right_edge, line_text(line))
    return justified


def line_text(line):
    return "".join(c["text"] for c in line)


@pytest.mark.parametrize("size", [6.0, 8.5])
def test_sweep_justified_pdf(size, tmp_path):
    """The sweep again, justified, read back from the PDF: positions as a reader sees them."""
    fonts = register_fonts()
    sides = _font_sides(fonts.paths[0])
    style = ParagraphStyle("t", fontName=fonts.regular, fontSize=size, leading=size * 1.3, wordWrap="CJK",
                           alignment=TA_JUSTIFY)
    widths = list(range(int(size * 7), int(size * 26), 13))
    jobs = [(markup, widths) for _, markup in _texts()]
    pdf = tmp_path / "sweep.pdf"
    boxes = _set_in_pdf(pdf, jobs, style)
    justified = 0
    for (page, x, width, text), lines in zip(boxes, _lines_from_pdf(pdf, boxes)):
        justified += check_typeset(lines, x, width, text, sides)
    assert justified > 500  # the sweep really exercised justification
