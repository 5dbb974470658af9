"""`cardpress deck GAME DECK`: a deck's shape printed and drawn (issue 12 §4)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest
import yaml
from PIL import Image
from typer.testing import CliRunner

from engine.cards import load_cards
from engine.data.stats import deck_stats
from engine.decks import read_deck
from engine.definitions import load_game
from pipeline.cli.app import app
from pipeline.render.charts import png_size

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()

#: (game, shipped deck, the fields whose spread the issue names for that game).
SHIPPED = [("backrooms", "meg-vanguard", ["cost"]), ("duel", "artillery", ["grade", "rank"]),
           ("ridm", "iron-wall", ["class", "charge"])]


def _expected(game_id: str, deck: str, field: str) -> tuple[Counter, Counter]:
    """Counts by type and by ``field``, from the deck file's own YAML and the card files."""
    entries = yaml.safe_load((ROOT / "card_data" / game_id / "decks" / f"{deck}.yaml").read_text("utf-8"))["cards"]
    cards = {}
    for file in (ROOT / "card_data" / game_id / "cards").glob("*.yaml"):
        for card in yaml.safe_load(file.read_text("utf-8")):
            cards[card["id"]] = card
    by_type, by_field = Counter(), Counter()
    for card_id, n in entries.items():
        by_type[cards[card_id]["type"]] += n
        if cards[card_id].get(field) is not None:
            by_field[cards[card_id][field]] += n
    return by_type, by_field


def _run(*args: str):
    return runner.invoke(app, list(args))


def _svg_texts(path: Path) -> list[str]:
    return ["".join(t.itertext()) for t in ET.parse(path).iter("{http://www.w3.org/2000/svg}text")]


@pytest.mark.parametrize("game_id,deck,fields", SHIPPED)
def test_stats_numbers_equal_counts_from_the_deck_file(game_id, deck, fields):
    game = load_game(game_id)
    stats = deck_stats(game, load_cards(game), read_deck(ROOT / "card_data" / game_id / "decks" / f"{deck}.yaml"))
    charts = {c.field: c for c in stats.charts}
    by_type, _ = _expected(game_id, deck, fields[0])
    assert {b.key: b.count for b in charts["type"].bars} == dict(by_type)
    assert stats.size == sum(by_type.values())
    for field in fields:
        _, by_field = _expected(game_id, deck, field)
        shown = {b.key: b.count for b in charts[field].bars if b.count}
        assert shown == dict(by_field), field
    # The shipped games' most telling field comes first after the types.
    assert stats.charts[1].field == fields[0]
    assert stats.legal and all(rule.ok for rule in stats.rules)


@pytest.mark.parametrize("game_id,deck,fields", SHIPPED)
def test_deck_command_prints_and_draws_the_numbers(tmp_path, game_id, deck, fields):
    result = _run("deck", game_id, deck, "--out", str(tmp_path))
    assert result.exit_code == 0, result.output
    game = load_game(game_id)
    by_type, by_field = _expected(game_id, deck, fields[0])
    type_line = next(line for line in result.output.splitlines() if line.startswith("卡牌类型："))
    for type_id, n in by_type.items():
        assert f"{game.card_types[type_id].name} {n}" in type_line
    # SVG: the numbers and the Chinese labels are text, with the font embedded.
    svg = tmp_path / f"deck-{deck}.svg"
    texts = _svg_texts(svg)
    assert "卡牌类型（%d 张）" % sum(by_type.values()) in texts
    for type_id, n in by_type.items():
        assert game.card_types[type_id].name in texts and str(n) in texts
    label = next(spec.label for ct in game.card_types.values() for fid, spec in ct.fields.items() if fid == fields[0])
    if all(isinstance(v, int) for v in by_field):  # a number field: its mean over the deck, too
        mean = sum(v * n for v, n in by_field.items()) / sum(by_field.values())
        assert f"{label}（{sum(by_field.values())} 张，平均 {mean:.1f}）" in texts
        assert f"{label}（平均 {mean:.1f}）：" in result.output
    else:
        assert f"{label}（{sum(by_field.values())} 张）" in texts
    for n in by_field.values():
        assert str(n) in texts
    assert "卡组张数：%d（要求 " % sum(by_type.values()) in "\n".join(texts)
    assert "@font-face" in svg.read_text("utf-8") and "font/woff2" in svg.read_text("utf-8")
    # PNG: decodes, the announced size, not blank.
    png = tmp_path / f"deck-{deck}.png"
    with Image.open(png) as image:
        image.load()
        stats = deck_stats(game, load_cards(game), read_deck(ROOT / "card_data" / game_id / "decks" / f"{deck}.yaml"))
        assert image.size == png_size(stats)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
        assert colours is not None and len(colours) > 50  # text, bars and background, not one flat fill
        background = max(colours)[1]
        inked = sum(n for n, c in colours if c != background)
        assert inked > 0.05 * image.size[0] * image.size[1]


def test_a_deck_that_breaks_the_rules_shows_a_cross_with_the_numbers(tmp_path):
    shipped = yaml.safe_load((ROOT / "card_data/backrooms/decks/meg-vanguard.yaml").read_text("utf-8"))
    cards = dict(shipped["cards"])
    game = load_game("backrooms")
    by_id = {c.id: c for c in load_cards(game)}
    outposts = [cid for cid in cards if by_id[cid].type == "outpost"]
    for cid in outposts:  # no outposts: 前哨 0, 6–10 required; the deck shrinks by as many
        del cards[cid]
    removed = sum(shipped["cards"][cid] for cid in outposts)
    bad = tmp_path / "no-outposts.yaml"
    bad.write_text(yaml.safe_dump({"name": "没有前哨", "cards": cards}, allow_unicode=True), "utf-8")
    result = _run("deck", "backrooms", str(bad), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "✗ 前哨：0（要求 6–10）" in result.output
    assert f"✓ 卡组张数：{53 - removed}（要求 40–60）" in result.output
    assert "breaks 1 rule(s)" in result.output
    assert "Traceback" not in result.output
    texts = "\n".join(_svg_texts(tmp_path / "out" / "deck-no-outposts.svg"))
    assert "前哨：0（要求 6–10）" in texts
    assert re.search(r"[✗✕×]", texts), "a broken rule is marked in the picture"
    assert "不合法（1 处）" in texts


def test_bad_deck_name_exits_1_naming_the_decks(tmp_path):
    result = _run("deck", "duel", "no-such-deck", "--out", str(tmp_path))
    assert result.exit_code == 1
    assert "no-such-deck: deck file not found" in result.output
    assert "artillery" in result.output and "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_a_malformed_deck_names_file_and_line_and_writes_nothing(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: 坏\ncards:\n  artillery-1: lots\n", "utf-8")
    out = tmp_path / "out"
    result = _run("deck", "duel", str(bad), "--out", str(out))
    assert result.exit_code == 1
    assert "bad.yaml, line 3" in result.output and "copies must be a whole number" in result.output
    assert not out.exists()


def test_help_has_examples():
    result = _run("deck", "--help")
    assert result.exit_code == 0
    assert "Example: cardpress deck backrooms meg-vanguard" in result.output
    assert "--out" in result.output and "DECK" in result.output


def test_a_fourth_game_gets_charts_from_its_fields(tmp_path):
    """A game cardpress has never seen (``cardpress new``): its int fields become histograms, the
    one most of its cards carry (费用, on both types) first."""
    assert _run("new", str(tmp_path / "g")).exit_code == 0
    result = _run("deck", str(tmp_path / "g"), "starter", "--out", str(tmp_path / "out"))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[1].startswith("卡牌类型：") and lines[2].startswith("费用（平均 ")
    assert any(line.startswith("生命（平均 ") for line in lines)
    assert any(t.startswith("费用（8 张，平均 ") for t in _svg_texts(tmp_path / "out" / "deck-starter.svg"))


def test_a_label_the_font_lacks_is_refused_and_nothing_is_written(tmp_path):
    shipped = yaml.safe_load((ROOT / "card_data/duel/decks/artillery.yaml").read_text("utf-8"))
    deck = tmp_path / "rare.yaml"
    deck.write_text(yaml.safe_dump({"name": "炮\U00020000", "cards": shipped["cards"]}, allow_unicode=True), "utf-8")
    out = tmp_path / "out"
    result = _run("deck", "duel", str(deck), "--out", str(out))
    assert result.exit_code == 1
    assert "rare.yaml" in result.output and "no glyph for '\U00020000'" in result.output and "deck name" in result.output
    assert not out.exists()


def _write_deck(tmp_path: Path, game_id: str, deck: str, change) -> Path:
    shipped = yaml.safe_load((ROOT / "card_data" / game_id / "decks" / f"{deck}.yaml").read_text("utf-8"))
    cards = dict(shipped["cards"])
    change(cards)
    path = tmp_path / f"{deck}-changed.yaml"
    path.write_text(yaml.safe_dump({"name": "改过的", "cards": cards}, allow_unicode=True), "utf-8")
    return path


def test_off_affiliation_cards_and_unknown_cards_are_crossed_with_their_numbers(tmp_path):
    def change(cards):
        cards["bntg-merchant"] = 2   # B.N.T.G. cards in an M.E.G. deck
        cards["argos-observer"] = 1
        cards["no-such-card"] = 1
    path = _write_deck(tmp_path, "backrooms", "meg-vanguard", change)
    result = _run("deck", "backrooms", str(path), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "✗ 从属：3 张不符（要求 M.E.G.、通用）" in result.output
    assert "✗ 卡牌存在：1 张未知：no-such-card（要求 全部）" in result.output
    assert "✓ 卡组张数：57（要求 40–60）" in result.output
    assert "breaks 3 rule(s)" in result.output  # check_deck's three problems, each under its rule


@pytest.mark.parametrize("game_id,deck,change", [
    ("backrooms", "meg-vanguard", lambda c: c.update({"bntg-merchant": 3, "level-0": 2})),
    ("backrooms", "bntg-caravan", lambda c: c.clear() or c.update({"bntg": 1})),
    ("duel", "swords", lambda c: c.update({next(iter(c)): 4})),
    ("ridm", "arts-barrage", lambda c: c.update({"ghost": 1})),
])
def test_every_problem_check_deck_finds_is_under_one_rule(tmp_path, game_id, deck, change):
    game = load_game(game_id)
    stats = deck_stats(game, load_cards(game), read_deck(_write_deck(tmp_path, game_id, deck, change)))
    assert stats.problems, "the changed deck breaks a rule"
    assert sum(len(rule.problems) for rule in stats.rules) == len(stats.problems)
    assert all(rule.label != "其他" for rule in stats.rules)


def test_pictures_go_to_dist_game_by_default(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _run("deck", "duel", "artillery")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "dist" / "duel").iterdir()) == ["deck-artillery.png", "deck-artillery.svg"]
    assert "pictures written: dist/duel/deck-artillery.svg, dist/duel/deck-artillery.png" in result.output


def test_check_ends_by_naming_the_command_that_draws_one_of_the_game_s_decks(tmp_path):
    result = _run("check", "ridm", "--no-render")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[-2].endswith("All good.")
    command = lines[-1].split(": ", 1)[1]
    assert command == "cardpress deck ridm arts-barrage"          # a real deck of the game
    drawn = _run(*command.split()[1:], "--out", str(tmp_path / "out"))
    assert drawn.exit_code == 0 and (tmp_path / "out" / "deck-arts-barrage.svg").is_file()


def test_check_of_a_game_without_decks_names_no_deck(tmp_path):
    import shutil

    assert _run("new", str(tmp_path / "g")).exit_code == 0
    shutil.rmtree(tmp_path / "g" / "decks")
    result = _run("check", str(tmp_path / "g"), "--no-render")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1].endswith("All good.") and "cardpress deck" not in result.output
