"""A deck's picture where a player meets it: the HTML rulebook's deck section (one inline SVG per
shipped deck) and the table page's setup (each player's chosen deck); `cardpress check` names
the command that draws one."""

from __future__ import annotations

import re

import pytest

from engine.cards import load_cards
from engine.data.stats import game_deck_stats
from engine.decks import deck_files
from engine.definitions import load_game
from table_browser import tofu_chars
from test_table_page import browser, phone, table  # noqa: F401 - the table page's fixtures

GAMES = ("backrooms", "duel", "ridm")


def _svgs(html: str) -> list[str]:
    return re.findall(r'<figure class="deck"[^>]*>(<svg.*?</svg>)', html, flags=re.S)


def _text(svg: str) -> str:
    from html import unescape

    return unescape("".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg)))


@pytest.mark.parametrize("game", GAMES)
def test_the_html_rulebook_draws_each_shipped_deck_with_its_count_and_chinese_type_labels(rulebook_htmls, game):
    html = rulebook_htmls[game].read_text(encoding="utf-8")
    definition = load_game(game)
    stats = game_deck_stats(definition, load_cards(definition))
    svgs = _svgs(html)
    assert len(svgs) == len(deck_files(definition)) == len(stats) >= 3
    for svg, s in zip(svgs, stats):
        text = _text(svg)
        assert s.deck.name in text and f"{s.size} 张" in text
        assert all(bar.label in text for bar in s.charts[0].bars)      # 卡牌类型: 主战者, 实体, 干员…
        assert any(re.search(r"[\u4e00-\u9fff]", bar.label) for bar in s.charts[0].bars)
        assert 'font-family="Cardpress Sans SC"' in svg and "style=" not in svg
        assert set(text) <= set(html.split("</style>", 1)[1])  # so the page's font subset holds it


def test_the_table_page_shows_a_player_s_chosen_deck_as_a_picture(browser, table):  # noqa: F811
    t = table("duel")
    page = phone(browser, t.url)
    page.click('.player[data-player="甲"] button.deck-button')
    svg = page.locator("#sheet-content svg")
    svg.wait_for(timeout=5000)
    text = svg.evaluate("s => Array.from(s.querySelectorAll('text'), t => t.textContent).join('')")
    assert "万剑归宗" in text and "40 张" in text and "主战者" in text   # deck swords: 40 cards
    assert page.locator("#sheet-title").inner_text() == "甲的卡组"
    assert tofu_chars(page) == ""


def _table_app(tmp_path, decks):
    from engine.live import LiveGame
    from engine.tracker import Store
    from pipeline.table.server import make_app
    from starlette.testclient import TestClient

    db = tmp_path / "games.sqlite"
    with Store(db) as store:
        gid = LiveGame.new(store, "duel", ("甲", "乙"), decks=decks).id
    return TestClient(make_app(db, gid), base_url="http://127.0.0.1")


def test_a_seat_without_a_deck_and_a_deck_the_font_cannot_draw_are_errors_the_page_shows(tmp_path):
    import yaml

    from engine.paths import card_data_root

    shipped = yaml.safe_load((card_data_root() / "duel/decks/artillery.yaml").read_text("utf-8"))
    rare = tmp_path / "rare.yaml"
    rare.write_text(yaml.safe_dump({"name": "炮\U00020000", "cards": shipped["cards"]}, allow_unicode=True), "utf-8")
    client = _table_app(tmp_path, {"甲": rare})
    bad = client.get("/api/deck/A.svg")
    assert bad.status_code == 500 and "字体中没有 '\U00020000' 的字形" in bad.json()["error"]
    none = client.get("/api/deck/B.svg")
    assert none.status_code == 404 and "没有卡组列表" in none.json()["error"]
    assert client.get("/api/deck/%3Csvg%3E.svg").status_code == 404
