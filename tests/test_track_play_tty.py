"""Table mode at a real terminal: Tab completes from the declarations, and lines are kept in a
history. Driven through a pseudo-terminal, as a person at the table would type."""

from __future__ import annotations

import os
import pty
import select
import shutil
import sys
import time
from pathlib import Path

from track_helpers import new_game


def _cardpress() -> str:
    script = shutil.which("cardpress", path=str(Path(sys.executable).parent))
    assert script, "the cardpress script is installed beside the test interpreter"
    return script


def _session(env: dict[str, str], keys: list[bytes], wait: float = 20.0) -> str:
    """Run ``cardpress track play`` on a pty, type ``keys`` one line at a time, return the screen."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: the table
        os.execve(_cardpress(), ["cardpress", "track", "play"], env)
    out = b""

    def read_until(marker: bytes, limit: float) -> None:
        nonlocal out
        end = time.monotonic() + limit
        while marker not in out and time.monotonic() < end:
            ready, _, _ = select.select([fd], [], [], 0.1)
            if ready:
                try:
                    out += os.read(fd, 65536)
                except OSError:
                    return

    try:
        read_until(b"> ", wait)
        for key in keys:
            seen = out.count(b"> ")
            os.write(fd, key)
            end = time.monotonic() + wait
            while out.count(b"> ") <= seen and time.monotonic() < end:
                read_until(b"> " * (seen + 1), 0.2)
                if out.count(b"> ") > seen:
                    break
        os.write(fd, b"q\r")
        read_until(b"\x00never", 1.0)
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
        os.close(fd)
    return out.decode("utf-8", "replace")


def test_tab_completes_commands_and_players_and_history_is_kept(tmp_path):
    live = new_game(tmp_path, "backrooms", players=("甲", "乙"))
    env = {**os.environ, "CARDPRESS_DB": str(tmp_path / "games.sqlite"), "CARDPRESS_DATA": str(tmp_path / "data"),
           "CARDPRESS_GAME": live.id, "TERM": "xterm"}
    screen = _session(env, ["sp\t甲 3\r".encode(), "dam\t乙 2 --o\t1\r".encode()])
    assert "甲花费3费用" in screen, screen[-800:]
    assert "乙的前哨站1受到2点伤害" in screen, screen[-800:]
    history = (tmp_path / "data" / "play-history").read_text(encoding="utf-8")
    assert "spend 甲 3" in history and "damage 乙 2 --outpost 1" in history
