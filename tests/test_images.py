"""Per-card images for print shops and Tabletop Simulator sheets."""

from __future__ import annotations

import numpy as np
from PIL import Image
from typer.testing import CliRunner

from pipeline.cli.app import app
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


def _prepared(tmp_path, bleed=25.4 / 8):
    from pipeline.plan import prepare

    game = scaffold(tmp_path / "g", "图片")
    return prepare(game, game / "decks" / "starter.yaml", bleed)


def test_two_workers_write_the_same_images_as_one_and_as_a_direct_render(tmp_path):
    """Rendering split over worker processes changes nothing: same bytes as one process, and the
    same pixels, size and dpi as rendering the card PDF's pages straight (the route before
    rendering was split and cells were made per card)."""
    import pypdfium2 as pdfium

    from pipeline.outputs.images import write_images
    from pipeline.render.raster import faces_pdf

    prep = _prepared(tmp_path)
    one = write_images(prep, tmp_path / "one", 120, 25.4 / 8, True, workers=1)
    two = write_images(prep, tmp_path / "two", 120, 25.4 / 8, True, workers=2)
    assert [p.name for p in one.cards + one.backs] == [p.name for p in two.cards + two.backs]
    for a, b in zip(one.cards + one.backs + one.tts_sheets, two.cards + two.backs + two.tts_sheets):
        assert a.read_bytes() == b.read_bytes(), a.name
    pdf = pdfium.PdfDocument(faces_pdf(prep, 25.4 / 8))
    try:
        for n, path in enumerate(two.cards + two.backs):
            direct = pdf[n].render(scale=120 / 72).to_pil().convert("RGB")
            with Image.open(path) as im:
                assert im.size == direct.size and round(im.info["dpi"][0]) == 120
                assert "srgb" in im.info, path.name   # the pixels are declared sRGB
                assert np.array_equal(np.asarray(im.convert("RGB")), np.asarray(direct)), path.name
    finally:
        pdf.close()


def test_tts_cells_are_the_card_images_trimmed_and_resized(tmp_path):
    """Each TTS slot holds its card: rendered straight from the page at the cell's size, it is
    close to an exact LANCZOS resize of the card image with its bleed cut off (text and art
    anti-aliased at the target size differ by a few levels, JPEG adds ~1), while the next card
    (a different drawing) or the same card one slot off is far from it."""
    from pipeline.outputs.images import TTS_COLS, tts_cell, write_images

    prep = _prepared(tmp_path)
    result = write_images(prep, tmp_path / "out", 120, 25.4 / 8, True, workers=2)
    cell, cut = tts_cell(prep.game.card_size.mm, 120), round(25.4 / 8 / 25.4 * 120)
    with Image.open(result.tts_sheets[0]) as im:
        sheet = np.asarray(im.convert("RGB"), dtype=float)

    def slot(i):
        r, c = divmod(i, TTS_COLS)
        return sheet[r * cell[1]:(r + 1) * cell[1], c * cell[0]:(c + 1) * cell[0]]

    def exact(card_id):
        with Image.open(tmp_path / "out" / "images" / f"{card_id}.png") as im:
            box = (cut, cut, im.width - cut, im.height - cut)
            return np.asarray(im.convert("RGB").resize(cell, Image.LANCZOS, box=box), dtype=float)

    ids = [card.id for card in prep.sequence]
    for i, card_id in enumerate(ids):
        expected = exact(card_id)
        assert slot(i).shape == expected.shape
        assert np.abs(slot(i) - expected).mean() < 3, card_id  # measured ~2
        assert np.abs(np.roll(slot(i), 2, axis=1) - expected).mean() > 3  # 2 px off shows
        for j, other in enumerate(ids):
            if other != card_id:  # the scaffold's closest pair of faces differ by ~5
                assert np.abs(slot(j) - expected).mean() > 4, (card_id, other)


def test_a_deck_of_several_tts_sheets_is_split_over_two_processes_and_comes_out_the_same(tmp_path):
    """With two cores the card PDF is painted in two halves and the TTS sheets are made by two
    processes, every other sheet each; the files are the ones one process writes, in order."""
    from pipeline.plan import prepare
    from pipeline.outputs.images import TTS_COLS, TTS_ROWS, write_images

    game = scaffold(tmp_path / "g", "多张")
    spec = game / "game.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("max_size: 60", "max_size: 200")
                    .replace("max_copies: 3", "max_copies: 40"), encoding="utf-8")
    deck = game / "decks" / "big.yaml"
    deck.write_text("name: 大卡组\ncards:\n  scout: 40\n  guardian: 40\n  spark: 40\n  insight: 40\n", encoding="utf-8")
    prep = prepare(game, deck, 25.4 / 8)
    one = write_images(prep, tmp_path / "one", 72, 25.4 / 8, True, workers=1)
    two = write_images(prep, tmp_path / "two", 72, 25.4 / 8, True, workers=2)
    per_sheet = TTS_COLS * TTS_ROWS - 1
    assert [p.name for p in two.tts_sheets] == [f"sheet-default-{n:02d}.jpg" for n in range(1, -(-160 // per_sheet) + 1)]
    for a, b in zip(one.cards + one.backs + one.tts_sheets, two.cards + two.backs + two.tts_sheets, strict=True):
        assert a.name == b.name and a.read_bytes() == b.read_bytes(), a.name
