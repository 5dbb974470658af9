"""Per-card images for print shops and Tabletop Simulator sheets."""

from __future__ import annotations

import numpy as np
from PIL import Image
from typer.testing import CliRunner

from pipeline.cli import app
from pipeline.scaffold import scaffold


def test_card_images_and_tts_sheets(tmp_path):
    game = scaffold(tmp_path / "g", "图片")
    deck = game / "decks" / "starter.yaml"
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["images", str(game), "--deck", str(deck), "--dpi", "150", "--out", str(out)])
    assert result.exit_code == 0, result.output
    cards = sorted(p.stem for p in (out / "images").glob("*.png"))
    assert cards == ["back-default", "guardian", "insight", "scout", "spark"]
    bleed = 25.4 / 8
    expected = (round((63 + 2 * bleed) / 25.4 * 150), round((88 + 2 * bleed) / 25.4 * 150))
    for name in cards:
        with Image.open(out / "images" / f"{name}.png") as im:
            assert abs(im.width - expected[0]) <= 1 and abs(im.height - expected[1]) <= 1
            assert round(im.info["dpi"][0]) == 150
    face = np.asarray(Image.open(out / "images" / "scout.png").convert("L"), dtype=float)
    back = np.asarray(Image.open(out / "images" / "back-default.png").convert("L"), dtype=float)
    assert face.std() > 10 and np.abs(face - back).mean() > 10  # real, different drawings
    # The bleed is drawn too: the image's edge is the card's background colour, not white.
    assert face[0].mean() < 200 and face[:, 0].mean() < 200

    sheets = sorted((out / "tts").glob("sheet-*.jpg"))
    assert len(sheets) == 1 and (out / "tts" / "back-default.jpg").is_file()
    with Image.open(sheets[0]) as sheet:
        assert sheet.width <= 4096 and sheet.height <= 4096
        cell_w, cell_h = sheet.width // 10, sheet.height // 7
        pixels = np.asarray(sheet.convert("L"))
    # 8 cards of the deck fill slots 0-7; slot 8..68 empty (white); slot 69 is the hidden back.
    def slot(i):
        r, c = divmod(i, 10)
        return pixels[r * cell_h:(r + 1) * cell_h, c * cell_w:(c + 1) * cell_w]
    assert all(slot(i).mean() < 245 for i in range(8))
    assert slot(8).mean() > 250 and slot(68).mean() > 250
    assert slot(69).mean() < 245
