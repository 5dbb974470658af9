"""Tabletop Simulator decks (issue 10 §1): one sheet set per back design, and the Saved Object JSON
a TTS user imports. Read as TTS would: the sheet images cut into the JSON's NumWidth × NumHeight
grid, each cell identified by its pixels against the card images, the hidden (last) cell the back."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote, urlparse

import numpy as np
import pytest
from PIL import Image
from typer.testing import CliRunner

from engine.cards import Card
from pipeline.cli.app import app

DPI = 72
BLEED_PX = round(25.4 / 8 / 25.4 * DPI)


def _path(url: str) -> Path:
    assert url.startswith("file:///"), url
    return Path(unquote(urlparse(url).path))


def _run(out: Path, *extra: str) -> str:
    result = CliRunner().invoke(app, ["images", "backrooms", "--dpi", str(DPI), "--out", str(out), *extra])
    assert result.exit_code == 0, result.output
    assert "Tabletop Simulator" in result.output and ".json" in result.output
    return result.output


def _cells(sheet: Path, grid: tuple[int, int]) -> list[np.ndarray]:
    with Image.open(sheet) as im:
        assert im.width <= 4096 and im.height <= 4096
        assert im.width % grid[0] == 0 and im.height % grid[1] == 0, (im.size, grid)  # the grid cuts it exactly
        w, h = im.width // grid[0], im.height // grid[1]
        assert abs(w / h - 63 / 88) < 0.01  # a poker card per cell: NumWidth × NumHeight is the drawn grid
        px = np.asarray(im.convert("RGB"), dtype=np.float32)
    return [px[r * h:(r + 1) * h, c * w:(c + 1) * w] for r in range(grid[1]) for c in range(grid[0])]


def _reference(png: Path, size: tuple[int, int]) -> np.ndarray:
    """What TTS should show for a card: its image with the bleed cut off, at the cell's size."""
    with Image.open(png) as im:
        box = (BLEED_PX, BLEED_PX, im.width - BLEED_PX, im.height - BLEED_PX)
        return np.asarray(im.convert("RGB").resize(size, Image.LANCZOS, box=box), dtype=np.float32)


@pytest.fixture(scope="module")
def whole_game(tmp_path_factory):
    out = tmp_path_factory.mktemp("tts") / "out"
    output = _run(out)
    return out, json.loads((out / "tts" / "backrooms.json").read_text(encoding="utf-8")), output


def test_one_sheet_set_per_back_design_each_cell_its_card_and_the_hidden_cell_its_back(whole_game):
    out, saved, _output = whole_game
    from pipeline.plan import prepare

    prep = prepare("backrooms", None, 25.4 / 8)
    back_of = {card.id: prep.back_of(card) for card in prep.distinct}
    assert sorted(set(back_of.values())) == ["default", "level", "outpost"]
    assert sorted(p.name for p in (out / "tts").glob("sheet-*.jpg")) == [
        "sheet-default-01.jpg", "sheet-level-01.jpg", "sheet-outpost-01.jpg"]
    decks = saved["ObjectStates"]
    assert [d["Name"] for d in decks] == ["DeckCustom"] * 3
    size = None
    refs: dict[str, np.ndarray] = {}
    for deck in decks:
        (key, custom), = deck["CustomDeck"].items()
        grid = (custom["NumWidth"], custom["NumHeight"])
        assert grid == (10, 7) and custom["UniqueBack"] is False
        cells = _cells(_path(custom["FaceURL"]), grid)
        size = (cells[0].shape[1], cells[0].shape[0])
        if not refs:
            refs = {cid: _reference(out / "images" / f"{cid}.png", size) for cid in back_of}
        back = _path(custom["BackURL"]).stem.removeprefix("back-")
        assert _path(custom["FaceURL"]).name == f"sheet-{back}-01.jpg"
        ids = list(refs)
        stack = np.stack([refs[cid] for cid in ids])
        on_sheet = []
        for card in deck["ContainedObjects"]:
            index = card["CardID"] - int(key) * 100
            diffs = np.abs(stack - cells[index]).mean(axis=(1, 2, 3))
            best = ids[int(diffs.argmin())]
            # The cell is that card (measured ≤ 3.3: text anti-aliased at the cell's size, JPEG) and
            # clearly no other (the closest other face is ≥ 3.1 further off).
            assert diffs.min() < 5, (card["Nickname"], diffs.min())
            assert sorted(diffs)[1] > diffs.min() + 1.5, card["Nickname"]
            assert prep.cards[best].name == card["Nickname"]  # the JSON names the card the cell shows
            on_sheet.append(best)
        # Every card of this back is on its sheet, none of another back.
        assert sorted(on_sheet) == sorted(cid for cid, b in back_of.items() if b == back)
        # Cells after the cards are empty; the last cell is what TTS shows for a hidden card: the back.
        assert cells[len(on_sheet)].mean() > 250 and cells[-2].mean() > 250
        hidden = _reference(out / "images" / f"back-{back}.png", size)
        assert np.abs(cells[-1] - hidden).mean() < 4
        with Image.open(_path(custom["BackURL"])) as im:
            assert im.size == size  # the back image is one cell


def test_the_saved_object_json_names_cards_and_ids_as_tts_reads_them(whole_game):
    out, saved, output = whole_game
    from pipeline.plan import prepare

    prep = prepare("backrooms", None, 25.4 / 8)
    assert str(out / "tts") in output and "backrooms.json" in output
    for field in ("SaveName", "Date", "LuaScript", "XmlUI"):
        assert saved[field] == ""  # a Saved Object, not a whole save
    keys = []
    for deck in saved["ObjectStates"]:
        keys += list(deck["CustomDeck"])
        cards = deck["ContainedObjects"]
        assert deck["DeckIDs"] == [c["CardID"] for c in cards]
        assert len(deck["DeckIDs"]) == len(cards) and len(set(deck["DeckIDs"])) == len(cards)
        for c in cards:
            assert c["Name"] == "Card" and set(c["CustomDeck"]) == {str(c["CardID"] // 100)}
            assert c["CustomDeck"][str(c["CardID"] // 100)] == deck["CustomDeck"][str(c["CardID"] // 100)]
        assert deck["Transform"]["rotZ"] == 180  # face down, as a deck is put on the table
    assert keys == ["1", "2", "3"]  # sheet keys unique across the object
    assert sum(len(d["DeckIDs"]) for d in saved["ObjectStates"]) == len(prep.sequence) == 70
    names = sorted(c["Nickname"] for d in saved["ObjectStates"] for c in d["ContainedObjects"])
    assert names == sorted(card.name for card in prep.sequence)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in "".join(names))  # Chinese names, unescaped in the file
    assert "层级" in (out / "tts" / "backrooms.json").read_text(encoding="utf-8")
    assert {d["Nickname"] for d in saved["ObjectStates"]} >= {"后室TCG: 层级", "后室TCG: 前哨"}


def test_a_chosen_deck_repeats_its_copies_and_counts_its_size(tmp_path):
    from pipeline.plan import prepare

    _run(tmp_path / "out", "--deck", "meg-vanguard")
    saved = json.loads((tmp_path / "out" / "tts" / "backrooms-meg-vanguard.json").read_text(encoding="utf-8"))
    prep = prepare("backrooms", Path("meg-vanguard"), 25.4 / 8)
    decks = saved["ObjectStates"]
    total = 0
    for deck in decks:
        objects = deck["ContainedObjects"] if deck["Name"] == "DeckCustom" else [deck]
        ids = deck["DeckIDs"] if deck["Name"] == "DeckCustom" else [deck["CardID"]]
        total += len(ids)
        back = _path(next(iter(deck["CustomDeck"].values()))["BackURL"]).stem.removeprefix("back-")
        want = [c.name for c in prep.sequence if prep.back_of(c) == back]
        assert [o["Nickname"] for o in objects] == want  # print order, copies repeated
    assert total == len(prep.sequence) and total >= 40  # DeckIDs = the deck's size


def _cards(n: int, type_: str) -> list[Card]:
    return [Card(f"{type_}-{i}", type_, f"卡{type_}{i}", {}) for i in range(n)]


def test_more_than_69_cards_of_a_back_take_several_sheets_of_one_deck_and_a_lone_card_is_a_card(tmp_path):
    from pipeline.outputs.tts import PER_SHEET, plan_decks, saved_object

    assert PER_SHEET == 69  # 10 × 7, the last cell the hidden card
    cards = _cards(150, "a") + _cards(1, "b")
    decks = plan_decks(cards, lambda c: "main" if c.type == "a" else "solo", tmp_path)
    assert [[s.path.name for s in d.sheets] for d in decks] == [
        ["sheet-main-01.jpg", "sheet-main-02.jpg", "sheet-main-03.jpg"], ["sheet-solo-01.jpg"]]
    assert [len(s.cards) for s in decks[0].sheets] == [69, 69, 12]
    saved = saved_object(decks, lambda d: d.back, url=lambda p: p.name)
    main, solo = saved["ObjectStates"]
    assert main["Name"] == "DeckCustom" and list(main["CustomDeck"]) == ["1", "2", "3"]
    assert main["DeckIDs"][:2] == [100, 101] and main["DeckIDs"][69] == 200 and main["DeckIDs"][-1] == 311
    assert main["CustomDeck"]["2"]["FaceURL"] == "sheet-main-02.jpg"
    assert solo["Name"] == "Card" and solo["CardID"] == 400 and solo["Nickname"] == "卡b0"
    assert list(solo["CustomDeck"]) == ["4"]
    json.dumps(saved)


@pytest.mark.parametrize("dpi", [72, 300, 1200])
def test_sheets_stay_within_tts_4096_px_at_any_resolution(dpi):
    from pipeline.outputs.images import tts_cell
    from pipeline.outputs.tts import TTS_COLS, TTS_ROWS

    for w, h in ((63, 88), (70, 120), (70, 70), (88, 63)):
        cw, ch = tts_cell((w, h), dpi)
        assert cw * TTS_COLS <= 4096 and ch * TTS_ROWS <= 4096
        assert abs(cw / ch - w / h) < 0.01


def test_no_tts_writes_no_tts_folder(tmp_path):
    game = tmp_path / "g"
    from pipeline.scaffold import scaffold

    scaffold(game, "无TTS")
    result = CliRunner().invoke(app, ["images", str(game), "--dpi", "72", "--no-tts", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "out" / "tts").exists() and "Tabletop Simulator" not in result.output
