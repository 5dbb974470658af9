"""Atomic output: write to a temp file beside the target, then rename over it.

A crash, an error or Ctrl-C mid-build never leaves a half-written PDF, and never destroys the
previous good file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def atomic_write(path: Path) -> Iterator[Path]:
    """Yield a temp path to write; on success rename it to ``path``, on error delete it.

    >>> with atomic_write(Path("out/cards.pdf")) as tmp:   # doctest: +SKIP
    ...     make_pdf(tmp)
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        # mkstemp makes the file 0600; give it the mode any new file would get (umask applied).
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
