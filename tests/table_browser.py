"""Helpers for the table page tests: a real ``cardpress table`` process and phones in Chromium.

The browser is Debian's ``chromium`` (``.ci/run`` installs it; ``CARDPRESS_CHROMIUM`` names
another), driven by Playwright at the reference phone size with touch. It runs with a fontconfig
that sees no CJK font at all, so every Chinese glyph on the page must come from the font subset
the server sends: a missing one shows as a box, which ``tofu_chars`` finds.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "has_touch": True, "is_mobile": True}
CHROMIUM = os.environ.get("CARDPRESS_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
_URL = re.compile(r"at the table: (\S+)")

#: Fonts the browser may use besides the page's: Latin only (no CJK anywhere).
FONTS_CONF = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>/usr/share/fonts/truetype/dejavu</dir>
  <dir>/usr/share/fonts/truetype/liberation</dir>
  <cachedir>{cache}</cachedir>
</fontconfig>
"""


@dataclass
class Table:
    """A running ``cardpress table`` for one game of a store."""

    db: Path
    game_id: str
    args: list[str] = field(default_factory=list)
    port: int = 0
    proc: subprocess.Popen | None = None
    url: str = ""

    def start(self, timeout: float = 90.0) -> "Table":
        cmd = [sys.executable, "-c", "from pipeline import main; main()", "table", "--game", self.game_id,
               "--db", str(self.db), "--port", str(self.port), *self.args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                     env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError("cardpress table stopped:\n" + "".join(seen))
            seen.append(line)
            found = _URL.search(line)
            if found:
                self.url = found.group(1)
                self.port = int(re.search(r":(\d+)/", self.url).group(1))
                # Keep reading its output so a full pipe never blocks the server.
                import threading

                threading.Thread(target=self.proc.stdout.read, daemon=True).start()
                return self
        raise AssertionError("cardpress table printed no address:\n" + "".join(seen))

    @property
    def origin(self) -> str:
        return self.url.split("/?")[0].rstrip("/")

    def kill(self) -> None:
        """``kill -9``: no chance to clean up, as when a laptop's battery dies."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()


def entries(db: Path, game_id: str) -> int:
    from engine.tracker import Store

    with Store(db) as store:
        return store.last_seq(game_id)


def commands_logged(db: Path, game_id: str) -> list[str]:
    from engine.tracker import Store
    from engine.live import LiveGame

    with Store(db) as store:
        return [e.command for e in LiveGame(store, game_id).entries()]


TOFU_JS = """
async () => {
  await document.fonts.ready;
  const family = getComputedStyle(document.body).fontFamily;
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 48;
  const g = canvas.getContext("2d", { willReadFrequently: true });
  const draw = (ch) => {
    g.clearRect(0, 0, 48, 48);
    g.font = "32px " + family;
    g.fillStyle = "#000";
    g.textBaseline = "top";
    g.fillText(ch, 4, 4);
    return Array.from(g.getImageData(0, 0, 48, 48).data).join(",");
  };
  // A character no font here has: what a missing glyph looks like with this font stack.
  const box = draw("\\u{10FFFD}");
  const seen = new Set(Array.from(document.body.innerText).filter((c) => c.trim()));
  return { family, boxInk: box.split(",").some((v, i) => i % 4 === 3 && v !== "0"),
           tofu: Array.from(seen).filter((c) => draw(c) === box).join("") };
}
"""


def tofu_chars(page) -> str:
    """Characters of the page's visible text that draw as the missing-glyph box."""
    result = page.evaluate(TOFU_JS)
    assert result["boxInk"], f"the reference missing glyph drew nothing with {result['family']}"
    return result["tofu"]


def seq_of(page) -> int:
    return page.evaluate("() => Number(document.body.dataset.seq || -1)")
