"""Crash test: a process applying commands is SIGKILLed again and again; nothing acknowledged is lost."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from engine.tracker import Store

from engine.live import LiveGame, resume

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import sys
from engine.tracker import Store
from engine.live import resume
store = Store(sys.argv[1])
live = resume(store)
k = live.replay.last_seq
while True:
    k += 1
    out = live.do("charge", player="A", cards=1, op_id=f"op-{k}") if k % 3 else live.do("next", op_id=f"op-{k}")
    print(out.entry.op_id, out.entry.seq, flush=True)   # acknowledged: the command returned
"""


def _ack(line: str, acked: dict[str, int]) -> None:
    """Record one acknowledgement. A line cut short by the kill (no newline) was never fully
    acknowledged, so it promises nothing."""
    if not line.endswith("\n"):
        return
    op, seq = line.split()
    acked[op] = int(seq)


def test_every_acknowledged_command_survives_sigkill(tmp_path):
    db = tmp_path / "crash.sqlite"
    live = LiveGame.new(Store(db), "ridm", ("A", "B"), cards={})
    acked: dict[str, int] = {}
    rng = random.Random(3)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    kills = 0
    deadline = time.monotonic() + 20  # generous: a loaded CI machine starts Python slowly
    while kills < 12 and time.monotonic() < deadline:
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(db)], stdout=subprocess.PIPE, text=True,
                                 cwd=REPO, env=env)
        # Let it acknowledge a few commands, then kill it at a random moment mid-stream.
        wanted = rng.randint(3, 25)
        for _ in range(wanted):
            line = child.stdout.readline()
            if not line:
                break
            _ack(line, acked)
        time.sleep(rng.random() * 0.01)
        child.send_signal(signal.SIGKILL)
        for line in child.stdout:          # acknowledgements printed before the kill landed
            _ack(line, acked)
        child.wait()
        kills += 1
        again = resume(Store(db))
        stored = {e.op_id: e.seq for e in again.entries()}
        missing = {op: seq for op, seq in acked.items() if stored.get(op) != seq}
        assert not missing, f"acknowledged but lost after kill {kills}: {missing}"
    assert kills >= 5 and len(acked) >= 30
    final = resume(Store(db))
    # The replay is consistent: one charge per stored `charge`, turns advanced once per stored `next`.
    assert final.state == LiveGame(Store(db), live.id, cards={}).state
    entries = final.entries()
    assert final.state.players[0].charges == sum(1 for e in entries if e.command == "charge")
    assert final.state.turn == 1 + sum(1 for e in entries if e.command == "next") // 3


# ---------------------------------------------------------------------------- real CLI processes

#: Real ``cardpress track`` processes SIGKILLed (the brief asks for at least 100).
CLI_KILLS = 100
#: Processes running at once, writing to the same game.
CLI_PARALLEL = 3


def _cardpress() -> list[str]:
    """The venv's ``cardpress`` script, beside the interpreter running the tests."""
    script = shutil.which("cardpress", path=str(Path(sys.executable).parent))
    assert script, "the cardpress script is installed beside the test interpreter"
    return [script]


#: First guess of how long a process lives after opening the store (loading the game, verifying,
#: the command, commit, snapshot, output); then measured on the processes that finish.
STORE_PHASE = 0.15
#: Kills land at a random point of 0..this × that phase, so some processes finish first.
KILL_SPREAD = 1.15
#: Share of processes killed at a random moment of their first 0.3 s instead.
EARLY_KILLS = 0.3
#: Each kill stretches the estimate a little, so a slow machine still lets some commands finish.
PHASE_GROWTH = 1.03


def _has_open(pid: int, db: Path) -> bool:
    """Whether process ``pid`` has the store (or its WAL) open (Linux ``/proc``)."""
    try:
        links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    except OSError:
        return False
    return any(link.startswith(str(db)) for link in links)


def _command(k: int) -> list[str]:
    # Mostly notes (always legal), with phase changes so snapshots hold real state.
    return ["track", "next", "--op-id", f"cli-{k}"] if k % 4 == 0 else \
        ["track", "note", f"第{k}条", "--op-id", f"cli-{k}"]


def test_cli_commands_survive_sigkill_including_mid_snapshot(tmp_path):
    """≥ 100 SIGKILLs of real `cardpress track` processes, several at once, snapshots every 3
    entries (so many kills land in a snapshot write). A command is acknowledged when its process
    printed its result and exited 0; every acknowledged op id must be in the log exactly once,
    the chain must verify, and no process may ever see a damaged store."""
    db = tmp_path / "cli.sqlite"
    live = LiveGame.new(Store(db), "ridm", ("A", "B"), cards={})
    live.store.close()
    env = {**os.environ, "CARDPRESS_DB": str(db), "CARDPRESS_SNAPSHOT_EVERY": "3", "PYTHONPATH": str(REPO)}
    exe = _cardpress()
    rng = random.Random(11)

    def start(k: int) -> subprocess.Popen:
        return subprocess.Popen([*exe, *_command(k)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
                                env=env)

    # A first round left to finish: the store works from the CLI at all.
    first = [start(k) for k in range(1, CLI_PARALLEL + 1)]
    for proc in first:
        out, err = proc.communicate()
        assert proc.returncode == 0, err.decode()
    acked = {f"cli-{k}" for k in range(1, CLI_PARALLEL + 1)}
    running: dict[int, tuple[subprocess.Popen, float | None, bool]] = {}
    opened: dict[int, float] = {}
    phase = STORE_PHASE
    kills, k, failures = 0, CLI_PARALLEL, []
    deadline = time.monotonic() + 120   # ~30 s on an idle 2-core machine; generous for a loaded CI
    target = CLI_KILLS

    def enough() -> bool:
        """The run proved what it must: some commands completed between kills, and some kills
        landed after a commit. Both depend on timing, so a run keeps killing until they hold."""
        if len(acked) < 10:
            return False
        with sqlite3.connect(db) as conn:
            stored = conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
        return stored - 1 > len(acked)

    while time.monotonic() < deadline:
        if kills >= target and not running:
            if enough():
                break
            target += 20
        while kills + len(running) < target and len(running) < CLI_PARALLEL:
            k += 1
            # Some kills land anywhere in the first 0.3 s (start-up, opening the store); cheap.
            early = time.monotonic() + rng.uniform(0.0, 0.3) if rng.random() < EARLY_KILLS else None
            running[k] = (start(k), early, False)
        for op, (proc, kill_at, killed) in list(running.items()):
            if proc.poll() is not None:
                out, err = proc.communicate()
                del running[op]
                if proc.returncode == 0 and out.strip():
                    acked.add(f"cli-{op}")
                    if op in opened:
                        phase = 0.7 * phase + 0.3 * (time.monotonic() - opened[op])
                elif not killed:
                    failures.append((op, proc.returncode, err.decode()))
            elif kill_at is None:
                # Python's start-up is most of a process's life; aim the kill at the part that
                # touches the store: from the moment it has the file open, a random few ms later.
                if _has_open(proc.pid, db):
                    opened[op] = time.monotonic()
                    running[op] = (proc, opened[op] + rng.uniform(0.0, KILL_SPREAD * phase), False)
            elif not killed and time.monotonic() >= kill_at:
                proc.send_signal(signal.SIGKILL)
                running[op] = (proc, kill_at, True)
                kills += 1
                phase *= PHASE_GROWTH   # too few finish? aim later (acknowledged runs pull it back)
        time.sleep(0.002)
    assert not failures, f"a process that was not killed failed: {failures[:3]}"
    assert kills >= CLI_KILLS, f"only {kills} kills before the deadline"
    store = Store(db)
    final = LiveGame(store, live.id, cards={})
    entries = final.entries()
    ops = [e.op_id for e in entries]
    assert len(ops) == len(set(ops)), "an op id was applied twice"
    assert acked <= set(ops), f"acknowledged but lost: {sorted(acked - set(ops))[:5]}"
    assert store.verify(live.id)[0] == len(entries) == final.replay.last_seq, "the chain verifies"
    assert final.state == LiveGame(store, live.id, cards={}, use_snapshots=False).state, "snapshot = replay"
    assert not list(tmp_path.glob(".cli.sqlite*")), "no temp files left behind"
    assert len(acked) >= 10, "some commands completed between the kills"
    assert len(entries) - 1 > len(acked), "some kills landed after a commit (snapshot write, side record, output)"
    print(f"{kills} kills, {len(acked)} acknowledged, {len(entries)} entries, store phase {phase:.3f} s")
