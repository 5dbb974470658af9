"""``cardpress preview``: one card as it prints, the same pixels as its image from a full run."""

from __future__ import annotations

import io
import math

import numpy as np
import pytest
from PIL import Image

from engine.errors import DataError
from pipeline.plan import prepare
from pipeline.outputs.images import write_images
from pipeline.outputs.preview import PreviewError, preview_png

BLEED = 25.4 / 8
DPI = 100


@pytest.fixture(scope="module")
def ridm_images(tmp_path_factory):
    out = tmp_path_factory.mktemp("ridm-images")
    return write_images(prepare("ridm", bleed_mm=BLEED, jobs=1), out, DPI, BLEED, tts=False, workers=1)


def _pixels(png: bytes | str) -> np.ndarray:
    with Image.open(io.BytesIO(png) if isinstance(png, bytes) else png) as im:
        return np.asarray(im.convert("RGB"))


@pytest.mark.parametrize("index", [0, 7, 21, 40])
def test_a_preview_is_the_card_as_a_full_run_prints_it(ridm_images, index):
    image = ridm_images.cards[index]
    shown = preview_png("ridm", image.stem, dpi=DPI, bleed_mm=BLEED)
    assert np.array_equal(_pixels(shown), _pixels(str(image))), image.stem
    with Image.open(io.BytesIO(shown)) as im:
        assert round(im.info["dpi"][0]) == DPI


def test_a_back_preview_is_the_back_image(ridm_images):
    back = ridm_images.backs[0]
    card = ridm_images.cards[0].stem
    shown = preview_png("ridm", card, back=True, dpi=DPI, bleed_mm=BLEED)
    names = {p.name for p in ridm_images.backs}
    assert any(np.array_equal(_pixels(shown), _pixels(str(p))) for p in ridm_images.backs), names
    assert back.is_file()


def test_an_unknown_card_suggests_the_nearest_ids(ridm_images):
    near = ridm_images.cards[0].stem
    with pytest.raises(PreviewError, match=f"no card '{near}x'.*did you mean {near}"):
        preview_png("ridm", near + "x")


def test_a_game_that_does_not_check_is_refused(game_copy):
    folder = game_copy("duel")
    spec = folder / "game.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("max_copies:", "max_copies: -5\n  x_copies:", 1),
                    encoding="utf-8")
    with pytest.raises(DataError):
        preview_png(folder, "anything")


def test_the_preview_command_writes_the_png_and_refuses_an_unknown_card(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli.app import app

    target = tmp_path / "p.png"
    result = CliRunner().invoke(app, ["preview", "duel", "scout-hawk", "--png", str(target), "--dpi", "72"])
    assert result.exit_code == 0, result.output
    with Image.open(target) as im:
        assert im.size == (math.ceil((63 + 6) / 25.4 * 72), math.ceil((88 + 6) / 25.4 * 72))  # pdfium rounds up
    result = CliRunner().invoke(app, ["preview", "duel", "scout-hawkk", "--png", str(tmp_path / "q.png")])
    assert result.exit_code == 1 and "did you mean scout-hawk" in result.output
    assert not (tmp_path / "q.png").exists()
