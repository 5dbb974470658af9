"""Incremental builds (issue 12 §1): a rebuild after a one-card edit paints only that card, and
its PDFs print exactly what a full build prints."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from pypdf import PdfReader

from pipeline.outputs.sheets import build_sheets
from pipeline.plan import BuildOptions

CARD = "scout-hawk"


@pytest.fixture
def game(game_copy, tmp_path, monkeypatch):
    """A copy of duel with a cache of its own."""
    monkeypatch.setenv("CARDPRESS_CACHE_BUILDS", str(tmp_path / "builds"))
    return game_copy("duel")


def _options(out: Path, **kw) -> BuildOptions:
    return BuildOptions(out_dir=out, jobs=kw.pop("jobs", 2), **kw)


def _rename(game: Path, card: str, new_name: str) -> None:
    """Give ``card`` a new name in its card file (the designer's edit)."""
    for path in sorted((game / "cards").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if f"id: {card}" in text:
            text, n = re.subn(rf"(id: {card}\b[\s\S]*?name: )([^\n,}}]+)", rf"\g<1>{new_name}", text, count=1)
            assert n == 1
            path.write_text(text, encoding="utf-8")
            return
    raise AssertionError(f"{card} not found")


def _forms(pdf: Path) -> dict[str, bytes]:
    """Each face's and back's form XObject by name (decoded streams), from every page."""
    reader = PdfReader(pdf, strict=True)
    out = {}
    for page in reader.pages:
        xobjects = page["/Resources"].get("/XObject", {})
        for name, ref in xobjects.items():
            obj = ref.get_object()
            if obj.get("/Subtype") == "/Form":
                out[name] = obj.get_data()
    return out


def _text(pdf: Path) -> str:
    """The PDF's text as pdfium extracts it (through each font's ToUnicode map)."""
    doc = pdfium.PdfDocument(str(pdf))
    try:
        return "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    finally:
        doc.close()


def _strict_text(pdf: Path) -> str:
    """The text as pypdf extracts it in strict mode: a malformed font resource is an error."""
    return "\n".join(page.extract_text() for page in PdfReader(pdf, strict=True).pages)


def _pixels(pdf: Path) -> list[bytes]:
    doc = pdfium.PdfDocument(str(pdf))
    try:
        return [doc[i].render(scale=0.5).to_pil().tobytes() for i in range(len(doc))]
    finally:
        doc.close()


def _new_character(printed: str) -> str:
    from pipeline.render.fonts import register_fonts

    fonts = register_fonts()
    return next(ch for ch in "鑫淼犇焱垚骉" if ch not in printed and not fonts.missing(ch))


def _name_of(game: Path, card: str) -> str:
    from engine.check import check_game

    return check_game(game).cards[card].name


def test_rebuild_after_one_edit_paints_one_card_and_prints_like_a_full_build(game, tmp_path):
    first = build_sheets(game, _options(tmp_path / "first"))
    assert first.reused == 0 and first.painted == first.distinct + 1  # every face and the back
    again = build_sheets(game, _options(tmp_path / "again"))
    assert (again.painted, again.reused) == (0, first.painted)

    # A character new to the game's text: it gets a new code in the font's last subset.
    new_name = f"鹰眼斥候{_new_character(_text(tmp_path / 'first' / 'cards-a4.pdf'))}"
    _rename(game, CARD, new_name)
    edited = build_sheets(game, _options(tmp_path / "edited"))
    assert (edited.painted, edited.reused) == (1, first.painted - 1)

    fresh = build_sheets(game, _options(tmp_path / "fresh", cache=False))
    assert fresh.reused == 0
    for paper in ("a4", "letter"):
        before, after = _forms(tmp_path / "again" / f"cards-{paper}.pdf"), _forms(tmp_path / "edited" / f"cards-{paper}.pdf")
        assert before.keys() == after.keys()
        changed = [name for name in before if before[name] != after[name]]
        assert len(changed) == 1, changed  # only the edited card's form differs
        assert new_name in _strict_text(tmp_path / "edited" / f"cards-{paper}.pdf")
        # What the kept forms and the new one print is what a build from nothing prints.
        assert _pixels(tmp_path / "edited" / f"cards-{paper}.pdf") == _pixels(tmp_path / "fresh" / f"cards-{paper}.pdf")
        assert _text(tmp_path / "edited" / f"cards-{paper}.pdf") == _text(tmp_path / "fresh" / f"cards-{paper}.pdf")


def test_one_process_and_a_deck_build_reuse_the_same_forms(game, tmp_path):
    build_sheets(game, _options(tmp_path / "all"))
    deck = game / "decks" / "artillery.yaml"
    one = build_sheets(game, _options(tmp_path / "deck", jobs=1, deck=deck, papers=("letter",)))
    assert one.painted == 0 and one.reused == one.distinct + 1
    names = [line for line in _strict_text(tmp_path / "deck" / "cards-letter.pdf").splitlines() if line.strip()]
    assert names  # the text of kept forms reads back (fonts named as when painted)


def test_a_template_change_repaints_every_face(game, tmp_path):
    first = build_sheets(game, _options(tmp_path / "a"))
    style = game / "templates" / "style.yaml"
    assert style.is_file()
    style.write_text(style.read_text(encoding="utf-8") + "\n# a designer's note\n", encoding="utf-8")
    after = build_sheets(game, _options(tmp_path / "b"))
    assert after.reused == 0 and after.painted == first.painted


def test_new_art_bytes_repaint_only_the_cards_that_show_them(game, tmp_path):
    from PIL import Image

    from engine.check import check_game

    report = check_game(game)
    with_art = [c for c in report.cards.values() if c.art_path is not None and c.art_path.is_file()]
    if not with_art:
        art = game / "art"
        art.mkdir(exist_ok=True)
        Image.new("RGB", (300, 420), "#336699").save(art / "hawk.png")
        _set_field(game, CARD, "art", "hawk.png")
        users = [CARD]
    else:
        users = [c.id for c in with_art if c.art_path == with_art[0].art_path]
    first = build_sheets(game, _options(tmp_path / "a"))
    path = check_game(game).cards[users[0]].art_path
    Image.new("RGB", (300, 420), "#993366").save(path)
    after = build_sheets(game, _options(tmp_path / "b"))
    assert after.painted == len(users) and after.reused == first.painted - len(users)


def _set_field(game: Path, card: str, field: str, value: str) -> None:
    for path in sorted((game / "cards").glob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if f"id: {card}" in text:
            text = re.sub(rf"(id: {card}\b)", rf"\g<1>\n  {field}: {value}" if "\n  name:" in text else
                          rf"\g<1>, {field}: {value}", text, count=1)
            path.write_text(text, encoding="utf-8")
            return
    raise AssertionError(card)


def test_a_failed_build_leaves_the_cache_as_the_last_good_build_made_it(game, tmp_path):
    a4 = ("a4",)
    build_sheets(game, _options(tmp_path / "a", papers=a4))
    from engine.check import check_game
    from engine.errors import CardpressError

    # Two edits in one save: a character new to the PDFs' fonts on one card (its form, painted
    # with a code the kept encoding lacks, must not outlive the failed build), and another card
    # that cannot print.
    new = _new_character(_text(tmp_path / "a" / "cards-a4.pdf"))
    _rename(game, CARD, f"鹰眼斥候{new}")
    other = next(cid for cid in check_game(game).cards if cid != CARD)
    _rename(game, other, "补给车\U0001F600")  # a glyph the font lacks: found when painted
    with pytest.raises(CardpressError):
        build_sheets(game, _options(tmp_path / "b", papers=a4))
    _rename(game, other, "补给车")
    good = build_sheets(game, _options(tmp_path / "c", papers=a4))
    build_sheets(game, _options(tmp_path / "fresh", papers=a4, cache=False))
    text = _text(tmp_path / "c" / "cards-a4.pdf")
    assert f"鹰眼斥候{new}" in text and "补给车" in text
    assert text == _text(tmp_path / "fresh" / "cards-a4.pdf")
    assert _pixels(tmp_path / "c" / "cards-a4.pdf") == _pixels(tmp_path / "fresh" / "cards-a4.pdf")
    assert good.painted == 2


@pytest.mark.parametrize("damage", [b"", b"not a cache", b"\xe3" + b"\0" * 64])
def test_a_damaged_cache_means_a_full_build_not_an_error(game, tmp_path, damage):
    from pipeline import buildcache

    first = build_sheets(game, _options(tmp_path / "a", papers=("a4",)))
    files = list((tmp_path / "builds").glob("*.bin"))
    assert len(files) == 1
    files[0].write_bytes(damage)
    buildcache._LAST.clear()  # a new process: what is on disk is all there is
    again = build_sheets(game, _options(tmp_path / "b", papers=("a4",)))
    assert again.reused == 0 and again.painted == first.painted
    assert _text(tmp_path / "b" / "cards-a4.pdf") == _text(tmp_path / "a" / "cards-a4.pdf")


def test_the_cache_is_read_back_by_a_new_process(game, tmp_path):
    from pipeline import buildcache

    first = build_sheets(game, _options(tmp_path / "a"))
    buildcache._LAST.clear()
    again = build_sheets(game, replace(_options(tmp_path / "b"), jobs=1))
    assert again.painted == 0 and again.reused == first.painted
