"""``cardpress watch``: a save rebuilds the sheets; an error is shown and the watcher goes on."""

from __future__ import annotations

import threading
import time

from pypdf import PdfReader

from pipeline.build import BuildOptions
from pipeline.scaffold import scaffold
from pipeline.watch import watch, watched_paths


def _wait_for(messages, count, seconds=60):
    deadline = time.monotonic() + seconds
    while len(messages) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(messages) >= count, messages


def test_a_save_rebuilds_an_error_is_shown_and_the_next_save_builds_again(tmp_path):
    game = scaffold(tmp_path / "g", "监视")
    out = tmp_path / "out"
    messages: list[str] = []
    stop = threading.Event()
    worker = threading.Thread(target=watch, args=(game, BuildOptions(papers=("a4",), out_dir=out, jobs=1),
                                                  messages.append, stop), daemon=True)
    worker.start()
    try:
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
    finally:
        stop.set()
        worker.join(timeout=10)
    assert not worker.is_alive()


def test_the_watched_folders_are_what_a_build_reads(tmp_path):
    game = scaffold(tmp_path / "g", "监视")
    paths = watched_paths(game)
    assert game.resolve() in [p.resolve() for p in paths]
    assert any(p.name == "_common" for p in paths)
    assert any(p.name == "duel" for p in watched_paths("duel"))


def test_watch_of_a_game_that_is_not_there_is_one_error(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli import app

    result = CliRunner().invoke(app, ["watch", str(tmp_path / "nothing")])
    assert result.exit_code == 1 and "no game" in result.output and "Traceback" not in result.output
