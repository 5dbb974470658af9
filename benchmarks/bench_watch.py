"""Watch-page latency benchmark (issue 12 §1): from the save of one card to its preview on the page.

Run on demand (not in CI), from the repository root:

    .venv/bin/python benchmarks/bench_watch.py              # duel (shipped) and the 600-card deck
    .venv/bin/python benchmarks/bench_watch.py --edits 5    # five edits per game (median and max)

For each game, ``cardpress watch GAME --open`` runs in this process (library call, no browser)
on a temp copy; an event-stream client stays connected as a page does. Then one card's name is
edited (a plain file write, as an editor's save) ``--edits`` times, and for each edit it reports:

- **event**: from the write to the server-sent event that names the changed card (its PNG is
  drawn before that event is sent, so it is fetchable then);
- **png**: from the write to the card's PNG fully fetched over HTTP;
- **sheets**: from the write to the event saying the sheets are rebuilt (both papers).

Games: ``duel`` (shipped, 48 cards) and the 600-card benchmark deck of bench_build.py (200
distinct cards of one type × 3, 200 artworks of ~500 KB). Target (issue 12): the changed card's
preview ≤ 300 ms after the save.

What the time is made of: watchfiles' debounce (DEBOUNCE_MS = 150 gathers a burst, but yields
after ~50 ms of quiet), loading and checking the game (~20 ms for a shipped one), and drawing the
card (``outputs.preview``: the card's type's shared text size is learnt from every card of that
type, so a type with many cards costs more).

Figures (2026-12-01, 2 cores): see the README's watch paragraph.
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


class Events:
    """An event-stream client in a thread: every state the server sends, with its arrival time."""

    def __init__(self, port: int):
        self.states: list[tuple[float, dict]] = []
        self.lock = threading.Lock()
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.conn.request("GET", "/api/events")
        self.response = self.conn.getresponse()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        data = []
        for raw in self.response:
            line = raw.decode("utf-8").rstrip("\n")
            if line.startswith("data: "):
                data.append(line[6:])
            elif not line and data:
                state = json.loads("".join(data))
                with self.lock:
                    self.states.append((time.perf_counter(), state))
                data = []

    def wait(self, after: float, test, timeout: float = 120.0) -> tuple[float, dict]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                for t, state in self.states:
                    if t >= after and test(state):
                        return t, state
            time.sleep(0.002)
        raise TimeoutError("no such event")


def run(game: Path, card_file: Path, edit, card_id: str, edits: int, papers: tuple[str, ...], out: Path) -> None:
    from pipeline.plan import BuildOptions
    from pipeline.watch import watch

    messages: list[str] = []
    stop = threading.Event()
    worker = threading.Thread(target=watch, args=(game, BuildOptions(papers=papers, out_dir=out), messages.append,
                                                  stop), kwargs={"open_page": True, "browser": False}, daemon=True)
    started = time.perf_counter()
    worker.start()
    while not any(m.startswith("watching") for m in messages):
        time.sleep(0.01)
    first = time.perf_counter() - started
    port = int(messages[0].split("127.0.0.1:")[1].split("/")[0])
    events = Events(port)
    time.sleep(0.5)  # the watcher is set up
    rows, seen = [], set()
    try:
        for n in range(edits):
            text = card_file.read_text(encoding="utf-8")
            saved = time.perf_counter()
            card_file.write_text(edit(text, n), encoding="utf-8")
            # The card's picture of this save (the states before it still show the last one).
            t_event, state = events.wait(saved, lambda s: any(c["id"] == card_id and c["src"] not in seen
                                                               for c in s["changed"]))
            src = next(c["src"] for c in state["changed"] if c["id"] == card_id)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", src)
            body = conn.getresponse().read()
            t_png = time.perf_counter()
            conn.close()
            assert body[:4] == b"\x89PNG", body[:100]
            seen.add(src)
            gen = state["gen"]
            t_sheets, _ = events.wait(saved, lambda s: s["status"] == "ok" and s["gen"] > gen)
            rows.append((t_event - saved, t_png - saved, t_sheets - saved))
            time.sleep(0.3)
    finally:
        stop.set()
        worker.join(timeout=30)
    ms = lambda xs: f"median {statistics.median(xs) * 1000:5.0f} ms, max {max(xs) * 1000:5.0f} ms"  # noqa: E731
    print(f"{game.name}: first build {first:.1f} s; {edits} edits of card {card_id}:")
    print(f"  event  {ms([r[0] for r in rows])}")
    print(f"  png    {ms([r[1] for r in rows])}")
    print(f"  sheets {ms([r[2] for r in rows])}  ({' + '.join(papers)})")
    print("  each (event ms): " + ", ".join(f"{r[0] * 1000:.0f}" for r in rows), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--edits", type=int, default=3)
    ap.add_argument("--games", default="duel,bench600", help="comma-separated: duel, bench600")
    args = ap.parse_args()
    sys.path.insert(0, str(REPO))
    sys.path.insert(0, str(REPO / "benchmarks"))
    import yaml

    from engine.paths import card_data_root

    with tempfile.TemporaryDirectory(prefix="bench-watch-") as tmp_name:
        tmp = Path(tmp_name)
        for name in args.games.split(","):
            if name == "duel":
                game = tmp / "duel"
                shutil.copytree(card_data_root() / "duel", game)
                card_file = next(p for p in sorted((game / "cards").iterdir()) if p.suffix == ".yaml")
                first = yaml.safe_load(card_file.read_text(encoding="utf-8"))
                first = first[0] if isinstance(first, list) else next(iter(first.values()))[0]
                card_id, old = first["id"], first["name"]
                edit = lambda text, n, old=old: text.replace(f"name: {old}", f"name: {old}{'改' * (n + 1)}", 1) \
                    if n == 0 else text.replace(f"name: {old}{'改' * n}", f"name: {old}{'改' * (n + 1)}", 1)  # noqa: E731
            else:
                from bench_build import make_art, make_cards, make_game

                make_art(tmp / "art")
                game = tmp / "bench600"
                make_game(game, make_cards(200), tmp / "art")
                card_file, card_id = game / "cards" / "cards.yaml", "c00007"
                edit = lambda text, n: text.replace("id: c00007, type: unit, name: ",  # noqa: E731
                                                    "id: c00007, type: unit, name: 改", 1)
            run(game, card_file, edit, card_id, args.edits, ("a4", "letter"), tmp / f"out-{name}")


if __name__ == "__main__":
    main()
