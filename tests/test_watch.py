"""``cardpress watch``: a save rebuilds the sheets; an error is shown and the watcher goes on."""

from __future__ import annotations

import re
import threading
import time
from contextlib import contextmanager

from pypdf import PdfReader

from pipeline.plan import BuildOptions
from pipeline.scaffold import scaffold
from pipeline.watch import watch, watched_paths


def _wait_for(messages, count, seconds=60):
    deadline = time.monotonic() + seconds
    while len(messages) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(messages) >= count, messages


@contextmanager
def _watching(game, out, open_page=False):
    """``watch`` running on ``game`` in a thread (A4, one process); yields its messages, and
    stops it on the way out (it must then have ended)."""
    messages: list[str] = []
    stop = threading.Event()
    worker = threading.Thread(target=watch, args=(game, BuildOptions(papers=("a4",), out_dir=out, jobs=1),
                                                  messages.append, stop),
                              kwargs={"open_page": open_page, "browser": False}, daemon=True)
    worker.start()
    try:
        yield messages
    finally:
        stop.set()
        worker.join(timeout=10)
    assert not worker.is_alive()


def _page_url(messages) -> str:
    """The preview page's address, from the watcher's first message (after the first build)."""
    _wait_for(messages, 3)  # the page's address, the first build, "watching …"
    return re.search(r"preview page: (http://127\.0\.0\.1:\d+/)", messages[0]).group(1)


def test_a_save_rebuilds_an_error_is_shown_and_the_next_save_builds_again(tmp_path):
    game = scaffold(tmp_path / "g", "监视")
    out = tmp_path / "out"
    with _watching(game, out) as messages:
        _wait_for(messages, 2)  # the first build, then "watching …"
        assert messages[0].startswith("first build: 4 cards built") and messages[1].startswith("watching ")
        time.sleep(0.3)  # the watcher is set up
        cards = game / "cards" / "cards.yaml"
        cards.write_text(cards.read_text(encoding="utf-8").replace("name: 火花", "name: 火球"), encoding="utf-8")
        _wait_for(messages, 3)
        assert messages[2].startswith("changed cards.yaml: 4 cards built"), messages
        assert "火球" in "".join(page.extract_text() for page in PdfReader(out / "cards-a4.pdf").pages)
        before = (out / "cards-a4.pdf").read_bytes()
        cards.write_text(cards.read_text(encoding="utf-8").replace("cost: 1\n  text: 对1个", "cost: many\n  text: 对1个"),
                         encoding="utf-8")
        _wait_for(messages, 4)
        assert "the build failed, the previous sheets are kept" in messages[3] and "cost" in messages[3]
        assert (out / "cards-a4.pdf").read_bytes() == before
        cards.write_text(cards.read_text(encoding="utf-8").replace("cost: many", "cost: 2"), encoding="utf-8")
        _wait_for(messages, 5)
        assert messages[4].startswith("changed cards.yaml: 4 cards built"), messages


def test_the_watched_folders_are_what_a_build_reads(tmp_path):
    game = scaffold(tmp_path / "g", "监视")
    paths = watched_paths(game)
    assert game.resolve() in [p.resolve() for p in paths]
    assert any(p.name == "_common" for p in paths)
    assert any(p.name == "duel" for p in watched_paths("duel"))


def test_watch_of_a_game_that_is_not_there_is_one_error(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli.app import app

    result = CliRunner().invoke(app, ["watch", str(tmp_path / "nothing")])
    assert result.exit_code == 1 and "no game" in result.output and "Traceback" not in result.output


def test_watch_open_page_shows_the_changed_card_first_and_a_failed_build_in_a_box(tmp_path):
    """`watch --open` in a real browser: a save reloads the page by itself with the edited card
    first (its text escaped, not markup, in the cards' font: no boxes); a broken save shows the
    error box over the last good cards, and the next good save clears it."""
    import os
    from pathlib import Path

    from playwright.sync_api import expect, sync_playwright

    from table_browser import CHROMIUM, FONTS_CONF, tofu_chars

    assert Path(CHROMIUM).exists(), f"no browser at {CHROMIUM}: .ci/run installs Debian's chromium"
    conf = tmp_path / "fonts.conf"   # a browser that has no CJK font: every glyph must come from the page's
    conf.write_text(FONTS_CONF.format(cache=tmp_path / "fc-cache"), encoding="utf-8")
    game = scaffold(tmp_path / "g", "监视")
    with _watching(game, tmp_path / "out", open_page=True) as messages:
        url = _page_url(messages)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"],
                                        env={**os.environ, "FONTCONFIG_FILE": str(conf)})
            try:
                page = browser.new_page()
                page.goto(url)
                expect(page.locator("body")).to_have_attribute("data-status", "ok", timeout=10_000)
                expect(page.locator(".pages img")).to_have_count(2)   # the first build's a4 sheet, 2 pages
                assert page.locator("#cards img").count() == 0
                time.sleep(0.3)  # the watcher is set up
                cards = game / "cards" / "cards.yaml"
                text = cards.read_text(encoding="utf-8")
                cards.write_text(text.replace("name: 火花", "name: <i>火球</i>"), encoding="utf-8")
                first = page.locator("#cards img").first
                expect(first).to_have_attribute("data-card", "spark", timeout=10_000)
                expect(page.locator("#cards figcaption").first).to_have_text("<i>火球</i> (spark)")
                assert page.locator("#cards i").count() == 0            # a name is text, never markup
                page.wait_for_function("() => document.querySelector('#cards img').naturalWidth > 100")
                # 球 came with this save (an extra font subset); nothing on the page is a box.
                page.wait_for_function("() => Array.from(document.fonts).some((f) => f.family.includes('Extra') "
                                       "&& f.status === 'loaded')", timeout=10_000)
                assert tofu_chars(page) == ""
                expect(page.locator("body")).to_have_attribute("data-status", "ok", timeout=10_000)
                expect(page.locator("#error")).to_be_hidden()

                cards.write_text(cards.read_text(encoding="utf-8").replace("cost: 1\n  text: 对1个", "cost: many\n  text: 对1个"),
                                 encoding="utf-8")
                expect(page.locator("#error")).to_be_visible(timeout=10_000)
                expect(page.locator("#error-text")).to_contain_text("cost")
                expect(page.locator("#cards img[data-card=spark]")).to_have_count(1)   # the last good cards stay
                cards.write_text(cards.read_text(encoding="utf-8").replace("cost: many", "cost: 2"), encoding="utf-8")
                expect(page.locator("#error")).to_be_hidden(timeout=10_000)
                expect(page.locator("body")).to_have_attribute("data-status", "ok", timeout=10_000)
            finally:
                browser.close()
    assert not any("Traceback" in m for m in messages)


def test_watch_help_shows_open():
    from typer.testing import CliRunner

    from pipeline.cli.app import app

    result = CliRunner().invoke(app, ["watch", "--help"])
    assert result.exit_code == 0 and "--open" in result.output and "--no-browser" in result.output


def test_ctrl_c_stops_the_watcher_and_its_page(tmp_path):
    """`cardpress watch GAME --open --no-browser` as a user runs it: the page's address is printed
    (127.0.0.1 only) and Ctrl-C stops the watcher and the server, at once and without a traceback."""
    import json
    import os
    import signal
    import subprocess
    import sys
    import urllib.request

    game = scaffold(tmp_path / "g", "监视")
    proc = subprocess.Popen([sys.executable, "-c", "from pipeline import main; main()", "watch", str(game), "--open",
                             "--no-browser", "--paper", "a4", "--out", str(tmp_path / "out")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"},
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # as in a terminal
    seen = []
    try:
        for line in proc.stdout:
            seen.append(line)
            if line.startswith("watching "):
                break
        url = re.search(r"preview page: (http://127\.0\.0\.1:\d+/)", "".join(seen)).group(1)
        with urllib.request.urlopen(url + "api/state", timeout=5) as answer:
            assert answer.headers["content-security-policy"].startswith("default-src 'self'")
            assert json.loads(answer.read())["status"] == "ok"
        events = urllib.request.urlopen(url + "api/events", timeout=5)   # an open page holds a stream
        assert events.readline().startswith(b"retry:")
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=10)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, "".join(seen) + rest
    assert "Traceback" not in rest and "Error" not in rest, rest


def test_a_style_change_shows_the_cards_whose_printed_face_changed(tmp_path):
    """No card file changed, but the style recolours one type: the cards of that type (by the
    faces' digests of this build against the previous one) are shown, the others are not."""
    import json
    import urllib.request

    game = scaffold(tmp_path / "g", "监视")
    with _watching(game, tmp_path / "out", open_page=True) as messages:
        url = _page_url(messages)
        time.sleep(0.3)
        style = game / "templates" / "style.yaml"
        style.write_text(style.read_text(encoding="utf-8").replace('unit: "#6b3333"', 'unit: "#116611"'),
                         encoding="utf-8")
        _wait_for(messages, 4)
        assert messages[3].startswith("changed style.yaml: 4 cards built"), messages
        with urllib.request.urlopen(url + "api/state", timeout=5) as answer:
            state = json.loads(answer.read())
        from engine.definitions import load_game
        from engine.cards import load_cards

        units = {c.id for c in load_cards(load_game(game)) if c.type == "unit"}
        assert units and {c["id"] for c in state["changed"]} == units, state["changed"]
        with urllib.request.urlopen(url + state["changed"][0]["src"].lstrip("/"), timeout=5) as answer:
            assert answer.read()[:4] == b"\x89PNG"
        with urllib.request.urlopen(url + state["sheets"][0]["pages"][0].lstrip("/"), timeout=5) as answer:
            assert answer.read()[:4] == b"\x89PNG"
