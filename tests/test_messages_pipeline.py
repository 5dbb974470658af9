"""Production messages in both languages (issue 12 §5): a build's errors, progress labels and
summaries read in Chinese under ``zh_CN``, and stay exactly as they were in English."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import i18n
from engine.errors import CardpressError
from pipeline.outputs.sheets import build_sheets
from pipeline.plan import BuildOptions, prepare
from pipeline.progress import DRAWING, Label, key_of
from pipeline.impose import choose_layout
from pipeline.scaffold import scaffold


@pytest.fixture
def game(tmp_path) -> Path:
    return scaffold(tmp_path / "g", "测试")


def _cards(game: Path, old: str, new: str) -> None:
    path = game / "cards" / "cards.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _build_error(game: Path, lang: str) -> str:
    with i18n.using(lang):
        with pytest.raises(CardpressError) as exc:
            build_sheets(game, BuildOptions(papers=("a4",), out_dir=game / "dist", cache=False, jobs=1))
    assert not (game / "dist").exists() or not any((game / "dist").iterdir())
    return str(exc.value)


def test_a_card_whose_text_does_not_fit(game):
    _cards(game, "text: 【入场】时：抽1张牌。", "text: " + "很长" * 400)
    english = _build_error(game, "en")
    assert "cards.yaml, line 3: card 'scout', field 'text': text does not fit its box even at" in english
    chinese = _build_error(game, "zh_CN")
    assert "cards.yaml，第 3 行：卡牌 'scout'，字段 'text'：即使缩小到" in chinese
    assert "文字仍放不进文本框" in chinese
    assert "does not fit" not in chinese


def test_a_missing_glyph(game):
    _cards(game, "text: 【入场】时：抽1张牌。", "text: 抽1张𠀀牌。")
    english = _build_error(game, "en")
    assert "card 'scout', field 'text': the font has no glyph for '𠀀' (U+20000); change the text or the font" in english
    chinese = _build_error(game, "zh_CN")
    assert "卡牌 'scout'，字段 'text'：字体中没有 '𠀀' (U+20000) 的字形；请修改文字或更换字体" in chinese


@pytest.mark.parametrize("body, english, chinese", [
    ("{% if %}", "syntax error:", "语法错误："),
    ("- {kind: blob, x: 0}", "element 2, key 'kind': must be one of art, circle",
     "第 2 个元素，键 'kind'：必须是 art, circle"),
])
def test_a_bad_template(game, body, english, chinese):
    (game / "templates" / "card.yaml.j2").write_text(
        '- {kind: rect, x: 0, y: 0, w: 10, h: 10, fill: "#ffffff"}\n' + body + "\n", encoding="utf-8")
    assert english in _build_error(game, "en")
    text = _build_error(game, "zh_CN")
    assert chinese in text and "card.yaml.j2" in text
    assert "卡牌 '" in text


def test_a_bad_bleed(game):
    with i18n.using("en"), pytest.raises(CardpressError) as exc:
        prepare(game, None, -1.0)
    assert str(exc.value) == "--bleed must be a finite number of millimetres ≥ 0, got -1.0"
    with i18n.using("zh_CN"), pytest.raises(CardpressError) as exc:
        prepare(game, None, float("nan"))
    assert str(exc.value) == "--bleed 必须是 ≥ 0 的有限毫米数，收到的是 nan"


def test_progress_labels_and_the_sheet_summary_read_in_chinese(game):
    with i18n.using("zh_CN"):
        label = Label(DRAWING)
        assert label == "绘制卡牌" and key_of(label) == "drawing cards"
        seen: set[str] = set()
        build_sheets(game, BuildOptions(papers=("a4",), out_dir=game / "dist", jobs=1),
                     lambda text, done, total: seen.add(text))
        assert {"绘制卡牌", "排版卡牌", "A4 印刷页"} <= seen, seen
        assert choose_layout("a4", 63, 88).describe() == (
            "3×3 = 每张 A4 纸 9 张，卡牌竖放，间距 3.7 mm（每张卡牌各有 1.85 mm 出血伸入），出血 3 mm（外缘 1.8 mm），"
            "页边距 5 mm，可容许 ±1.8 mm 双面打印偏移")
    with i18n.using("en"):
        assert Label(DRAWING) == "drawing cards"
        assert choose_layout("a4", 63, 88).describe() == (
            "3×3 = 9 per A4 sheet, cards upright, gutter 3.7 mm (1.85 mm of bleed each into it), bleed 3 mm "
            "(outer edge 1.8 mm), margin 5 mm, tolerates ±1.8 mm duplex drift")
