"""Duplex drift as a printer makes it (issue 10 §1): the tolerance each sheet states, measured on the PDF.

The backs of backrooms come in three designs side by side. Each back page is rendered, shifted
as a drifting printer would shift it, and the strip just inside each card's trim is read: at the
stated tolerance it still shows the card's own back, half a millimetre beyond it shows the
neighbour's.
"""

from __future__ import annotations

import numpy as np
import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader

from pipeline.outputs.sheets import build_sheets
from pipeline.plan import BuildOptions
from pipeline.impose import choose_layout, paper_size

PX_PER_MM = 10  # 254 dpi: a shift of 0.1 mm is one pixel
PT_PER_MM = 72 / 25.4


@pytest.fixture(scope="module")
def backrooms_sheets(tmp_path_factory):
    return build_sheets("backrooms", BuildOptions(out_dir=tmp_path_factory.mktemp("drift")))


def _render(path, index) -> np.ndarray:
    pdf = pdfium.PdfDocument(str(path))
    try:
        return np.asarray(pdf[index].render(scale=PX_PER_MM * 25.4 / 72).to_pil().convert("RGB"), dtype=float)
    finally:
        pdf.close()


def _px(v_mm: float) -> int:
    return int(round(v_mm * PX_PER_MM))


def _shift(image: np.ndarray, dx_mm: float, dy_mm: float) -> np.ndarray:
    """The page printed ``dx`` mm right and ``dy`` mm up (white paper comes in at the edge)."""
    out = np.full_like(image, 255.0)
    sx, sy = _px(dx_mm), -_px(dy_mm)  # image rows run down
    h, w = image.shape[:2]
    out[max(sy, 0):h + min(sy, 0), max(sx, 0):w + min(sx, 0)] = \
        image[max(-sy, 0):h + min(-sy, 0), max(-sx, 0):w + min(-sx, 0)]
    return out


def _edges(layout, cells):
    """Neighbouring pairs of back cells and the trim edge between them: (a, b, axis), a left of / above b."""
    pairs = []
    for i, a in enumerate(cells):
        for j, b in enumerate(cells):
            if abs(b.x - (a.x + a.w + layout.gutter)) < 1e-3 and abs(a.y - b.y) < 1e-3:
                pairs.append((i, j, "x"))
            if abs(a.y - (b.y + b.h + layout.gutter)) < 1e-3 and abs(a.x - b.x) < 1e-3:
                pairs.append((i, j, "y"))
    return pairs


def _band(image, page_h, cell, side, depth_mm=1.0, inset_mm=0.15):
    """Pixels of a strip ``depth`` deep just inside one side of a cell's trim (middle 60 % of the side)."""
    x0, x1 = cell.x, cell.x + cell.w
    top, bottom = page_h - (cell.y + cell.h), page_h - cell.y  # image rows
    mx, my = 0.2 * cell.w, 0.2 * cell.h
    if side == "left":
        box = (x0 + inset_mm, top + my, x0 + inset_mm + depth_mm, bottom - my)
    elif side == "right":
        box = (x1 - inset_mm - depth_mm, top + my, x1 - inset_mm, bottom - my)
    elif side == "top":
        box = (x0 + mx, top + inset_mm, x1 - mx, top + inset_mm + depth_mm)
    else:
        box = (x0 + mx, bottom - inset_mm - depth_mm, x1 - mx, bottom - inset_mm)
    c0, r0, c1, r1 = (_px(v) for v in box)
    return image[r0:max(r1, r0 + 1), c0:max(c1, c0 + 1)].reshape(-1, 3)


def _neighbour_share(image, page_h, own, other, own_colour, other_colour, side) -> float:
    """Share of the pixels just inside ``own``'s trim (on ``side``) nearer the neighbour's colour."""
    band = _band(image, page_h, own, side, depth_mm=0.1)
    d_own = np.linalg.norm(band - own_colour, axis=1)
    d_other = np.linalg.norm(band - other_colour, axis=1)
    return float((d_other < d_own).mean())


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_backs_stand_the_stated_drift_and_no_more(backrooms_sheets, paper):
    sheet = next(f for f in backrooms_sheets.files if f.paper == paper)
    layout = sheet.layout
    tol = layout.drift_tolerance
    assert tol > 0 and layout.per_sheet == 9
    cells = layout.back_cells()
    page_h = paper_size(paper)[1]
    checked = {"x": 0, "y": 0}
    for index in range(1, sheet.pages, 2):
        image = _render(sheet.path, index)
        for i, j, axis in _edges(layout, cells):
            a, b = cells[i], cells[j]
            near_a, near_b = ("right", "left") if axis == "x" else ("bottom", "top")
            colour_a = _band(image, page_h, a, near_a).mean(axis=0)
            colour_b = _band(image, page_h, b, near_b).mean(axis=0)
            if np.linalg.norm(colour_a - colour_b) < 60:
                continue  # the same back design: a shift cannot be seen
            checked[axis] += 1
            # a drifts onto b (right / down) and b onto a (left / up)
            for sign, own, other, c_own, c_other, side in ((1, b, a, colour_b, colour_a, near_b),
                                                            (-1, a, b, colour_a, colour_b, near_a)):
                for drift, crosses in ((tol, False), (tol + 0.5, True)):
                    dx, dy = (sign * drift, 0.0) if axis == "x" else (0.0, -sign * drift)
                    share = _neighbour_share(_shift(image, dx, dy), page_h, own, other, c_own, c_other, side)
                    if crosses:
                        assert share > 0.5, (paper, index, axis, drift, share)
                    else:
                        assert share < 0.05, (paper, index, axis, drift, share)
    assert checked["x"] and checked["y"], checked  # backrooms puts different backs side by side and above


def test_the_summary_and_the_pdf_state_the_tolerance(backrooms_sheets):
    for sheet in backrooms_sheets.files:
        text = f"tolerates ±{sheet.layout.drift_tolerance:g} mm duplex drift"
        assert text in sheet.layout.describe()
        reader = PdfReader(sheet.path)
        assert text in reader.metadata["/Subject"]
        # the sheet label in the margin (along the side on Letter): game, sheet n of m, side, paper, layout
        n = sheet.pages // 2
        for index, side in ((0, "front"), (1, "back")):
            label = f"后室TCG · sheet 1 of {n} · {side} · {sheet.paper.upper()} · duplex 3×3"
            assert label in reader.pages[index].extract_text().replace("\n", " "), (sheet.paper, side)


def test_tolerance_from_the_geometry():
    # shared cut lines tolerate nothing; a gutter of 2 × bleed tolerates the bleed
    assert choose_layout("a4", 63, 88, gutter=0).drift_tolerance == 0
    assert "±0 mm" in choose_layout("a4", 63, 88, gutter=0).describe()
    wide = choose_layout("a4", 63, 88, gutter=6)
    assert wide.drift_tolerance == 3 and wide.per_sheet < 9
    # the default: the most tolerance 9 cards allow (3 × 63 + 2 gutters + 2 outer bleeds ≤ 200 mm on A4,
    # 3 × 88 + 2 gutters + 2 outer bleeds ≤ 269.4 mm on Letter; tolerance = min(gutter / 2, outer bleed))
    a4, letter = choose_layout("a4", 63, 88), choose_layout("letter", 63, 88)
    assert a4.drift_tolerance == pytest.approx((200 - 189) / 6, abs=0.05)
    assert letter.drift_tolerance == pytest.approx((269.4 - 264) / 6, abs=0.05)
    for layout in (a4, letter):
        assert 3 * layout.cell_w + 2 * layout.gutter + 2 * layout.edge_x <= layout.paper_w - 10 + 1e-6
        assert 3 * layout.cell_h + 2 * layout.gutter + 2 * layout.edge_y <= layout.paper_h - 10 + 1e-6
        # the trade-off is printed: fewer cards, more tolerance
        assert layout.alternative and layout.alternative[0] < 9 and layout.alternative[1] > layout.drift_tolerance
        assert "per sheet would tolerate" in layout.trade_off()
