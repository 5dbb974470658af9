"""Tracker benchmark: durable per-command latency and resume time, against a bare-SQLite baseline.

Run on demand (not part of the tests)::

    /work/venv/bin/python benchmarks/bench_tracker.py [--commands 10000] [--dir DIR]

1. Baseline: ``BEGIN IMMEDIATE; INSERT; COMMIT`` of a ~300-byte row, with the store's pragmas
   (WAL, ``synchronous=FULL``) — the floor any durable command pays on this disk.
2. Apply N commands to a backrooms game through ``LiveGame.do`` (decide, one transaction with
   fsync, apply): mostly ``next`` (phase hooks, cost gains, level cuts) plus spends, gains,
   outpost damage/repair/placement and undo/redo.
3. Resume that game cold (new connection, definition cache cleared): verify the whole digest
   chain (one sha256 per entry over the stored text), load the latest snapshot (a verified
   cache written every ``SNAPSHOT_EVERY`` entries) and replay the entries after it; also timed
   without the cache (read, decode, check and replay every entry).
4. The chain verification alone (``Store.verify``), which every open pays.

Targets: ≤ 5 ms per command, resume ≤ 300 ms.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.definitions import _load_cached  # noqa: E402
from engine.tracker import IllegalCommand, Store  # noqa: E402
from engine.live import LiveGame
from engine.tracker.store import PRAGMAS  # noqa: E402

TARGET_COMMAND_MS = 5.0
TARGET_RESUME_MS = 300.0


def baseline(folder: Path, n: int) -> list[float]:
    conn = sqlite3.connect(folder / "baseline.sqlite", isolation_level=None)
    for pragma in PRAGMAS:
        conn.execute(pragma)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, op TEXT UNIQUE, data TEXT)")
    payload = json.dumps([{"type": "PhaseEntered", "phase": "prepare", "reason": "抽牌阶段结束" * 4}] * 3,
                         ensure_ascii=False)
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO t (op, data) VALUES (?, ?)", (f"op-{i}", payload))
        conn.execute("COMMIT")
        times.append(time.perf_counter() - t0)
    conn.close()
    return times


def play(live: LiveGame, n: int, rng: random.Random) -> tuple[list[float], int]:
    times, refused = [], 0
    for _ in range(n):
        s = live.state
        pending = [p.name for p in s.players if p.must_place_outpost]
        roll = rng.random()
        if pending:
            call = lambda: live.do("place", player=pending[0])  # noqa: E731
        elif roll < 0.55:
            call = lambda: live.do("next")  # noqa: E731
        elif roll < 0.65:
            call = lambda: live.do("spend", player=s.players[s.active].name, amount=1)  # noqa: E731
        elif roll < 0.75:
            call = lambda: live.do("gain", player=rng.choice("AB"), amount=2)  # noqa: E731
        elif roll < 0.82:
            call = lambda: live.do("damage", player=rng.choice("AB"), amount=1)  # noqa: E731
        elif roll < 0.89:
            call = lambda: live.do("repair", player=rng.choice("AB"), amount=1)  # noqa: E731
        elif roll < 0.95 and live.can_undo:
            call = live.undo
        elif live.can_redo:
            call = live.redo
        else:
            call = lambda: live.do("next")  # noqa: E731
        t0 = time.perf_counter()
        try:
            call()
        except IllegalCommand:
            refused += 1
        times.append(time.perf_counter() - t0)
    return times, refused


def ms(seconds: float) -> float:
    return seconds * 1000.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commands", type=int, default=10_000)
    parser.add_argument("--dir", type=Path, default=None, help="where to put the databases (default: a temp dir)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-tracker-", dir=args.dir))
    try:
        base = baseline(folder, min(args.commands, 2000))
        base_ms = ms(statistics.median(base))

        store = Store(folder / "games.sqlite")
        live = LiveGame.new(store, "backrooms", ("A", "B"), levels=("L0", "L1", "L2"), cards={})
        times, refused = play(live, args.commands, random.Random(7))
        entries = live.replay.last_seq
        events = sum(len(e.events) for e in live.entries())
        final = live.state
        store.close()

        resumes = []
        for _ in range(5):
            _load_cached.cache_clear()
            t0 = time.perf_counter()
            again = LiveGame(Store(folder / "games.sqlite"), live.id, cards={})
            resumes.append(time.perf_counter() - t0)
            assert again.state == final, "resumed state differs from the live state"
            again.store.close()

        full = []
        for _ in range(3):
            _load_cached.cache_clear()
            t0 = time.perf_counter()
            again = LiveGame(Store(folder / "games.sqlite"), live.id, cards={}, use_snapshots=False)
            full.append(time.perf_counter() - t0)
            assert again.state == final, "replayed state differs from the live state"
            again.store.close()

        verifies = []
        for _ in range(5):
            store = Store(folder / "games.sqlite")
            t0 = time.perf_counter()
            checked, _ = store.verify(live.id)
            verifies.append(time.perf_counter() - t0)
            store.close()

        cmd_median, cmd_mean = ms(statistics.median(times)), ms(statistics.fmean(times))
        cmd_p99 = ms(sorted(times)[int(len(times) * 0.99)])
        resume_first, resume_median = ms(resumes[0]), ms(statistics.median(resumes))
        print(f"disk folder: {folder}")
        print(f"baseline  bare INSERT+COMMIT (WAL, synchronous=FULL): median {base_ms:.3f} ms ({len(base)} rows)")
        print(f"commands  {len(times)} applied ({refused} refused), {entries} log entries, {events} events")
        print(f"          per command: median {cmd_median:.3f} ms, mean {cmd_mean:.3f} ms, p99 {cmd_p99:.3f} ms"
              f"  = {cmd_median / base_ms:.2f}x baseline (target <= {TARGET_COMMAND_MS} ms)")
        print(f"resume    {events}-event game: first {resume_first:.1f} ms, median of 5 {resume_median:.1f} ms"
              f"  = {resume_median / base_ms:.0f}x one baseline commit (target <= {TARGET_RESUME_MS} ms)")
        print(f"          without the snapshot cache (full replay of every entry): median of 3 {ms(statistics.median(full)):.1f} ms")
        print(f"verify    digest chain of {checked} entries: median of 5 {ms(statistics.median(verifies)):.1f} ms"
              f" ({ms(statistics.median(verifies)) * 1000 / checked:.1f} µs per entry; part of every resume)")
        ok = cmd_mean <= TARGET_COMMAND_MS and resume_first <= TARGET_RESUME_MS
        print("targets met" if ok else "TARGETS MISSED")
        return 0 if ok else 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
