"""Gutterfold sheets (issue 10 §1, ``--layout fold``): fronts and their mirrored backs on one page,
paired across a dashed fold line, for a printer without duplex."""

from __future__ import annotations

import math

import numpy as np
import pdfplumber
import pypdfium2 as pdfium
import pytest
from typer.testing import CliRunner

from engine.check import check_game
from pipeline.cli.app import app
from pipeline.impose import choose_layout, paper_size

PT_PER_MM = 72 / 25.4


@pytest.fixture(scope="module")
def fold_pdf(tmp_path_factory):
    out = tmp_path_factory.mktemp("fold")
    result = CliRunner().invoke(app, ["build", "backrooms", "--paper", "a4", "--layout", "fold", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "gutterfold" in result.output
    return out / "cards-a4.pdf"


def _ink(path, index, dpi=40):
    pdf = pdfium.PdfDocument(str(path))
    try:
        image = pdf[index].render(scale=dpi / 72).to_pil().convert("L")
    finally:
        pdf.close()
    return np.asarray(image) < 245


def test_one_page_a_sheet_with_a_dashed_fold_line(fold_pdf):
    layout = choose_layout("a4", 63, 88, kind="fold")
    n_cards = len(check_game("backrooms").cards)
    with pdfplumber.open(fold_pdf) as pdf:
        assert len(pdf.pages) == math.ceil(n_cards / layout.per_sheet)
        page = pdf.pages[0]
        folds = [l for l in page.lines if l["dash"] and abs(l["x0"] - l["x1"]) < 1e-3]
    assert len(folds) == 1
    fold = folds[0]
    assert fold["x0"] / PT_PER_MM == pytest.approx(paper_size("a4")[0] / 2, abs=0.05)
    assert (fold["bottom"] - fold["top"]) / PT_PER_MM >= layout.block_h  # across every row


def test_backs_mirror_their_fronts_across_the_fold(fold_pdf):
    layout = choose_layout("a4", 63, 88, kind="fold")
    with pdfplumber.open(fold_pdf) as pdf:
        last = len(pdf.pages) - 1
    dpi = 40
    ink = _ink(fold_pdf, last, dpi)
    # the card rows only (the margin's label and scale bar are not mirrored)
    _ox, oy = layout.origin
    h = paper_size("a4")[1]
    r0, r1 = int((h - oy - layout.block_h) / 25.4 * dpi) + 1, int((h - oy) / 25.4 * dpi) - 1
    rows = ink[r0:r1]
    half = rows.shape[1] // 2
    left, right = rows[:, :half], rows[:, -half:][:, ::-1]
    overlap = (left & right).sum() / max((left | right).sum(), 1)
    assert overlap > 0.9
    assert rows.sum() < rows.size * 0.8  # the last sheet is partly filled: misplaced backs would show


def test_backs_turn_so_that_folding_aligns_them(fold_pdf):
    """Folding over the vertical line mirrors x: a front lying down reads bottom to top, its back
    top to bottom (as for long-edge duplex)."""
    mid = paper_size("a4")[0] / 2 * PT_PER_MM
    with pdfplumber.open(fold_pdf) as pdf:
        chars = [c for c in pdf.pages[0].chars if c["text"].strip()]
    layout = choose_layout("a4", 63, 88, kind="fold")
    _ox, oy = layout.origin
    height = paper_size("a4")[1] * PT_PER_MM
    on_cards = [c for c in chars if oy * PT_PER_MM < height - c["bottom"] and height - c["top"] < (oy + layout.block_h) * PT_PER_MM]
    fronts = {tuple(round(v) for v in c["matrix"][:4]) for c in on_cards if c["x1"] < mid}
    backs = {tuple(round(v) for v in c["matrix"][:4]) for c in on_cards if c["x0"] > mid}
    assert fronts == {(0, 1, -1, 0)} and backs == {(0, -1, 1, 0)}, (fronts, backs)
    assert any(c["text"] == "后" for c in on_cards if c["x0"] > mid)  # the back's title: 后室TCG


def test_fold_is_described_and_an_unknown_layout_refused(tmp_path):
    assert "gutterfold" in choose_layout("letter", 63, 88, kind="fold").describe()
    result = CliRunner().invoke(app, ["build", "duel", "--layout", "sideways", "--out", str(tmp_path / "x")])
    assert result.exit_code == 2 and "sideways" in result.output
    assert not (tmp_path / "x").exists()
