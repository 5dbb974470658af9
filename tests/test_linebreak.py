"""Chinese line breaking: across many box widths, no line starts or ends with a forbidden mark,
no line is wider than its box, and no character is lost or reordered."""

from __future__ import annotations

import pytest
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import Paragraph

from engine.check import check_game
from pipeline.fonts import register_fonts
from pipeline.layout import Layouts
from pipeline.text import CANNOT_END, CANNOT_START, can_break, paragraph_lines, plain_text

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
            lines = _check(markup, width, style, fonts)
            # Single-style paragraphs: measure each line; nothing may stick out of the box.
            if "<" not in markup:
                for line in lines:
                    assert stringWidth(line.rstrip(" "), fonts.regular, size) <= width + 0.01, (name, width, line)
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
