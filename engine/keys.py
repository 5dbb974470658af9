"""This machine's secret keys: random bytes in a file of the user's data dir, made on first use.

They seal what cardpress writes and reads back later (store snapshots, the font registration
cache), so a file it did not write is never trusted. Kept light (no import beyond the standard
library): reading a key is part of every process's fixed cost.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

KEY_BYTES = 32


def read_or_make_key(path: Path) -> bytes | None:
    """The key in ``path`` (made there, mode 0600, if absent), or None when it cannot be read or
    made, or is not a whole key (a crash between create and write): then nothing is trusted."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as fh:
                fh.write(secrets.token_bytes(KEY_BYTES))
                fh.flush()
                os.fsync(fh.fileno())
        with open(path, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return None
            key = fh.read(KEY_BYTES + 1)
    except OSError:
        return None
    return key if len(key) == KEY_BYTES else None
