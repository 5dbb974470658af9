"""The table page in a real browser: phones at 390 × 844 with touch, against `cardpress table`."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from engine.paths import card_data_root
from engine.tracker import Store
from engine.live import LiveGame
from table_browser import ARTIFACTS, CHROMIUM, FONTS_CONF, PHONE, Table, commands_logged, entries, seq_of, tofu_chars

DECKS = {"backrooms": ("argos-watchers", "meg-vanguard"), "duel": ("swords", "artillery"),
         "ridm": ("vanguard-assault", "iron-wall")}


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"no browser at {CHROMIUM}: .ci/run installs Debian's chromium"
    folder = tmp_path_factory.mktemp("fontconfig")
    conf = folder / "fonts.conf"
    conf.write_text(FONTS_CONF.format(cache=folder / "cache"), encoding="utf-8")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"],
                                     env={**os.environ, "FONTCONFIG_FILE": str(conf)})
        yield chromium
        chromium.close()


def start_game(tmp_path: Path, game: str = "duel", players=("甲", "乙")) -> tuple[Path, str]:
    db = tmp_path / "games.sqlite"
    decks = {name: card_data_root() / game / "decks" / f"{deck}.yaml" for name, deck in zip(players, DECKS[game])}
    with Store(db) as store:
        return db, LiveGame.new(store, game, players, decks=decks).id


@pytest.fixture
def table(tmp_path):
    made: list[Table] = []

    def run(game: str = "duel", players=("甲", "乙"), args=()) -> Table:
        db, gid = start_game(tmp_path, game, players)
        t = Table(db, gid, list(args)).start()
        made.append(t)
        return t

    yield run
    for t in made:
        t.stop()


def phone(browser, url: str, **extra):
    context = browser.new_context(**PHONE, **extra)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(".player")
    page.wait_for_function("() => Number(document.body.dataset.seq) >= 0")
    return page


def wait_seq(page, seq: int, timeout_ms: float = 1000) -> None:
    page.wait_for_function(f"() => Number(document.body.dataset.seq) >= {seq}", timeout=timeout_ms)


def phase(page) -> str:
    return page.locator("#phases li.now").inner_text()


def test_a_tap_on_one_phone_shows_on_the_other_within_a_second_and_undo_undoes_on_both(browser, table):
    t = table()
    a, b = phone(browser, t.url), phone(browser, t.url)
    start = seq_of(a)
    before = phase(b)
    a.click("#next")
    began = time.monotonic()
    wait_seq(b, start + 1, timeout_ms=1000)
    assert time.monotonic() - began < 1.0
    assert phase(b) != before and phase(b) == phase(a)
    b.click("#undo")
    wait_seq(a, start + 2)
    assert phase(a) == before and phase(b) == before
    assert commands_logged(t.db, t.game_id)[-2:] == ["next", "undo"]


def test_two_phones_tapping_fifty_times_each_store_exactly_one_hundred_commands(browser, table):
    t = table()
    a, b = phone(browser, t.url), phone(browser, t.url)
    start = entries(t.db, t.game_id)
    for _ in range(50):        # interleaved, without waiting for answers: both queues race
        a.locator("#next").click(no_wait_after=True)
        b.locator("#next").click(no_wait_after=True)
    for page in (a, b):
        page.wait_for_function("() => !document.getElementById('conn').textContent.includes('待发送')", timeout=30000)
    wait_seq(a, start + 100, timeout_ms=5000)
    wait_seq(b, start + 100, timeout_ms=5000)
    logged = commands_logged(t.db, t.game_id)
    assert len(logged) == start + 100 and logged[start:] == ["next"] * 100
    assert seq_of(a) == seq_of(b) == start + 100


def test_a_phone_offline_queues_its_taps_and_each_applies_once_when_it_is_back(browser, table):
    t = table()
    a, b = phone(browser, t.url), phone(browser, t.url)
    start = entries(t.db, t.game_id)
    b.context.set_offline(True)
    for _ in range(3):
        b.click("#next")
    b.wait_for_function("() => document.getElementById('conn').textContent.includes('待发送 3')")
    time.sleep(0.5)
    assert entries(t.db, t.game_id) == start and seq_of(a) == start
    b.context.set_offline(False)
    b.wait_for_function("() => !document.getElementById('conn').textContent.includes('待发送')", timeout=10000)
    wait_seq(a, start + 3, timeout_ms=3000)
    time.sleep(1.5)                              # a retry would land here if it were doubled
    assert entries(t.db, t.game_id) == start + 3


def test_taps_queued_across_a_reload_apply_once(browser, table):
    t = table()
    b = phone(browser, t.url)
    start = entries(t.db, t.game_id)
    b.context.set_offline(True)
    b.click("#next")
    b.click("#next")
    b.context.set_offline(False)
    b.reload()                                    # the queue is kept in the phone's storage
    b.wait_for_selector(".player")
    b.wait_for_function("() => !document.getElementById('conn').textContent.includes('待发送')", timeout=10000)
    wait_seq(b, start + 2, timeout_ms=3000)
    time.sleep(1.0)
    assert entries(t.db, t.game_id) == start + 2


def test_the_server_killed_and_restarted_the_page_recovers_with_the_same_board(browser, table):
    t = table()
    a = phone(browser, t.url)
    a.click("#next")
    wait_seq(a, 2)
    board_before = a.locator("#players").inner_text()
    seq = seq_of(a)
    t.kill()
    a.wait_for_function("() => document.getElementById('conn').textContent.includes('离线')", timeout=10000)
    a.click("#next")                              # made while the server is down: queued
    assert entries(t.db, t.game_id) == seq
    t.start()                                     # same store, same port
    a.wait_for_function("() => document.getElementById('conn').textContent.startsWith('已连接')"
                        " && !document.getElementById('conn').textContent.includes('待发送')", timeout=15000)
    wait_seq(a, seq + 1, timeout_ms=5000)
    assert entries(t.db, t.game_id) == seq + 1
    assert commands_logged(t.db, t.game_id)[-1] == "next"
    a.reload()
    a.wait_for_selector(".player")
    wait_seq(a, seq + 1)
    assert a.locator("#players").inner_text() != "" and board_before.split("\n")[0] in a.locator("#players").inner_text()


def test_lan_mode_refuses_a_request_without_the_join_token(browser, table):
    t = table(args=["--lan"])
    assert "?t=" in t.url
    bare = f"http://127.0.0.1:{t.port}"
    for path in ("/", "/api/board", "/api/forms", "/static/app.js", "/api/cards?q=%E5%89%91"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(bare + path, timeout=5)
        assert refused.value.code == 403, path
    token = t.url.split("?t=")[1]
    with pytest.raises(urllib.error.HTTPError) as wrong:
        urllib.request.urlopen(f"{bare}/api/board?t={token[:-1]}x", timeout=5)
    assert wrong.value.code == 403
    page = phone(browser, f"{bare}/?t={token}")         # the QR code's link: the cookie carries it on
    page.click("#next")
    wait_seq(page, 2)


def test_names_and_card_text_are_text_never_markup(browser, table):
    t = table(players=('<img src=x onerror="window.__owned=1">', "<script>window.__owned=2</script>"))
    page = phone(browser, t.url)
    names = page.locator(".player h3").all_inner_texts()
    assert names[0].startswith('<img src=x onerror="window.__owned=1">') and names[1].startswith("<script>")
    assert page.evaluate("() => window.__owned") is None
    assert page.locator("#players img").count() == 0


def test_a_command_from_its_form_and_a_piece_tapped_to_act_on_it(browser, table):
    t = table()
    page = phone(browser, t.url)
    page.click("nav.tabs button[data-tab=actions]")
    page.click("#commands button[data-command=descend]")
    page.fill("#sheet-content [data-param=card] input", "迫击炮")      # 乙's card: not in 甲's deck list
    page.wait_for_timeout(600)
    assert page.locator("#sheet-content .results button").count() == 0
    page.fill("#sheet-content [data-param=card] input", "青锋")
    page.click("#sheet-content .results button >> text=青锋剑客")
    page.click("[data-go=descend]")
    page.click("nav.tabs button[data-tab=board]")
    piece = page.locator(".piece[data-piece=A1]")
    piece.wait_for(timeout=3000)
    assert "青锋剑客" in piece.inner_text() and "战备" in piece.inner_text()
    piece.click()                                        # the piece's own commands, it filled in
    page.click("#sheet-content button[data-command=stance]")
    page.click("#sheet-content [data-param=stance] button >> text=守卫")
    page.click("[data-go=stance]")
    page.wait_for_function("() => document.querySelector('.piece[data-piece=A1]').innerText.includes('守卫')", timeout=3000)
    assert commands_logged(t.db, t.game_id)[-2:] == ["descend", "stance"]


def test_a_refused_command_says_why_and_changes_nothing(browser, table):
    t = table()
    page = phone(browser, t.url)
    before = entries(t.db, t.game_id)
    page.click("nav.tabs button[data-tab=actions]")
    page.click("#commands button[data-command=attack]")
    page.click("[data-go=attack]")                       # nothing chosen: the form says what is missing
    assert "还需填写" in page.locator("#toast").inner_text()
    assert entries(t.db, t.game_id) == before


def test_card_lookup_shows_the_printed_face_sharp_on_a_2x_screen_and_its_text(browser, table):
    t = table()
    page = phone(browser, t.url)
    page.click("nav.tabs button[data-tab=lookup]")
    page.fill("#lookup-box", "青锋")
    image = page.locator("#lookup-cards img").first
    image.wait_for(timeout=5000)
    page.wait_for_function("() => { const i = document.querySelector('#lookup-cards img'); return i && i.complete && i.naturalWidth > 0; }",
                           timeout=10000)
    natural, shown = image.evaluate("i => [i.naturalWidth, i.getBoundingClientRect().width]")
    assert natural >= 2 * shown - 1 and shown >= 200        # ≥ 2 image pixels per CSS pixel
    assert "青锋剑客" in page.locator("#lookup-cards").inner_text()
    page.fill("#lookup-box", "湮灭")
    page.wait_for_function("() => document.getElementById('lookup-rules').innerText.includes('湮灭')", timeout=5000)


def test_every_control_is_at_least_44px_nothing_overflows_and_no_request_leaves_the_origin(browser, table):
    t = table()
    requests: list[str] = []
    context = browser.new_context(**PHONE)
    context.on("request", lambda r: requests.append(r.url))
    page = context.new_page()
    page.goto(t.url)
    page.wait_for_selector(".player")
    small = """() => Array.from(document.querySelectorAll('button, input, [role=tab]'))
        .filter((e) => e.offsetParent !== null)
        .map((e) => [e.textContent.trim() || e.getAttribute('aria-label') || e.id, e.getBoundingClientRect()])
        .filter(([, r]) => r.width < 44 || r.height < 44).map(([n, r]) => n + ' ' + r.width + 'x' + r.height)"""
    overflow = """() => [document.documentElement.scrollWidth,
        Array.from(document.querySelectorAll('body *')).filter((e) => e.offsetParent !== null &&
          (e.getBoundingClientRect().right > innerWidth + 0.5 || e.scrollWidth > e.clientWidth + 1 &&
           getComputedStyle(e).overflowX === 'visible' && e.clientWidth > 0)).map((e) => e.tagName + '.' + e.className)]"""
    for tab in ("board", "actions", "log", "lookup"):
        page.click(f"nav.tabs button[data-tab={tab}]")
        page.wait_for_timeout(300)
        assert page.evaluate(small) == [], tab
        width, spilled = page.evaluate(overflow)
        assert width <= 390 and spilled == [], (tab, spilled)
    page.click("nav.tabs button[data-tab=actions]")
    for command in ("move", "boost", "descend"):              # forms with every kind of control
        page.click(f"#commands button[data-command={command}]")
        assert page.evaluate(small) == [], command
        assert page.evaluate(overflow)[1] == [], command
        page.click("#sheet-close")
    for width, height in ((820, 1180), (1280, 800)):               # a tablet, a laptop
        page.set_viewport_size({"width": width, "height": height})
        page.click("nav.tabs button[data-tab=board]")
        page.wait_for_timeout(200)
        doc_width, spilled = page.evaluate(overflow)
        assert doc_width <= width and spilled == [], (width, spilled)
    assert requests and all(u.startswith(t.origin + "/") or u.startswith("data:") for u in requests), requests


@pytest.mark.parametrize("game", ["backrooms", "duel", "ridm"])
def test_each_game_s_page_at_390x844_shows_no_missing_glyph(browser, table, game):
    t = table(game)
    page = phone(browser, t.url)
    page.wait_for_timeout(500)
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"table-{game}.png"))
    assert tofu_chars(page) == ""
    for tab in ("actions", "log", "lookup"):
        page.click(f"nav.tabs button[data-tab={tab}]")
        page.wait_for_timeout(400)
        assert tofu_chars(page) == "", tab


def test_text_typed_during_play_gets_its_glyphs_from_an_extra_subset(browser, table):
    t = table()
    page = phone(browser, t.url)
    with Store(t.db) as store:                          # a note from the terminal, in characters
        LiveGame(store, t.game_id).do("note", text="龘龖靐")   # no card, rule or label uses
    page.click("nav.tabs button[data-tab=log]")
    page.wait_for_function("() => document.getElementById('log').innerText.includes('龘龖靐')", timeout=3000)
    page.wait_for_function("() => Array.from(document.fonts).some((f) => f.family.includes('Cardpress Extra')"
                           " && f.status === 'loaded')", timeout=10000)
    assert tofu_chars(page) == ""


def test_the_missing_glyph_check_finds_a_box_when_there_is_one(browser, table):
    """The check itself can fail: a character the page's fonts lack is found."""
    t = table()
    page = phone(browser, t.url)
    page.evaluate("() => document.getElementById('turn').append('\\u{E000}')")     # private use: no font has it
    assert "\ue000" in tofu_chars(page)


def test_the_board_says_when_the_font_itself_lacks_a_character(browser, table):
    t = table(players=("甲\U0001F0A1", "乙"))            # a playing-card emoji: not in the printing font
    page = phone(browser, t.url)
    notice = page.locator("#glyph-notice")
    assert notice.is_visible() and "\U0001F0A1" in notice.inner_text()


def test_the_page_says_how_to_keep_the_screen_awake_on_plain_http_lan(browser, table):
    t = table(args=["--lan"])
    lan_url = t.url
    page = phone(browser, lan_url)
    secure = page.evaluate("() => window.isSecureContext")
    host = lan_url.split("//")[1].split(":")[0]
    if host == "127.0.0.1":       # a machine without a network: loopback is a secure context
        assert secure and page.locator("#wake-notice").count() == 0
    else:
        assert not secure and "--https" in page.locator("#wake-notice").inner_text()


def test_https_serves_the_page_with_the_certificate_the_tool_made(browser, table, tmp_path):
    t = table(args=["--https"])
    assert t.url.startswith("https://127.0.0.1:")
    context = browser.new_context(**PHONE, ignore_https_errors=True)
    page = context.new_page()
    page.goto(t.url)
    page.wait_for_selector(".player")
    assert page.evaluate("() => window.isSecureContext") and page.locator("#wake-notice").count() == 0
    from cryptography import x509

    from engine.paths import user_data_dir

    cert = x509.load_pem_x509_certificate((user_data_dir() / "table" / "table-cert.pem").read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "localhost" in names.get_values_for_type(x509.DNSName)
    assert json.loads((user_data_dir() / "table" / "table-cert.json").read_text())["addresses"]
