"""The duplex calibration sheet: back targets sit exactly behind the front crosses."""

from __future__ import annotations

import pdfplumber
import pytest

from pipeline.outputs.calibration import mirrored, targets, write_calibration

PT = 72 / 25.4


def _flat(points):
    return [v for p in points for v in p]


def _cross_centres(page):
    """Centres of crosses: the midpoints of horizontal lines that a vertical line crosses."""
    h = float(page.height)
    horiz = [l for l in page.lines if abs(l["top"] - l["bottom"]) < 1e-3 and l["x1"] - l["x0"] > 5 * PT]
    vert = [l for l in page.lines if abs(l["x0"] - l["x1"]) < 1e-3 and l["bottom"] - l["top"] > 5 * PT]
    centres = set()
    for a in horiz:
        for b in vert:
            if a["x0"] < b["x0"] < a["x1"] and b["top"] < a["top"] < b["bottom"]:
                centres.add((round(b["x0"] / PT, 2), round((h - a["top"]) / PT, 2)))
    return sorted(centres)


@pytest.mark.parametrize("paper,flip,offset", [("a4", "long", (0, 0)), ("letter", "short", (0, 0)),
                                               ("a4", "long", (1.5, -0.5))])
def test_back_targets_mirror_front_crosses(tmp_path, paper, flip, offset):
    path = write_calibration(tmp_path / "cal.pdf", paper, 5.0, flip, offset)
    with pdfplumber.open(path) as pdf:
        assert len(pdf.pages) == 2
        front, back = _cross_centres(pdf.pages[0]), _cross_centres(pdf.pages[1])
    expected_front = sorted((round(x, 2), round(y, 2)) for x, y in targets(paper, 5.0))
    assert _flat(front) == pytest.approx(_flat(expected_front), abs=0.05)
    expected_back = sorted(
        (round(mx + offset[0], 2), round(my + offset[1], 2))
        for mx, my in (mirrored(paper, p, flip) for p in targets(paper, 5.0))
    )
    assert _flat(back) == pytest.approx(_flat(expected_back), abs=0.05)
