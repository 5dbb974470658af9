"""Atomic output: write to a temp file beside the target, then rename over it.

A crash, an error or Ctrl-C mid-build never leaves a half-written PDF, and never destroys the
previous good file. A build killed outright (``kill -9``, power loss) cannot clean up after
itself, so temp files carry the writer's process id (``.<name>.<pid>.<random>.tmp``): the next
write into the same folder removes those whose process is gone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path
from typing import Iterator

from engine.errors import CardpressError
from engine.i18n import N_, _
from engine.i18n import _ as tr
from engine.paths import confine, remove_leftovers

#: What a failed write means to a user; the file is named by the caller. Every value is an
#: N_-marked literal, translated where it is shown (``tr``).
_REASONS = {
    errno.ENOSPC: N_("the disk is full"),
    errno.EDQUOT: N_("the disk quota is exceeded"),
    errno.EFBIG: N_("the file is too large for the file system"),
    errno.EROFS: N_("the file system is read-only"),
    errno.EACCES: N_("permission denied"),
    errno.EPERM: N_("permission denied"),
    errno.ENOTDIR: N_("a part of the path is a file, not a folder"),
    errno.EEXIST: N_("a file of that name is in the way of the folder"),
    errno.ENAMETOOLONG: N_("the file name is too long"),
}
#: Errors of the *write* itself: reading a source mid-write fails with other errnos, which keep
#: their own message.
_WRITE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS}


#: Folders this process has already cleared of leftovers.
_swept: set[str] = set()


class WriteError(CardpressError):
    """An output file cannot be written; the previous file (if any) is untouched."""

    def __init__(self, path: Path, exc: OSError):
        self.path, self.errno = Path(path), exc.errno
        reason = reason_of(exc)
        super().__init__(_("cannot write {path}: {reason}; nothing half-written was kept")
                         .format(path=path, reason=reason))


def reason_of(exc: OSError) -> str:
    """A user's words for an ``OSError``."""
    known = _REASONS.get(exc.errno)
    return tr(known) if known else exc.strerror or str(exc)


def output_path(folder: Path, name: str) -> Path:
    """``folder / name``, checked to stay inside ``folder``: names come from game data (a game
    id, a card id, a back), and a second line of defence costs nothing."""
    path = Path(folder) / name
    confine(path, [Path(folder)], N_("output file"))
    return path


@contextlib.contextmanager
def atomic_write(path: Path) -> Iterator[Path]:
    """Yield a temp path to write; on success rename it to ``path``, on error delete it.

    Raises ``WriteError`` (naming ``path``) when the folder cannot be made or written, or the
    disk fills up.

    >>> with atomic_write(Path("out/cards.pdf")) as tmp:   # doctest: +SKIP
    ...     make_pdf(tmp)
    """
    path = Path(path)
    try:
        if path.parent.exists() and not path.parent.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(path.parent))
        path.parent.mkdir(parents=True, exist_ok=True)
        folder = os.path.realpath(path.parent)
        if folder not in _swept:  # once per folder and process: the art cache holds thousands
            _swept.add(folder)
            remove_leftovers(path.parent)
        fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    except OSError as exc:
        raise WriteError(path, exc) from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        # mkstemp makes the file 0600; give it the mode any new file would get (umask applied).
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except OSError as exc:
        if exc.errno in _WRITE_ERRNOS or isinstance(exc, IsADirectoryError):
            raise WriteError(path, exc) from None
        raise
    finally:
        if tmp.exists():
            tmp.unlink()
