"""Crash test: a process applying commands is SIGKILLed again and again; nothing acknowledged is lost."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from engine.tracker import LiveGame, Store, resume

REPO = Path(__file__).resolve().parent.parent

CHILD = r"""
import sys
from engine.tracker import Store, resume
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
