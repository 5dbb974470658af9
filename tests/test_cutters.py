"""Print-and-cut sheets (issue 10 §1, ``--layout silhouette`` / ``--layout cricut``): the
registration marks where the cutters' software expects them, the cards clear of the marks'
zones, and cut files (SVG, DXF) whose outlines are the PDF's card positions."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pdfplumber
import pytest
from typer.testing import CliRunner

from engine.presets import papers
from pipeline.cli.app import app
from pipeline.impose import CRICUT, SCALE_BAR_MM, SILHOUETTE, choose_layout, paper_size
from pipeline.render.sheets import SCALE_BAR_WIDTH_PT

REPO = Path(__file__).resolve().parent.parent
PT = 72 / 25.4
RADIUS = 2.5


@pytest.fixture(scope="module", params=["silhouette", "cricut"])
def build(request, tmp_path_factory):
    out = tmp_path_factory.mktemp(request.param)
    result = CliRunner().invoke(app, ["build", "backrooms", "--layout", request.param, "--corner-radius", str(RADIUS),
                                      "--out", str(out)])
    assert result.exit_code == 0, result.output
    return request.param, out, result.output


def _rects(path, paper):
    """Filled black rectangles of the first page, in mm with y up."""
    h = paper_size(paper)[1]
    with pdfplumber.open(path) as pdf:
        page = pdf.pages[0]
        rects = [(r["x0"] / PT, h - r["bottom"] / PT, r["x1"] / PT, h - r["top"] / PT) for r in page.rects
                 if r["fill"] and r.get("non_stroking_color") in ((0,), (0, 0, 0), [0], [0, 0, 0], 0)]
    return rects


def _trim(path):
    import pypdf
    box = pypdf.PdfReader(str(path)).pages[0].trimbox
    return tuple(float(v) / PT for v in (box.left, box.bottom, box.right, box.top))


def _svg_boxes(path, paper):
    root = ET.parse(path).getroot()
    w, h = paper_size(paper)
    assert root.get("width") == f"{w:g}mm" and root.get("height") == f"{h:g}mm"
    assert [float(v) for v in root.get("viewBox").split()] == [0, 0, w, h]
    boxes, radii = [], set()
    for p in root.iter("{http://www.w3.org/2000/svg}path"):
        d = p.get("d")
        # M x y H x A r r 0 0 1 x y V y A … H x A … V y A … Z: collect absolute coordinates
        tokens = re.findall(r"[MHVAZ]|-?\d+(?:\.\d+)?", d)
        pts, i = [], 0
        cx = cy = 0.0
        while i < len(tokens):
            t = tokens[i]
            if t == "M":
                cx, cy = float(tokens[i + 1]), float(tokens[i + 2]); i += 3
            elif t == "H":
                cx = float(tokens[i + 1]); i += 2
            elif t == "V":
                cy = float(tokens[i + 1]); i += 2
            elif t == "A":
                radii.add(float(tokens[i + 1]))
                cx, cy = float(tokens[i + 6]), float(tokens[i + 7]); i += 8
            else:
                i += 1
            pts.append((cx, cy))
        x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
        top, bottom = min(p[1] for p in pts), max(p[1] for p in pts)
        boxes.append((x0, h - bottom, x1, h - top))  # y up
    return boxes, radii


def _dxf_boxes(path):
    lines = path.read_text().splitlines()
    assert lines[lines.index("$ACADVER") + 2] == "AC1009"
    pairs = list(zip(lines[0::2], lines[1::2]))
    entities, cur = [], None
    for code, value in pairs:
        if code == "0":
            cur = {"type": value}
            entities.append(cur)
        elif cur is not None:
            cur[code] = float(value) if code in ("10", "20", "11", "21", "40", "50", "51") else value
    segs = [e for e in entities if e["type"] == "LINE"]
    arcs = [e for e in entities if e["type"] == "ARC"]
    # each card: 4 lines, then 4 arcs; its box is the lines' extent
    boxes = []
    for k in range(0, len(segs), 4):
        four = segs[k:k + 4]
        xs = [e[c] for e in four for c in ("10", "11")]
        ys = [e[c] for e in four for c in ("20", "21")]
        boxes.append((min(xs), min(ys), max(xs), max(ys)))
    return boxes, arcs


def _overlap(a, b):
    return a[0] < b[2] - 1e-6 and b[0] < a[2] - 1e-6 and a[1] < b[3] - 1e-6 and b[1] < a[3] - 1e-6


def _scale_bar(page, h):
    """The scale bar on a pdfplumber page: (its box in mm with y up, its lines), None if absent —
    a horizontal line of ``SCALE_BAR_WIDTH_PT`` about 50 mm long and six ticks at every 10 mm
    standing on it."""
    mine = [l for l in page.lines if abs(l["linewidth"] - SCALE_BAR_WIDTH_PT) < 1e-3]
    for bar in mine:
        if abs(bar["top"] - bar["bottom"]) > 1e-3 or abs((bar["x1"] - bar["x0"]) / PT - SCALE_BAR_MM) > 1.0:
            continue
        ticks = [l for l in mine if abs(l["x0"] - l["x1"]) < 1e-3 and abs(l["bottom"] - bar["top"]) < 1e-3
                 and bar["x0"] - 1e-3 <= l["x0"] <= bar["x1"] + 1e-3]
        at = sorted(round((t["x0"] - bar["x0"]) / PT, 1) for t in ticks)
        if at != [0, 10, 20, 30, 40, 50]:
            continue
        lines = [bar] + ticks
        half = SCALE_BAR_WIDTH_PT / 2
        box = (min(l["x0"] for l in lines) - half, min(l["top"] for l in lines) - half,
               max(l["x1"] for l in lines) + half, max(l["bottom"] for l in lines) + half)
        return (box[0] / PT, h - box[3] / PT, box[2] / PT, h - box[1] / PT), lines
    return None


def _bbox_mm(obj, h):
    return obj["x0"] / PT, h - obj["bottom"] / PT, obj["x1"] / PT, h - obj["top"] / PT


@pytest.fixture(scope="module", params=["silhouette", "cricut"])
def duel(request, tmp_path_factory):
    """duel's 40-card swords deck: 6 a sheet on Silhouette (a last sheet of 4), 4 on Cricut (full).
    An earlier build's ``-last`` cut files are in the folder already."""
    out = tmp_path_factory.mktemp("duel-" + request.param)
    for paper in papers():
        for ext in ("svg", "dxf"):
            (out / f"cards-{paper}-cut-last.{ext}").write_text("stale")
    result = CliRunner().invoke(app, ["--lang", "en", "build", "duel", "--layout", request.param,
                                      "--deck", str(REPO / "card_data/duel/decks/swords.yaml"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return request.param, out, result.output


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_cutter_sheets_carry_the_label_and_a_50_mm_scale_bar_clear_of_marks_and_cards(duel, paper):
    kind, out, _output = duel
    w, h = paper_size(paper)
    layout = choose_layout(paper, 63, 88, kind=kind)
    zones, bleeds = layout.mark_zones(), layout.bleed_boxes()
    sheets = -(-40 // layout.per_sheet)
    margin = layout.margin
    with pdfplumber.open(out / f"cards-{paper}.pdf") as pdf:
        assert len(pdf.pages) == 2 * sheets
        for i, page in enumerate(pdf.pages):
            n, side = i // 2 + 1, ("front", "back")[i % 2]
            kinds = {"silhouette": "Silhouette", "cricut": "Cricut"}
            label = (f"主战者对决 · sheet {n} of {sheets} · {side} · {paper.upper()} · "
                     f"{kinds[kind]} {layout.cols}×{layout.rows} · ±3 mm")
            assert label in page.extract_text(), (i, page.extract_text()[-200:])
            found = page.search(label, regex=False)
            assert len(found) == 1
            things = [_bbox_mm(found[0], h)]
            bar = _scale_bar(page, h)
            if side == "front":  # the back's bar comes with --back-marks, like a duplex sheet's
                assert bar is not None, i
                (x0, y0, x1, y1), lines = bar
                assert abs((lines[0]["x1"] - lines[0]["x0"]) / PT - SCALE_BAR_MM) <= 0.1
                things.append(bar[0])
                text = [m for m in page.search("50 mm", regex=False)
                        if x0 <= m["x0"] / PT and m["x1"] / PT <= x1 and abs(h - m["bottom"] / PT - y0) < 3]
                assert len(text) == 1
                things.append(_bbox_mm(text[0], h))
            for box in things:
                assert not any(_overlap(box, z) for z in zones), (i, box)
                assert not any(_overlap(box, b) for b in bleeds), (i, box)
                assert margin <= box[0] and box[2] <= w - margin and margin <= box[1] and box[3] <= h - margin
                ax0, ay0, ax1, ay1 = layout.cut_area()  # inside the marks' rectangle / the frame
                assert ax0 <= box[0] and box[2] <= ax1 and ay0 <= box[1] and box[3] <= ay1, (i, box)


@pytest.mark.parametrize("kind", ["silhouette", "cricut"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_cutter_strips_are_clear_of_the_zones_and_the_bleed(kind, paper):
    layout = choose_layout(paper, 63, 88, kind=kind)
    label, bar = layout.furniture_strips()
    assert label is not None and bar is not None and label[0] != bar[0]
    assert bar[2] - bar[1] >= SCALE_BAR_MM + 2
    ox, oy = layout.origin
    for side, lo, hi, depth in layout.margin_strips():
        if side in ("top", "bottom"):
            y0 = oy + layout.block_h + layout.edge_y + 0.5 if side == "top" else oy - layout.edge_y - 0.5 - depth
            rect = (lo, y0, hi, y0 + depth)
        else:
            x0 = ox - layout.edge_x - 0.5 - depth if side == "left" else ox + layout.block_w + layout.edge_x + 0.5
            rect = (x0, lo, x0 + depth, hi)
        assert not any(_overlap(rect, z) for z in layout.mark_zones()), (side, rect)
        assert not any(_overlap(rect, b) for b in layout.bleed_boxes()), (side, rect)
    assert "no room" not in layout.describe()


def test_a_cutter_sheet_without_room_for_the_scale_bar_says_so():
    layout = choose_layout("a4", 165, 228, kind="cricut")  # one card filling the print-then-cut area
    assert layout.furniture_strips() == (None, None)
    assert "no room clear of the marks and cards for the sheet label and the 50 mm scale bar" in layout.describe()


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_partial_last_sheet_gets_its_own_cut_file(duel, paper):
    kind, out, output = duel
    layout = choose_layout(paper, 63, 88, kind=kind)
    last = 40 % layout.per_sheet
    svg, dxf = out / f"cards-{paper}-cut-last.svg", out / f"cards-{paper}-cut-last.dxf"
    if kind == "cricut":  # 10 full sheets: the full sheet's file cuts the last; the stale -last is gone
        assert last == 0 and not svg.exists() and not dxf.exists() and "-cut-last" not in output
        return
    assert last == 4
    assert str(svg) in output and str(dxf) in output
    cells = [(c.x, c.y, c.x + c.w, c.y + c.h) for c in layout.front_cells()[:last]]
    svg_boxes, _radii = _svg_boxes(svg, paper)
    dxf_boxes, arcs = _dxf_boxes(dxf)
    for boxes in (svg_boxes, dxf_boxes):
        assert len(boxes) == last
        for cell in cells:
            assert any(all(abs(a - b) < 0.01 for a, b in zip(cell, box)) for box in boxes), cell
    # the full sheet's file still cuts every cell, and the last sheet's front page holds those 4 cards
    assert len(_svg_boxes(out / f"cards-{paper}-cut.svg", paper)[0]) == layout.per_sheet
    import pypdf
    reader = pypdf.PdfReader(str(out / f"cards-{paper}.pdf"))
    box = reader.pages[-2].trimbox
    trim = tuple(float(v) / PT for v in (box.left, box.bottom, box.right, box.top))
    union = (min(b[0] for b in svg_boxes), min(b[1] for b in svg_boxes), max(b[2] for b in svg_boxes),
             max(b[3] for b in svg_boxes))
    assert all(abs(a - b) < 0.01 for a, b in zip(trim, union)), (trim, union)


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_registration_marks_where_the_spec_puts_them(build, paper):
    kind, out, _output = build
    w, h = paper_size(paper)
    rects = _rects(out / f"cards-{paper}.pdf", paper)
    if kind == "silhouette":
        i, n, t = SILHOUETTE.inset, SILHOUETTE.length, SILHOUETTE.thick
        assert (i, n, t) == (10, 5, 1)
        want = [(i, h - i - n, i + n, h - i),  # the filled square, top left
                (w - i - n, h - i - t, w - i, h - i), (w - i - t, h - i - n, w - i, h - i - t),  # L top right
                (i, i, i + n, i + t), (i, i + t, i + t, i + n)]  # L bottom left
    else:
        t, g = CRICUT.thick, CRICUT.frame_gap
        aw, ah = 6.75 * 25.4, 9.25 * 25.4
        x0, y0 = (w - aw) / 2 - g - t, (h - ah) / 2 - g - t
        x1, y1 = w - x0, h - y0
        want = [(x0, y1 - t, x1, y1), (x0, y0, x1, y0 + t), (x0, y0 + t, x0 + t, y1 - t), (x1 - t, y0 + t, x1, y1 - t)]
        # the frame surrounds the 6.75 × 9.25 in area, centred
        assert x1 - x0 - 2 * (g + t) == pytest.approx(aw) and y1 - y0 - 2 * (g + t) == pytest.approx(ah)
    for box in want:
        assert any(all(abs(a - b) < 0.01 for a, b in zip(box, r)) for r in rects), (box, rects)
    # no crop marks on a cutter's sheet: the blade cuts (the scale bar's lines are its only straight ones)
    with pdfplumber.open(out / f"cards-{paper}.pdf") as pdf:
        page = pdf.pages[0]
        bar = _scale_bar(page, h)
        assert bar is not None
        assert not [l for l in page.lines if (abs(l["x0"] - l["x1"]) < 1e-3 or abs(l["top"] - l["bottom"]) < 1e-3)
                    and l not in bar[1]]


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_no_card_bleed_in_a_mark_zone_and_a_gap_between_cards(build, paper):
    kind, _out, _output = build
    layout = choose_layout(paper, 63, 88, kind=kind)
    zones = layout.mark_zones()
    assert zones
    x0, y0, x1, y1 = layout.cut_area()
    for box in layout.bleed_boxes():
        assert not any(_overlap(box, z) for z in zones)
        assert x0 - 1e-6 <= box[0] and box[2] <= x1 + 1e-6 and y0 - 1e-6 <= box[1] and box[3] <= y1 + 1e-6
    assert layout.gutter >= 2 * layout.bleed
    assert layout.per_sheet >= 4


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_cut_files_match_the_cards_on_the_sheet(build, paper):
    kind, out, output = build
    layout = choose_layout(paper, 63, 88, kind=kind)
    svg = out / f"cards-{paper}-cut.svg"
    dxf = out / f"cards-{paper}-cut.dxf"
    assert str(svg) in output and str(dxf) in output and "per " + paper.upper() in output
    cells = [(c.x, c.y, c.x + c.w, c.y + c.h) for c in layout.front_cells()]
    svg_boxes, radii = _svg_boxes(svg, paper)
    dxf_boxes, arcs = _dxf_boxes(dxf)
    for boxes in (svg_boxes, dxf_boxes):
        assert len(boxes) == len(cells) == layout.per_sheet
        for cell in cells:
            assert any(all(abs(a - b) < 0.01 for a, b in zip(cell, box)) for box in boxes), cell
    assert radii == {RADIUS}
    assert len(arcs) == 4 * len(cells) and {a["40"] for a in arcs} == {RADIUS}
    # the PDF's trim box (a full first sheet) is the union of the cut outlines
    trim = _trim(out / f"cards-{paper}.pdf")
    union = (min(b[0] for b in svg_boxes), min(b[1] for b in svg_boxes), max(b[2] for b in svg_boxes),
             max(b[3] for b in svg_boxes))
    assert all(abs(a - b) < 0.01 for a, b in zip(trim, union)), (trim, union)


def test_corner_radius_too_large_is_refused_and_nothing_written(tmp_path):
    result = CliRunner().invoke(app, ["build", "backrooms", "--layout", "cricut", "--corner-radius", "40",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code != 0
    assert "corner-radius" in result.output
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())
