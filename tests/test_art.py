"""Card art: normalised once into a content-hashed cache, embedded once per PDF, never upscaled."""

from __future__ import annotations

from PIL import Image
from pypdf import PdfReader

from pipeline.outputs.sheets import build_sheets
from pipeline.plan import BuildOptions
from pipeline.render.fonts import build_fonts, cache_dir
from pipeline.scaffold import scaffold


def _images(path):
    """Distinct image XObjects reachable from the PDF's pages (through forms)."""
    reader = PdfReader(path)
    found = {}

    def walk(resources):
        if resources is None:
            return
        for xobj in (resources.get_object().get("/XObject") or {}).values():
            obj = xobj.get_object()
            if obj.get("/Subtype") == "/Image":
                found[xobj.idnum] = (int(obj["/Width"]), int(obj["/Height"]), obj.get("/Filter"))
            elif obj.get("/Subtype") == "/Form":
                walk(obj.get("/Resources"))

    for page in reader.pages:
        walk(page.get("/Resources"))
    return found


def test_art_is_normalised_cached_and_embedded_once(tmp_path, monkeypatch):
    fonts = build_fonts()[0].parent
    (tmp_path / "cache" / "fonts").mkdir(parents=True)
    (tmp_path / "cache" / "fonts" / fonts.name).symlink_to(fonts)  # reuse the built fonts
    monkeypatch.setenv("CARDPRESS_CACHE", str(tmp_path / "cache"))  # an empty art cache
    game = scaffold(tmp_path / "g", "卡图")
    Image.new("RGB", (1800, 2520), (180, 40, 40)).save(game / "art" / "scout.png")          # big opaque PNG
    Image.new("RGB", (300, 420), (40, 40, 180)).save(game / "art" / "guardian.jpg")          # small JPEG
    rgba = Image.new("RGBA", (600, 840), (0, 0, 0, 0))
    rgba.paste((40, 180, 40, 255), (100, 100, 500, 740))
    rgba.save(game / "art" / "spark.png")                                                    # real transparency
    deck = game / "decks" / "starter.yaml"
    deck.write_text("name: t\ncards:\n  scout: 3\n  guardian: 1\n  spark: 1\n  insight: 1\n", encoding="utf-8")

    result = build_sheets(game, BuildOptions(papers=("a4",), out_dir=tmp_path / "out", deck=deck))
    images = _images(result.files[0].path)
    assert len(images) == 3  # scout printed 3 times, embedded once; insight has a placeholder
    sizes = sorted(images.values(), key=lambda v: v[0])
    # Art box 54 × 34 mm at 300 dpi = 638 × 402 px: the big PNG is reduced to it, the small JPEG
    # is cropped to the box's shape but never enlarged.
    assert (638, 402) in [(w, h) for w, h, _ in sizes]
    assert all(w <= 638 and h <= 402 for w, h, _ in sizes)
    filters = [str(f) for _, _, f in sizes]
    assert sum("/DCTDecode" in f for f in filters) == 2  # opaque art became JPEG

    # A second build reuses the cache: same files, no new ones.
    art_cache = cache_dir() / "art"
    before = set(art_cache.iterdir())
    assert len(before) == 3
    build_sheets(game, BuildOptions(papers=("a4",), out_dir=tmp_path / "out2", deck=deck))
    assert set(art_cache.iterdir()) == before
    # Changing the picture changes its cache key.
    Image.new("RGB", (1800, 2520), (10, 200, 10)).save(game / "art" / "scout.png")
    build_sheets(game, BuildOptions(papers=("a4",), out_dir=tmp_path / "out3", deck=deck))
    assert len(set(art_cache.iterdir()) - before) == 1


def test_unreadable_art_is_a_clear_error(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli.app import app

    game = scaffold(tmp_path / "g", "坏图")
    (game / "art" / "scout.png").write_bytes(b"not an image")
    result = CliRunner().invoke(app, ["build", str(game), "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "scout.png" in result.output and "cannot read image" in result.output
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_photo_turned_by_its_exif_orientation_is_printed_upright(tmp_path, monkeypatch):
    from pipeline.art import normalised_art

    monkeypatch.setenv("CARDPRESS_CACHE", str(tmp_path / "cache"))
    img = Image.new("RGB", (1200, 760), (200, 20, 20))
    img.paste((20, 20, 200), (600, 0, 1200, 760))  # left red, right blue as stored
    exif = Image.Exif()
    exif[0x0112] = 3  # "rotate 180° to display": shown, the left half is blue
    img.save(tmp_path / "photo.jpg", quality=95, exif=exif)
    out = normalised_art(tmp_path / "photo.jpg", 54.0, 34.0)
    with Image.open(out) as shown:
        left, right = shown.getpixel((10, shown.height // 2)), shown.getpixel((shown.width - 10, shown.height // 2))
    assert left[2] > 150 and left[0] < 80 and right[0] > 150 and right[2] < 80
