"""Presets kept as data (templates/_common/presets/): papers and card sizes, read once and checked."""

from __future__ import annotations

import pytest

from engine import presets
from engine.errors import CardpressError, DataError


def test_the_shipped_papers_and_sizes():
    papers = presets.papers()
    assert list(papers) == ["a4", "letter"]
    assert papers["a4"].mm == (210.0, 297.0) and papers["a4"].booklet_page_mm == (148.0, 210.0)
    assert papers["letter"].mm == (215.9, 279.4) and papers["letter"].booklet_page_mm == (139.7, 215.9)
    assert all(p.source for p in papers.values())
    assert presets.card_sizes()["mini-us"] == (41.0, 63.0)


def test_an_unknown_paper_names_the_papers_there_are():
    assert presets.paper("LETTER").id == "letter"
    with pytest.raises(CardpressError, match=r"unknown paper 'b5'; use one of: a4, letter"):
        presets.paper("b5")


@pytest.mark.parametrize("text, where", [
    ("a4:\n  name: A4\n  width_mm: -210\n  height_mm: 297\n  booklet_page_mm: [148, 210]\n  source: x\n",
     r"papers.yaml, line 3: a4: width_mm must be a positive"),
    ("a4:\n  name: A4\n  width_mm: 210\n  height_mm: 297\n  booklet_page_mm: [148]\n  source: x\n",
     r"papers.yaml, line 5: a4: booklet_page_mm must be"),
    ("a4:\n  name: A4\n  width_mm: 210\n  height_mm: 297\n  booklet_page_mm: [148, 210]\n",
     r"papers.yaml, line 1: a4: an entry needs its sizes and a source"),
])
def test_a_broken_preset_file_is_one_located_error(tmp_path, monkeypatch, text, where):
    (tmp_path / "papers.yaml").write_text(text, encoding="utf-8")
    monkeypatch.setattr(presets, "presets_dir", lambda: tmp_path)
    presets.papers.cache_clear()
    try:
        with pytest.raises(DataError, match=where):
            presets.papers()
    finally:
        presets.papers.cache_clear()


def test_the_cli_refuses_an_unknown_paper_with_the_choices():
    from typer.testing import CliRunner

    from pipeline.cli.app import app

    for args in (["calibrate", "--paper", "b5"], ["rulebook", "duel", "--paper", "b5"], ["build", "duel", "--paper", "b5"]):
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 2, args
        assert "unknown paper 'b5'; use a4 or letter" in result.output, args
