"""Card sheets as a printer sees them: pages, sizes, boxes, crop marks, mirrored backs, fonts, text."""

from __future__ import annotations

import math

import numpy as np
import pdfplumber
import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader
from typer.testing import CliRunner

from engine.check import check_game
from pipeline.cli.app import app
from pipeline.impose import choose_layout, paper_size

PT_PER_MM = 72 / 25.4
TOL_MM = 0.1


def _sheet(result, paper):
    return next(f for f in result.files if f.paper == paper)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_page_count_and_size(duel_sheets, paper):
    sheet = _sheet(duel_sheets, paper)
    reader = PdfReader(sheet.path)
    n_cards = len(check_game("duel").cards)
    assert len(reader.pages) == 2 * math.ceil(n_cards / sheet.layout.per_sheet) == sheet.pages
    w_mm, h_mm = paper_size(paper)
    for page in reader.pages:
        assert float(page.mediabox.width) == pytest.approx(w_mm * PT_PER_MM, abs=0.01)
        assert float(page.mediabox.height) == pytest.approx(h_mm * PT_PER_MM, abs=0.01)


def test_grid_choices():
    # Issue 10: 9 poker cards upright on A4 and on Letter, with gutters that tolerate drift.
    a4, letter = choose_layout("a4", 63, 88), choose_layout("letter", 63, 88)
    assert a4.per_sheet == 9 and not a4.rotated and a4.drift_tolerance > 1.5
    assert letter.per_sheet == 9 and not letter.rotated and letter.drift_tolerance > 0.5
    # Everything (bleed and crop marks) stays inside the printable margin on both papers.
    for layout in (a4, letter, choose_layout("a4", 63, 88, margin=12), choose_layout("letter", 63, 88, gutter=0)):
        ox, oy = layout.origin
        assert ox - layout.edge_x >= layout.margin - 1e-6 and oy - layout.edge_y >= layout.margin - 1e-6
        for x0, y0, x1, y1 in layout.crop_marks() + layout.gutter_ticks():
            for x, y in ((x0, y0), (x1, y1)):
                assert layout.margin - 1e-6 <= x <= layout.paper_w - layout.margin + 1e-6
                assert layout.margin - 1e-6 <= y <= layout.paper_h - layout.margin + 1e-6


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_trim_and_bleed_boxes(duel_sheets, paper):
    sheet = _sheet(duel_sheets, paper)
    layout = sheet.layout
    ox, oy = layout.origin
    page = PdfReader(sheet.path).pages[0]
    trim = [float(v) / PT_PER_MM for v in page.trimbox]
    bleed = [float(v) / PT_PER_MM for v in page.bleedbox]
    assert trim == pytest.approx([ox, oy, ox + layout.block_w, oy + layout.block_h], abs=TOL_MM)
    # The outer bleed may be narrower than --bleed (issue 10: it buys drift tolerance).
    bx, by = layout.edge_x, layout.edge_y
    assert bleed == pytest.approx([ox - bx, oy - by, ox + layout.block_w + bx, oy + layout.block_h + by], abs=TOL_MM)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_crop_marks_sit_on_the_cut_lines_outside_the_cards(duel_sheets, paper):
    sheet = _sheet(duel_sheets, paper)
    layout = sheet.layout
    xs, ys = layout.cut_lines()
    with pdfplumber.open(sheet.path) as pdf:
        page = pdf.pages[0]
        height = float(page.height)
        # crop marks: black hairlines (the scale bar is 0.4 pt, gutter ticks' white halo 1 pt)
        marks = [l for l in page.lines if abs(l["linewidth"] - 0.3) < 0.01 and l["stroking_color"] == (0, 0, 0)]
    vertical = [l for l in marks if abs(l["x0"] - l["x1"]) < 1e-3]
    horizontal = [l for l in marks if abs(l["top"] - l["bottom"]) < 1e-3]
    v_x = sorted({round(l["x0"] / PT_PER_MM, 3) for l in vertical})
    h_y = sorted({round((height - l["top"]) / PT_PER_MM, 3) for l in horizontal})
    assert v_x == pytest.approx(xs, abs=TOL_MM)
    assert h_y == pytest.approx(ys, abs=TOL_MM)
    ox, oy = layout.origin
    # Issue 10: a mark is above/below (left/right of) the bleed, or a tick inside a gutter.
    row_gaps = [(oy + r * (layout.cell_h + layout.gutter) + layout.cell_h, oy + (r + 1) * (layout.cell_h + layout.gutter))
                for r in range(layout.rows - 1)]
    col_gaps = [(ox + c * (layout.cell_w + layout.gutter) + layout.cell_w, ox + (c + 1) * (layout.cell_w + layout.gutter))
                for c in range(layout.grid_cols - 1)]

    def in_gap(lo, hi, gaps):
        return any(g0 - TOL_MM <= lo and hi <= g1 + TOL_MM for g0, g1 in gaps)

    for l in vertical:
        lo, hi = (height - l["bottom"]) / PT_PER_MM, (height - l["top"]) / PT_PER_MM
        assert (lo >= oy + layout.block_h + layout.edge_y - TOL_MM or hi <= oy - layout.edge_y + TOL_MM
                or in_gap(lo, hi, row_gaps))
        assert layout.margin - TOL_MM <= lo and hi <= layout.paper_h - layout.margin + TOL_MM
    for l in horizontal:
        lo, hi = l["x0"] / PT_PER_MM, l["x1"] / PT_PER_MM
        assert (lo >= ox + layout.block_w + layout.edge_x - TOL_MM or hi <= ox - layout.edge_x + TOL_MM
                or in_gap(lo, hi, col_gaps))
        assert layout.margin - TOL_MM <= lo and hi <= layout.paper_w - layout.margin + TOL_MM


def _ink(path, index, dpi=24):
    """Boolean mask of inked pixels of one page."""
    pdf = pdfium.PdfDocument(str(path))
    try:
        image = pdf[index].render(scale=dpi / 72).to_pil().convert("L")
    finally:
        pdf.close()
    return np.asarray(image) < 250


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_no_ink_outside_the_printable_margin(duel_sheets, paper):
    sheet = _sheet(duel_sheets, paper)
    dpi = 36
    for index in (0, 1, sheet.pages - 2, sheet.pages - 1):
        ink = _ink(sheet.path, index, dpi)
        margin_px = int(sheet.layout.margin / 25.4 * dpi) - 1
        assert not ink[:margin_px].any() and not ink[-margin_px:].any()
        assert not ink[:, :margin_px].any() and not ink[:, -margin_px:].any()


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_backs_mirror_fronts_for_long_edge_duplex(duel_sheets, paper):
    sheet = _sheet(duel_sheets, paper)
    # The last sheet is partly filled, so a wrong mirror shows up as cards in the wrong cells.
    last_front = sheet.pages - 2
    front = _ink(sheet.path, last_front)
    back = _ink(sheet.path, last_front + 1)
    mirrored = front[:, ::-1]
    # Intersection over union of inked areas (hairline crop marks, on fronts only, barely count).
    overlap = (mirrored & back).sum() / max((mirrored | back).sum(), 1)
    assert overlap > 0.95
    assert front.sum() < front.size * 0.9  # the last sheet really is partial


def test_short_edge_and_back_offset(tmp_path):
    from pipeline.scaffold import scaffold

    game = scaffold(tmp_path / "g", "偏移")
    runner = CliRunner()
    for name, extra in (("long", []), ("short", ["--short-edge"]), ("shift", ["--back-offset", "5,0"])):
        out = tmp_path / name
        result = runner.invoke(app, ["build", str(game), "--paper", "a4", "--out", str(out), *extra])
        assert result.exit_code == 0, result.output
    dpi = 24
    front = _ink(tmp_path / "long" / "cards-a4.pdf", 0, dpi)
    assert (_ink(tmp_path / "long" / "cards-a4.pdf", 1, dpi) == front[:, ::-1]).mean() > 0.97
    assert (_ink(tmp_path / "short" / "cards-a4.pdf", 1, dpi) == front[::-1, :]).mean() > 0.97
    long_back = _ink(tmp_path / "long" / "cards-a4.pdf", 1, dpi)
    shifted = _ink(tmp_path / "shift" / "cards-a4.pdf", 1, dpi)
    cols = np.nonzero(long_back.any(axis=0))[0]
    cols_shifted = np.nonzero(shifted.any(axis=0))[0]
    assert (cols_shifted.min() - cols.min()) == pytest.approx(5 / 25.4 * dpi, abs=1.0)


def _fonts(resources, seen):
    """Every font object reachable from a resources dictionary, through form XObjects too."""
    if resources is None:
        return
    resources = resources.get_object()
    for font in (resources.get("/Font") or {}).values():
        font = font.get_object()
        seen[id(font)] = font
    for xobj in (resources.get("/XObject") or {}).values():
        xobj = xobj.get_object()
        if xobj.get("/Subtype") == "/Form":
            _fonts(xobj.get("/Resources"), seen)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_font_is_embedded(duel_sheets, paper):
    reader = PdfReader(_sheet(duel_sheets, paper).path)
    fonts = {}
    for page in reader.pages:
        _fonts(page.get("/Resources"), fonts)
    assert fonts
    names = set()
    for font in fonts.values():
        descriptor = font.get("/FontDescriptor")
        assert descriptor is not None, f"font {font.get('/BaseFont')} is not embedded"
        descriptor = descriptor.get_object()
        assert "/FontFile2" in descriptor, f"font {font.get('/BaseFont')} has no embedded TrueType program"
        assert str(font["/BaseFont"])[7] == "+"  # a subset: ABCDEF+Name
        names.add(str(font["/BaseFont"]).split("+", 1)[-1])
    assert names == {"CardpressSansSC", "CardpressSansSC-Bold"}


def test_chinese_names_and_rules_extract_back(duel_sheets):
    reader = PdfReader(_sheet(duel_sheets, "a4").path)
    text = "".join(page.extract_text() for page in reader.pages[::2]).replace("\n", "").replace(" ", "")
    cards = check_game("duel").cards
    for card in cards.values():
        assert card.name in text
    mortar = next(c for c in cards.values() if c.name == "迫击炮！！！")
    body = mortar["text"].replace("\n", "").replace(" ", "")
    for piece in body.replace("【", "").replace("】", "").split("。"):
        assert piece.replace("【", "").replace("】", "") in text.replace("【", "").replace("】", "")


def test_deck_prints_exactly_its_cards(tmp_path):
    from engine.definitions import load_game
    from engine.decks import read_deck

    game = load_game("duel")
    deck_path = game.card_data_dir / "decks" / "artillery.yaml"
    deck = read_deck(deck_path)
    result = CliRunner().invoke(app, ["build", "duel", "--paper", "a4", "--deck", str(deck_path), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    reader = PdfReader(tmp_path / "cards-a4.pdf")
    assert len(reader.pages) == 2 * math.ceil(deck.size / 9)
    cards = check_game("duel").cards
    fronts = [page.extract_text() for page in reader.pages[::2]]
    for card_id, count in deck.entries:
        name = cards[card_id].name
        # the name bar is its own line of text
        found = sum(line.strip() == name for text in fronts for line in text.splitlines())
        assert found == count, (name, found, count)
    assert "40 cards" in result.output and "5 sheets" not in result.output


def _segments(path, index):
    """Crop marks of one page as mm segments ((x0, y0), (x1, y1)), y up: black 0.3 pt hairlines."""
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[index]
        height = float(page.height)
        lines = [l for l in page.lines if abs(l["linewidth"] - 0.3) < 0.01 and l["stroking_color"] == (0, 0, 0)]
    return [(l["x0"] / PT_PER_MM, (height - l["bottom"]) / PT_PER_MM, l["x1"] / PT_PER_MM,
             (height - l["top"]) / PT_PER_MM) for l in lines]


def _outer_marks_by_side(layout, segs):
    ox, oy = layout.origin
    out = {"top": [], "bottom": [], "left": [], "right": []}
    for x0, y0, x1, y1 in segs:
        if abs(x0 - x1) < 1e-3:
            if y0 >= oy + layout.block_h + layout.edge_y - TOL_MM:
                out["top"].append((x0, y1 - y0))
            elif y1 <= oy - layout.edge_y + TOL_MM:
                out["bottom"].append((x0, y1 - y0))
        else:
            if x0 >= ox + layout.block_w + layout.edge_x - TOL_MM:
                out["right"].append((y0, x1 - x0))
            elif x1 <= ox - layout.edge_x + TOL_MM:
                out["left"].append((y0, x1 - x0))
    return out


def test_outer_marks_on_every_side_with_room_all_of_one_length(tmp_path):
    """Issue 10: every cut line marked outside the block on each side the margin leaves room on,
    ≥ 5 mm where possible, the same length on every side, clear of the bleed."""
    from pipeline.scaffold import scaffold

    game = scaffold(tmp_path / "g", "标记")
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["build", str(game), "--paper", "a4", "--gutter", "0", "--margin", "2",
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    layout = choose_layout("a4", 63, 88, margin=2, gutter=0)
    xs, ys = layout.cut_lines()
    sides = _outer_marks_by_side(layout, _segments(out / "cards-a4.pdf", 0))
    for side, marks in sides.items():
        at = sorted(round(v, 2) for v, _length in marks)
        assert at == pytest.approx(xs if side in ("top", "bottom") else ys, abs=TOL_MM), side
        for _v, length in marks:
            assert abs(length) == pytest.approx(5.0, abs=TOL_MM), side


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_gutter_ticks_keep_every_strip_marked(duel_sheets, paper):
    """Each cut line carries a tick in every gutter it crosses; a side without room for outer
    marks (A4's sides and Letter's top and bottom at 9-up) is carried by the gutter ticks."""
    sheet = _sheet(duel_sheets, paper)
    layout = sheet.layout
    assert layout.gutter > 0 and layout.per_sheet == 9
    segs = _segments(sheet.path, 0)
    ox, oy = layout.origin
    xs, ys = layout.cut_lines()
    length = layout.gutter - 0.4
    for row in range(layout.rows - 1):
        y0 = oy + row * (layout.cell_h + layout.gutter) + layout.cell_h
        for x in xs:
            assert any(abs(s[0] - x) < TOL_MM and abs(s[2] - x) < TOL_MM and y0 - TOL_MM <= s[1]
                       and s[3] <= y0 + layout.gutter + TOL_MM and s[3] - s[1] == pytest.approx(length, abs=TOL_MM)
                       for s in segs), (row, x)
    for col in range(layout.cols - 1):
        x0 = ox + col * (layout.cell_w + layout.gutter) + layout.cell_w
        for y in ys:
            assert any(abs(s[1] - y) < TOL_MM and abs(s[3] - y) < TOL_MM and x0 - TOL_MM <= s[0]
                       and s[2] <= x0 + layout.gutter + TOL_MM and s[2] - s[0] == pytest.approx(length, abs=TOL_MM)
                       for s in segs), (col, y)
    # the outer marks there are are all one length, on whole sides
    sides = _outer_marks_by_side(layout, segs)
    lengths = {round(abs(length), 2) for marks in sides.values() for _v, length in marks}
    assert lengths == {round(layout.mark_length, 2)}
    assert {side for side, marks in sides.items() if marks} == set(layout.mark_sides())
    assert layout.mark_sides() == (["top", "bottom"] if paper == "a4" else ["left", "right"])


def test_back_marks_and_the_scale_bar(tmp_path):
    from pipeline.scaffold import scaffold

    game = scaffold(tmp_path / "g", "背面")
    for name, extra in (("plain", []), ("marked", ["--back-marks"])):
        result = CliRunner().invoke(app, ["build", str(game), "--paper", "a4", "--out", str(tmp_path / name), *extra])
        assert result.exit_code == 0, result.output
        assert "tolerates ±1.8 mm duplex drift" in result.output and "8 per sheet would tolerate ±3 mm" in result.output
    front, plain, marked = (_segments(tmp_path / n / "cards-a4.pdf", i) for n, i in
                            (("plain", 0), ("plain", 1), ("marked", 1)))
    assert front and not plain
    # the block is centred: the back's marks sit where the front's do
    assert np.allclose(np.round(sorted(marked), 1), np.round(sorted(front), 1), atol=TOL_MM)
    # a 50 mm scale bar (0.4 pt) in the margin, labelled
    with pdfplumber.open(tmp_path / "plain" / "cards-a4.pdf") as pdf:
        page = pdf.pages[0]
        bars = [l for l in page.lines if abs(l["linewidth"] - 0.4) < 0.01 and abs(l["top"] - l["bottom"]) < 1e-3]
        assert any(abs(l["x1"] - l["x0"]) / PT_PER_MM == pytest.approx(50, abs=0.05) for l in bars)
        assert "50 mm" in page.extract_text()


def test_each_card_size_gets_sheets_of_its_own(tmp_path, monkeypatch):
    """A card type of another size (``GameDefinition.card_size_of``) is imposed on sheets laid
    out for its size, in the same PDF after the others; the summary names both layouts."""
    from engine.definitions import CardSize, GameDefinition
    from pipeline.scaffold import scaffold

    game = scaffold(tmp_path / "g", "尺寸")
    mini = CardSize(width_mm=44.0, height_mm=68.0)
    original = getattr(GameDefinition, "card_size_of", None)

    def card_size_of(self, type_id):
        if type_id == "spell":
            return mini
        return original(self, type_id) if original is not None else self.card_size

    monkeypatch.setattr(GameDefinition, "card_size_of", card_size_of, raising=False)
    result = CliRunner().invoke(app, ["build", str(game), "--paper", "a4", "--out", str(tmp_path / "out"), "--jobs", "1"])
    assert result.exit_code == 0, result.output
    assert "44 × 68 mm cards:" in result.output
    reader = PdfReader(tmp_path / "out" / "cards-a4.pdf")
    assert len(reader.pages) == 4  # a sheet of poker cards and a sheet of mini cards, each with its backs
    poker, small = choose_layout("a4", 63, 88), choose_layout("a4", 44, 68)
    for index, layout in ((0, poker), (1, poker), (2, small), (3, small)):
        trim = [float(v) / PT_PER_MM for v in reader.pages[index].trimbox]
        # the scaffold has 2 cards a type: the trim box spans two cells of this size
        assert trim[2] - trim[0] == pytest.approx(2 * layout.cell_w + layout.gutter, abs=TOL_MM), index
        assert trim[3] - trim[1] == pytest.approx(layout.cell_h, abs=TOL_MM), index
