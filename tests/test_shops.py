"""`cardpress export GAME --shop NAME`: the files each print shop's preset asks for, read back as the
shop's prepress check would (page boxes and order, colour spaces, OutputIntent, total ink, PNG sizes)."""

from __future__ import annotations

import io
import re
import struct

import numpy as np
import pypdf
import pytest
from PIL import Image, ImageCms
from typer.testing import CliRunner

from pipeline.cli.app import app
from pipeline.outputs.shops import shops
from pipeline.render.cmyk import limit_ink, to_cmyk, total_ink
from pipeline.scaffold import scaffold

PT_PER_IN = 72
#: Content-stream operators that set an RGB (or any non-CMYK) colour.
RGB_OPERATORS = {b"rg", b"RG", b"sc", b"SC", b"scn", b"SCN", b"cs", b"CS", b"g", b"G"}


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shop-game")
    return scaffold(folder / "g", "印厂")


@pytest.fixture(scope="module")
def deck_sequence(game):
    from pipeline.plan import prepare

    prep = prepare(game, game / "decks" / "starter.yaml", 3.175)
    return [card.id for card in prep.sequence]


@pytest.fixture(scope="module")
def dtc(game, tmp_path_factory):
    out = tmp_path_factory.mktemp("dtc")
    result = CliRunner().invoke(app, ["export", str(game), "--shop", "drivethrucards", "--deck",
                                      str(game / "decks" / "starter.yaml"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    pdfs = list((out / "drivethrucards").glob("*.pdf"))
    assert len(pdfs) == 1, pdfs
    return pdfs[0], result.output


def _images(page) -> list[pypdf.generic.IndirectObject]:
    xobjects = page["/Resources"]["/XObject"]
    return [xobjects.raw_get(name) for name in xobjects]  # the references: one object per distinct image


def _cmyk_pixels(xobject) -> np.ndarray:
    obj = xobject.get_object()
    assert obj["/ColorSpace"] == "/DeviceCMYK" and obj["/BitsPerComponent"] == 8
    return np.frombuffer(obj.get_data(), np.uint8).reshape(obj["/Height"], obj["/Width"], 4)


def test_drivethrucards_pdf_has_poker_bleed_pages_in_back_front_order(dtc, deck_sequence):
    path, output = dtc
    reader = pypdf.PdfReader(path)
    assert len(reader.pages) == 2 * len(deck_sequence)
    for page in reader.pages:
        # 2.75 × 3.75 in page (poker + 1/8 in bleed), the trim 1/8 in inside it.
        assert [float(v) for v in page.mediabox] == [0, 0, 2.75 * PT_PER_IN, 3.75 * PT_PER_IN]
        assert [float(v) for v in page.trimbox] == pytest.approx([9, 9, 2.625 * 72, 3.625 * 72])
        assert [float(v) for v in page.bleedbox] == [float(v) for v in page.mediabox]
        (image,) = _images(page)
        obj = image.get_object()
        # 300 dpi: 825 × 1125 pixels over the page.
        assert (obj["/Width"], obj["/Height"]) == (825, 1125)
    # Page order: back 1, front 1, back 2, front 2 … — every odd page shows the one back, every
    # even page the deck's next card (a card's copies show the same image, others differ).
    backs = {_images(page)[0].idnum for page in reader.pages[0::2]}
    fronts = [_images(page)[0].idnum for page in reader.pages[1::2]]
    assert len(backs) == 1 and not backs & set(fronts)
    by_card: dict[str, int] = {}
    for card_id, image in zip(deck_sequence, fronts):
        assert by_card.setdefault(card_id, image) == image
    assert len(set(by_card.values())) == len(set(deck_sequence))
    back = _cmyk_pixels(_images(reader.pages[0])[0])
    front = _cmyk_pixels(_images(reader.pages[1])[0])
    assert np.abs(back.astype(int) - front.astype(int)).mean() > 5  # two real, different drawings
    assert back.std() > 5 and front.std() > 5
    # The summary says what was written and the ink measured against the limit.
    assert "DriveThruCards: 1 file(s), 16 card sides" in output.replace(str(2 * len(deck_sequence)), "16")
    assert "825 × 1125 px at 300 dpi, CMYK, total ink ≤ 240 %" in output and "(limit 240 %)" in output


def test_drivethrucards_pdf_is_cmyk_only_with_an_output_intent_and_ink_under_240(dtc):
    path, _output = dtc
    data = path.read_bytes()
    assert data.startswith(b"%PDF-1.4")  # PDF/X-1a:2003 is PDF 1.4 at most
    assert b"DeviceRGB" not in data and b"/ICCBased" not in data
    reader = pypdf.PdfReader(path)
    for page in reader.pages:
        tokens = set(re.findall(rb"[A-Za-z]+", page.get_contents().get_data()))
        assert not tokens & RGB_OPERATORS, tokens & RGB_OPERATORS
        for image in _images(page):
            pixels = _cmyk_pixels(image)
            assert total_ink(pixels) <= 240, total_ink(pixels)
    (intent,) = reader.trailer["/Root"]["/OutputIntents"]
    intent = intent.get_object()
    assert intent["/S"] == "/GTS_PDFX"
    profile = intent["/DestOutputProfile"].get_object()
    assert profile["/N"] == 4
    icc = ImageCms.ImageCmsProfile(io.BytesIO(profile.get_data()))
    assert icc.profile.xcolor_space.strip() == "CMYK"
    info = reader.metadata
    assert info["/GTS_PDFXVersion"] == "PDF/X-1a:2003" and info["/Trapped"] == "/False"
    assert info["/Creator"].startswith("cardpress") and info["/Producer"].startswith("cardpress")
    assert "印厂" in info["/Title"] and "DriveThruCards" in info["/Title"]
    assert reader.trailer["/ID"]


def test_the_ink_limiter_caps_a_rich_black_and_keeps_its_black():
    patch = np.full((8, 8, 4), 255, np.uint8)  # C100 M100 Y100 K100: 400 %
    assert total_ink(patch) > 240  # what the measure says of an unlimited patch: the check can fail
    limited = limit_ink(patch, 240)
    assert total_ink(limited) <= 240
    assert (limited[..., 3] == 255).all()  # K kept; C, M, Y share the rest
    assert len(set(limited[0, 0, :3])) == 1
    designer = np.zeros((1, 1, 4), np.uint8) + np.array([153, 102, 102, 255], np.uint8)  # C60 M40 Y40 K100
    assert (limit_ink(designer, 240) == designer).all()  # already at 240 %: unchanged
    dark_blue = Image.new("RGB", (4, 4), (10, 10, 90))
    assert total_ink(np.asarray(to_cmyk(dark_blue, 120))) <= 120


def test_a_pdf_of_an_unlimited_rich_black_measures_over_the_limit(tmp_path):
    """The PDF-level measure in the tests above finds ink above the limit when it is there."""
    from pipeline.outputs.shops import shop, write_cmyk_pdf

    black = Image.fromarray(np.full((30, 40, 4), 255, np.uint8), "CMYK")
    path = write_cmyk_pdf(tmp_path / "black.pdf", {"b": black}, ["b"], shop("drivethrucards"), "black")
    (image,) = _images(pypdf.PdfReader(path).pages[0])
    assert total_ink(_cmyk_pixels(image)) == 400


def _png_chunks(path) -> list[bytes]:
    data = path.read_bytes()
    pos, kinds = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        kinds.append(kind)
        pos += 12 + length
    return kinds


def test_the_game_crafter_gets_one_825_by_1125_srgb_png_per_face_and_back(game, tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["export", str(game), "--shop", "TheGameCrafter", "--deck",
                                      str(game / "decks" / "starter.yaml"), "--out", str(out)])
    assert result.exit_code == 0, result.output
    files = sorted(p.name for p in (out / "thegamecrafter").iterdir())
    assert files == ["back-default.png", "guardian.png", "insight.png", "scout.png", "spark.png"]
    for name in files:
        path = out / "thegamecrafter" / name
        with Image.open(path) as im:
            assert im.size == (825, 1125) and im.mode == "RGB"
            assert round(im.info["dpi"][0]) == 300
        kinds = _png_chunks(path)
        assert b"sRGB" in kinds and kinds.index(b"sRGB") < kinds.index(b"IDAT")
    with Image.open(out / "thegamecrafter" / "scout.png") as im:
        pixels = np.asarray(im.convert("L"), dtype=float)
    assert pixels.std() > 10 and pixels[0].mean() < 200  # a drawn card whose bleed is drawn too


@pytest.mark.parametrize("name", ["makeplayingcards", "printerstudio", "printplaygames"])
def test_a_shop_whose_spec_was_not_found_is_refused_not_guessed(game, tmp_path, name):
    result = CliRunner().invoke(app, ["export", str(game), "--shop", name, "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert f"{name}.yaml" in result.output and "could not be found" in result.output
    assert not (tmp_path / "o").exists()


def test_an_unknown_shop_and_a_card_size_the_shop_does_not_take_are_refused(game, tmp_path):
    result = CliRunner().invoke(app, ["export", str(game), "--shop", "kinkos", "--out", str(tmp_path / "o")])
    assert result.exit_code == 1 and "drivethrucards" in result.output and "thegamecrafter" in result.output
    big = scaffold(tmp_path / "big", "大牌")
    definition = big / "game.yaml"
    definition.write_text(definition.read_text(encoding="utf-8").replace(
        "card_size: {width_mm: 63, height_mm: 88}", "card_size: {width_mm: 70, height_mm: 120}"), encoding="utf-8")
    result = CliRunner().invoke(app, ["export", str(big), "--shop", "drivethrucards", "--out", str(tmp_path / "o")])
    assert result.exit_code == 1
    assert "70 × 120 mm" in result.output and "63.5 × 88.9 mm" in result.output
    assert not (tmp_path / "o").exists()
    # A card type of its own size is refused too, by name (not printed on the shop's poker page).
    mixed = scaffold(tmp_path / "mixed", "混合")
    definition = mixed / "game.yaml"
    definition.write_text(definition.read_text(encoding="utf-8").replace(
        "  spell:\n    name: 法术\n", "  spell:\n    name: 法术\n    card_size: tarot\n"), encoding="utf-8")
    result = CliRunner().invoke(app, ["export", str(mixed), "--shop", "drivethrucards", "--out", str(tmp_path / "m")])
    assert result.exit_code == 1, result.output
    assert "法术" in result.output and "70 × 120 mm" in result.output
    assert not (tmp_path / "m").exists()


def test_every_preset_names_its_source_and_the_found_ones_their_numbers():
    every = shops()
    assert set(every) == {"drivethrucards", "thegamecrafter", "makeplayingcards", "printerstudio", "printplaygames"}
    for preset in every.values():
        assert preset.source and preset.path.read_text(encoding="utf-8").count("#") >= 3
    dtc, tgc = every["drivethrucards"], every["thegamecrafter"]
    assert dtc.page_px == (825, 1125) and dtc.ink_limit == 240 and dtc.pages == "back-front"
    assert tgc.page_px == (825, 1125) and tgc.output == "png"


def test_the_shipped_cmyk_profile_is_what_its_generator_builds_and_round_trips_colours():
    """The profile in the repository is reproducible from pipeline/render/cmyk.py, and sRGB →
    CMYK → sRGB through it comes back close (a grid of random colours, 8-bit)."""
    from pipeline.render.cmyk import CMYK_PROFILE, SRGB_PROFILE, build_cmyk_profile

    assert build_cmyk_profile() == CMYK_PROFILE.read_bytes()
    pixels = np.random.default_rng(1).integers(0, 256, (16, 16, 3), dtype=np.uint8)
    cmyk = to_cmyk(Image.fromarray(pixels, "RGB"), 400)
    back = ImageCms.applyTransform(cmyk, ImageCms.buildTransform(
        ImageCms.getOpenProfile(str(CMYK_PROFILE)), ImageCms.getOpenProfile(str(SRGB_PROFILE)), "CMYK", "RGB"))
    diff = np.abs(np.asarray(back, dtype=int) - pixels.astype(int))
    assert diff.mean() < 3 and diff.max() < 32
    white, black = (np.asarray(to_cmyk(Image.new("RGB", (1, 1), c), 240))[0, 0] for c in ("white", "black"))
    assert (white == 0).all() and tuple(black) == (0, 0, 0, 255)  # paper is no ink; black is K only
