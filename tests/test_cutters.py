"""Print-and-cut sheets (issue 10 §1, ``--layout silhouette`` / ``--layout cricut``): the
registration marks where the cutters' software expects them, the cards clear of the marks'
zones, and cut files (SVG, DXF) whose outlines are the PDF's card positions."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pdfplumber
import pytest
from typer.testing import CliRunner

from pipeline.cli.app import app
from pipeline.impose import CRICUT, PAPERS_MM, SILHOUETTE, choose_layout

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
    h = PAPERS_MM[paper][1]
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
    w, h = PAPERS_MM[paper]
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


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_registration_marks_where_the_spec_puts_them(build, paper):
    kind, out, _output = build
    w, h = PAPERS_MM[paper]
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
    # no crop marks on a cutter's sheet: the blade cuts
    with pdfplumber.open(out / f"cards-{paper}.pdf") as pdf:
        assert not [l for l in pdf.pages[0].lines if abs(l["x0"] - l["x1"]) < 1e-3 or abs(l["top"] - l["bottom"]) < 1e-3]


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
