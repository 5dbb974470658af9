"""Any card size (issue 10 §2): ``card_size`` presets and millimetres, a card type's own size,
faces laid out from W × H, and ``check --render``'s box checks (pipeline.layout.bounds).

A user sees: every preset gives a card of each shipped game (and of a new game from
``cardpress new``) that ``check`` passes — nothing beyond the bleed, no text in the cut's way,
no text over other text — and a template that breaks one of these fails ``check`` with the
file, card, field and by how much.
"""

from __future__ import annotations

import io
import re
import shutil
from pathlib import Path

import pdfplumber
import pytest
from typer.testing import CliRunner

from engine.check import check_game
from engine.definitions import CardSize, load_game
from engine.presets import card_sizes
from engine.errors import DataError
from engine.paths import card_data_root
from pipeline.outputs.sheets import build_sheets
from pipeline.plan import BuildOptions, render_check
from pipeline.cli.app import app
from pipeline.layout import Layouts
from pipeline.layout.bounds import check_bounds, element_box
from pipeline.scaffold import scaffold

GAMES = ("backrooms", "duel", "ridm", "generic")


def _game(tmp_path: Path, game: str, size: str | None = None, extra: str = "") -> Path:
    folder = tmp_path / game
    if game == "generic":
        scaffold(folder, "通用测试")
    else:
        shutil.copytree(card_data_root() / game, folder)
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    if size is not None:
        text = re.sub(r"^card_size:.*$", "", text, flags=re.M) + f"\ncard_size: {size}\n"
    (folder / "game.yaml").write_text(text + extra, encoding="utf-8")
    return folder


def test_presets_and_millimetres():
    assert card_sizes()["poker"] == (63.0, 88.0)
    assert card_sizes()["poker-us"] == (63.5, 88.9)
    assert card_sizes()["tarot"] == (70.0, 120.0)
    assert CardSize.model_validate("square") == CardSize(width_mm=70, height_mm=70)
    assert CardSize.model_validate({"width_mm": 44, "height_mm": 68}) == CardSize.model_validate("mini-euro")


def test_unknown_preset_is_one_clear_error(tmp_path):
    folder = _game(tmp_path, "duel", "jumbo")
    with pytest.raises(DataError) as info:
        load_game(folder)
    text = str(info.value)
    assert "jumbo" in text and "poker" in text and "game.yaml" in text


def test_a_card_type_has_its_own_size(tmp_path):
    folder = _game(tmp_path, "backrooms")
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    text = re.sub(r"^(  level:\n)", r"\1    card_size: tarot\n", text, count=1, flags=re.M)
    (folder / "game.yaml").write_text(text, encoding="utf-8")
    game = load_game(folder)
    assert game.card_size_of("level") == CardSize(width_mm=70, height_mm=120)
    assert game.card_size_of("entity") == CardSize(width_mm=63, height_mm=88)
    assert game.back_size("level") == CardSize(width_mm=70, height_mm=120)
    assert game.mixed_sizes
    report = check_game(folder)
    level = next(c for c in report.cards.values() if c.type == "level")
    background = Layouts(game).face(level, 3)[0]
    assert (background["w"], background["h"]) == (76, 126)  # laid out at 70 × 120 with its bleed
    assert render_check(report) == []


@pytest.mark.parametrize("game", GAMES)
def test_every_preset_passes_check_render(tmp_path, game):
    failures = {}
    for preset in card_sizes():
        folder = _game(tmp_path / preset, game, preset)
        report = check_game(folder)
        assert not report.problems, report.problems
        errors = render_check(report)
        if errors:
            failures[preset] = [str(e) for e in errors[:3]]
    assert not failures, failures


def test_square_stat_plates_are_on_the_card(tmp_path):
    """The issue's 70 × 70 game: its stat plates were gone and its rules text in the bleed."""
    folder = _game(tmp_path, "ridm", "square")
    game = load_game(folder)
    report = check_game(folder)
    operator = next(c for c in report.cards.values() if c.type == "operator")
    elements = Layouts(game).face(operator, 3)
    plates = [e for e in elements if e.kind == "text" and e.get("field") in ("攻击", "防御", "阻挡")]
    assert len(plates) == 6
    for e in plates + [e for e in elements if e.kind == "para"]:
        x0, y0, x1, y1 = element_box(e)
        assert 3 <= x0 and x1 <= 67 and 3 <= y0 and y1 <= 67, (e.get("field"), element_box(e))
    # …and in the built sheet, every character of the fronts lies on a card's trim.
    result = build_sheets(folder, BuildOptions(out_dir=tmp_path / "out", papers=("a4",)))
    sheet = result.files[0]
    cells = sheet.layout.front_cells()
    with pdfplumber.open(sheet.path) as pdf:
        page = pdf.pages[0]
        pt = 72 / 25.4
        tx0, ty0, tx1, ty1 = (float(v) / pt for v in page.trimbox)
        # The characters of the card block (the sheet's label in the margin is not a card's).
        chars = [ch for ch in page.chars if tx0 <= ch["x0"] / pt and ch["x1"] / pt <= tx1
                 and ty0 <= (page.height - ch["bottom"]) / pt and (page.height - ch["top"]) / pt <= ty1]
        assert sum(ch["text"] == "攻" for ch in chars) >= len(cells)  # a plate on every card (and rules text)
        for ch in chars:
            x0, x1 = ch["x0"] / pt, ch["x1"] / pt
            bottom, top = (page.height - ch["bottom"]) / pt, (page.height - ch["top"]) / pt
            assert any(c.x - 0.2 <= x0 and x1 <= c.x + c.w + 0.2 and c.y - 0.2 <= bottom and top <= c.y + c.h + 0.2
                       for c in cells), ch["text"]


BAD_TEMPLATE = """\
- {kind: rect, x: -3, y: -3, w: 69, h: 94, fill: "#ffffff"}
- {kind: rect, x: -8, y: 10, w: 20, h: 10, fill: "#000000"}
- {kind: text, field: name, x: 1, y: 5, w: 40, h: 8, text: {{ card.name | tojson }}, size: 9, min_size: 4}
- {kind: para, field: text, x: 6, y: 10, w: 50, h: 30, text: {{ (c.get("text") or "x") | tojson }}, size: 8, min_size: 3}
- {kind: text, field: flavor, x: 10, y: 30, w: 40, h: 8, text: "overlap", size: 7, min_size: 4}
"""


def test_a_bad_template_fails_check_with_named_messages(tmp_path):
    folder = _game(tmp_path, "duel")
    (folder / "templates").mkdir(exist_ok=True)
    (folder / "templates" / "fighter.yaml.j2").write_text(BAD_TEMPLATE, encoding="utf-8")
    report = check_game(folder)
    texts = [str(e) for e in render_check(report)]
    card = next(iter(report.cards))
    mine = [t for t in texts if f"'{card}'" in t]
    assert any("fighter.yaml.j2, element 2" in t and "bleed by 5.0 mm at the left" in t for t in mine), mine
    assert any("element 3" in t and "'name'" in t and "safe zone" in t and "by 2.0 mm at the left" in t
               for t in mine), mine
    assert any("element 4" in t and "'text'" in t and "overlaps that of field 'flavor'" in t
               and "40.0 × 8.0 mm" in t for t in mine), mine
    result = CliRunner().invoke(app, ["check", str(folder)])
    assert result.exit_code == 1
    assert "safe zone" in result.output and "cannot be printed" in result.output


def test_safe_zone_is_per_game(tmp_path):
    folder = _game(tmp_path, "ridm", extra="safe_zone_mm: 6\n")
    texts = [str(e) for e in render_check(check_game(folder))]
    assert texts and all("safe zone (6 mm inside the trim)" in t for t in texts), texts[:3]
    assert any("'name'" in t for t in texts)


def test_check_bounds_measures():
    from pipeline.layout.elements import validate_elements

    elements = validate_elements([
        {"kind": "line", "x1": -5, "y1": 0, "x2": 10, "y2": 0},
        {"kind": "circle", "cx": 30, "cy": 86, "r": 6},
        {"kind": "text", "field": "a", "x": 5, "y": 5, "w": 20, "h": 5, "text": "x"},
        {"kind": "text", "field": "b", "x": 24, "y": 5, "w": 20, "h": 5, "text": "y"},
        {"kind": "text", "field": "c", "x": 44, "y": 5, "w": 10, "h": 5, "text": ""},  # empty: nothing printed
    ], "t.yaml.j2")
    texts = [str(e) for e in check_bounds(elements, 63, 88, 3, "card 'c1'")]
    assert len(texts) == 3, texts
    assert "element 1" in texts[0] and "by 2.0 mm at the left" in texts[0]
    assert "element 2" in texts[1] and "by 1.0 mm at the bottom" in texts[1]
    assert "'a'" in texts[2] and "'b'" in texts[2] and "1.0 × 5.0 mm" in texts[2]


def test_a_card_of_its_own_size_is_painted_at_that_size(tmp_path):
    """A tarot-sized level in a poker game prints whole: its form is 70 × 120 mm plus bleed, and
    its name bar is at the top of its own cell (not placed from a poker card's height)."""
    from pypdf import PdfReader

    folder = _game(tmp_path, "backrooms")
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    (folder / "game.yaml").write_text(re.sub(r"^(  level:\n)", r"\1    card_size: tarot\n", text, count=1,
                                             flags=re.M), encoding="utf-8")
    result = build_sheets(folder, BuildOptions(papers=("a4",), out_dir=tmp_path / "out", jobs=1, cache=False))
    sheet = result.files[0]
    tarot = next(lay for lay in sheet.layouts if (lay.card_w, lay.card_h) == (70, 120))
    level = next(c for c in check_game(folder).cards.values() if c.type == "level")
    pt = 72 / 25.4
    reader = PdfReader(sheet.path)
    with pdfplumber.open(sheet.path) as pdf:
        index = next(i for i, page in enumerate(pdf.pages) if level.name in (page.extract_text() or ""))
        page = pdf.pages[index]
        bboxes = {tuple(round(float(v) / pt, 1) for v in xobj.get_object()["/BBox"])
                  for xobj in reader.pages[index]["/Resources"]["/XObject"].values()
                  if xobj.get_object().get("/Subtype") == "/Form"}
        assert bboxes == {(-3.0, -3.0, 73.0, 123.0)}  # the card's own size and its bleed
        cell = tarot.front_cells()[0]
        top = (cell.y + cell.h) * pt  # PDF units, from the page's bottom
        name_chars = [ch for ch in page.chars if ch["text"] == level.name[0]]
        assert name_chars and min(page.height - ch["top"] for ch in name_chars) < top
        assert any(top - (page.height - ch["top"]) < 12 * pt for ch in name_chars)


def _tarot_levels(tmp_path: Path) -> Path:
    folder = _game(tmp_path, "backrooms")
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    (folder / "game.yaml").write_text(re.sub(r"^(  level:\n)", r"\1    card_size: tarot\n", text, count=1,
                                             flags=re.M), encoding="utf-8")
    return folder


def test_a_print_of_only_other_sized_cards_is_imposed_on_their_layout(tmp_path):
    """A deck of only the tarot-sized levels of a poker game: its sheets are laid out for 70 × 120
    mm cards (not the game's poker grid, which would cut them)."""
    folder = _tarot_levels(tmp_path)
    for path in (folder / "cards").iterdir():   # only the levels remain (and no deck needs the rest)
        if path.name != "levels.yaml":
            path.unlink()
    shutil.rmtree(folder / "decks")
    result = build_sheets(folder, BuildOptions(papers=("a4",), out_dir=tmp_path / "out", jobs=1, cache=False))
    sheet = result.files[0]
    assert [(lay.card_w, lay.card_h) for lay in sheet.layouts] == [(70, 120)]
    with pdfplumber.open(sheet.path) as pdf:
        trim = pdf.pages[0].trimbox
        cells = sheet.layout.front_cells()[:2]
        pt = 72 / 25.4
        assert trim[2] - trim[0] == pytest.approx((max(c.x + c.w for c in cells) - min(c.x for c in cells)) * pt, abs=0.2)


def test_card_images_and_tts_cells_take_each_cards_own_size(tmp_path):
    """``cardpress images``: a tarot-sized level's PNG is 70 × 120 mm plus bleed, a poker card's
    63 × 88; each TTS deck (one per back) has the cells of its own card size."""
    from PIL import Image

    from pipeline.outputs.images import write_images
    from pipeline.plan import prepare

    folder = _tarot_levels(tmp_path)
    bleed, dpi = 25.4 / 8, 60
    prep = prepare(folder, None, bleed, jobs=1)
    result = write_images(prep, tmp_path / "img", dpi, bleed, True, workers=1)
    px = lambda mm: mm / 25.4 * dpi  # noqa: E731
    level = next(c for c in prep.distinct if c.type == "level")
    other = next(c for c in prep.distinct if c.type != "level" and prep.game.card_size_of(c.type).mm == (63, 88))
    for card, (w, h) in ((level, (70, 120)), (other, (63, 88))):
        with Image.open(tmp_path / "img" / "images" / f"{card.id}.png") as im:
            assert abs(im.width - px(w + 2 * bleed)) <= 1 and abs(im.height - px(h + 2 * bleed)) <= 1, card.id
    level_back = prep.back_of(level)
    for deck in result.tts_decks:
        with Image.open(deck.sheets[0].path) as sheet:
            cell_w, cell_h = sheet.width / 10, sheet.height / 7
        w, h = prep.game.back_size(deck.back).mm
        assert abs(cell_w / cell_h - w / h) < 0.02, deck.back
    assert any(deck.back == level_back for deck in result.tts_decks)


def test_the_rulebook_shows_each_card_at_its_own_size(tmp_path):
    """The rulebook's gallery and example card, PDF and HTML: a tarot-sized level keeps its
    70 × 120 shape (it was drawn into a poker card's box, its bottom cut off)."""
    from pipeline.render.fonts import register_fonts
    from pypdf import PdfReader

    from pipeline.render.raster import page_image
    from pipeline.rulebook.cards import RulebookCards
    from pipeline.rulebook.pdf import cards_pdf

    game = load_game(_tarot_levels(tmp_path))
    cards = RulebookCards(game, register_fonts())
    level = next(c for c in cards.cards if c.type == "level")
    other = next(c for c in cards.cards if c.type != "level")
    pt = 72 / 25.4
    flow = cards.flowable(level, 35)
    assert flow.width == pytest.approx(35 * pt) and flow.height == pytest.approx(60 * pt)   # 35 × 35·120/70
    assert cards.flowable(other, 63).height == pytest.approx(88 * pt)
    pdf = cards_pdf(cards, [level, other])
    sizes = [(float(page.mediabox.width), float(page.mediabox.height)) for page in PdfReader(io.BytesIO(pdf)).pages]
    assert [tuple(round(v / pt, 1) for v in size) for size in sizes] == [(70.0, 120.0), (63.0, 88.0)]
    # The level's footer is painted: its lowest 10 mm are not blank paper.
    import numpy as np

    pixels = np.asarray(page_image(pdf, 0, dpi=60).convert("L"))
    assert pixels[-round(10 / 25.4 * 60):].mean() < 250
