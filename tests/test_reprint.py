"""Reprint only what changed: every build writes its faces' digests; ``--changed-since`` imposes
only the cards new or different since that build, in files of their own."""

from __future__ import annotations

import json

import pytest
from PIL import Image
from pypdf import PdfReader
from typer.testing import CliRunner

from pipeline.outputs.sheets import build_sheets
from pipeline.plan import BuildOptions
from pipeline.cli.app import app
from pipeline.outputs.manifest import ManifestError
from pipeline.scaffold import scaffold

A4 = ("a4",)


@pytest.fixture
def printed(tmp_path):
    game = scaffold(tmp_path / "g", "勘误")
    first = build_sheets(game, BuildOptions(papers=A4, out_dir=tmp_path / "first"))
    return game, tmp_path / "first", first


def _edit(game, old, new):
    cards = game / "cards" / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    assert old in text
    cards.write_text(text.replace(old, new), encoding="utf-8")


def _text(pdf) -> str:
    return "".join(page.extract_text() or "" for page in PdfReader(pdf).pages)


def test_a_build_writes_the_digest_of_every_face_and_back(printed):
    _, out, first = printed
    data = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert first.manifest == out / "manifest.json"
    assert sorted(data["faces"]) == ["guardian", "insight", "scout", "spark"] and list(data["backs"]) == ["default"]
    assert len(set(data["faces"].values())) == 4


def test_only_the_edited_card_is_reprinted_and_the_full_print_is_kept(printed, tmp_path):
    game, out, _ = printed
    before = (out / "cards-a4.pdf").read_bytes()
    _edit(game, "抽2张牌，然后弃置1张手牌。", "抽3张牌，然后弃置2张手牌。")
    result = build_sheets(game, BuildOptions(papers=A4, out_dir=out, changed_since=out))
    assert result.changes.changed == ["insight"] and result.changes.new == [] and result.changes.unchanged == 3
    assert [f.path.name for f in result.files] == ["changed-a4.pdf"] and result.cards == 1
    assert len(PdfReader(out / "changed-a4.pdf").pages) == 2  # one sheet: its face and its back
    text = _text(out / "changed-a4.pdf")
    assert "抽3张牌" in text and "斥候" not in text
    assert (out / "cards-a4.pdf").read_bytes() == before  # the full print and its manifest stay
    assert json.loads((out / "manifest.json").read_text(encoding="utf-8"))["faces"]["insight"]


def test_new_art_changes_a_card_and_a_removed_card_is_listed(printed):
    game, out, _ = printed
    Image.new("RGB", (600, 840), (30, 120, 60)).save(game / "art" / "scout.png")
    cards = game / "cards" / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    cards.write_text(text[:text.index("- id: spark")] + text[text.index("- id: insight"):], encoding="utf-8")
    deck = game / "decks" / "starter.yaml"
    deck.write_text(deck.read_text(encoding="utf-8").replace("  spark: 2\n", ""), encoding="utf-8")
    result = build_sheets(game, BuildOptions(papers=A4, out_dir=out, changed_since=out / "manifest.json"))
    assert result.changes.changed == ["scout"] and result.changes.removed == ["spark"]


def test_nothing_changed_prints_nothing_and_says_so(printed, tmp_path):
    game, out, _ = printed
    result = CliRunner().invoke(app, ["build", str(game), "--paper", "a4", "--out", str(tmp_path / "again"),
                                      "--changed-since", str(out)])
    assert result.exit_code == 0, result.output
    assert "0 changed; 0 new; 4 unchanged" in result.output and "nothing to print" in result.output
    assert not (tmp_path / "again").exists()


@pytest.mark.parametrize("content", [b"not json", b'{"format": "other", "faces": {}}', b'{"format": "cardpress-faces/1", "faces": [1]}'])
def test_a_manifest_that_is_not_one_is_refused_before_any_work(printed, tmp_path, content):
    game, _, _ = printed
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    with pytest.raises(ManifestError, match="bad.json: not a cardpress manifest"):
        build_sheets(game, BuildOptions(papers=A4, out_dir=tmp_path / "x", changed_since=bad))
    assert not (tmp_path / "x").exists()
