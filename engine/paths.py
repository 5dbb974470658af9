"""Where shipped games, templates and per-user data live."""

from __future__ import annotations

import os
import re
import stat
import time
from pathlib import Path
from typing import Sequence

from .errors import CardpressError, GameNotFound
from .i18n import N_, _
from .i18n import _ as tr

#: What a checked file is, as callers name it (``what=``): each is a message, translated where a
#: problem names it (``tr(what)``: every value callers pass is one of these).
FILE_KINDS = (N_("file"), N_("CSV file"), N_("XLSX file"), N_("YAML file"), N_("art file"), N_("card file"),
              N_("deck file"), N_("game definition"), N_("game log"), N_("glossary"), N_("image"),
              N_("output file"), N_("style file"), N_("template"), N_("templates folder"))

_REPO = Path(__file__).resolve().parent.parent


def _first_existing(*candidates: Path) -> Path:
    for c in candidates:
        if c.is_dir():
            return c
    return candidates[0]


def shipped_root() -> Path:
    """Folder holding the shipped ``card_data/`` and ``templates/`` (repo checkout or wheel)."""
    wheel = _REPO / "pipeline" / "_shipped"
    return _REPO if (_REPO / "card_data").is_dir() else wheel


def card_data_root() -> Path:
    return shipped_root() / "card_data"


def templates_root() -> Path:
    return shipped_root() / "templates"


def shipped_games() -> list[str]:
    """Ids of the games shipped with cardpress, sorted."""
    root = card_data_root()
    return sorted(p.name for p in root.iterdir() if (p / "game.yaml").is_file()) if root.is_dir() else []


def resolve_game_dir(game: str | Path) -> Path:
    """Turn ``GAME`` (a shipped id or a folder path) into the folder holding ``game.yaml``.

    A path wins over an id when both could match (``./duel`` is the folder, ``duel`` the id
    unless a folder named ``duel`` with a ``game.yaml`` exists in the working directory).
    """
    as_path = Path(game).expanduser()
    if (as_path / "game.yaml").is_file():
        return as_path.resolve()
    if as_path.name == "game.yaml" and as_path.is_file():
        return as_path.parent.resolve()
    shipped = card_data_root() / str(game)
    if "/" not in str(game) and (shipped / "game.yaml").is_file():
        return shipped
    known = _(", ").join(shipped_games()) or _("none")
    raise GameNotFound(
        _("no game {game!r}: not a shipped game id ({known}) and not a folder with a game.yaml").format(
            game=str(game), known=known)
    )


# ---------------------------------------------------------------------------- untrusted paths


class UnsafePath(CardpressError):
    """A path in a game folder points outside it, or at something that is not a regular file."""


def confine(path: Path, roots: Sequence[Path], what: str = "file") -> Path:
    """``path`` resolved (symlinks followed), checked to lie inside one of ``roots``.

    A game folder is untrusted: an art path, template include or icon may name
    ``../../etc/passwd``, an absolute path or a symlink that leads out. Raises ``UnsafePath``
    (the caller adds file, line and field).

    >>> confine(Path("/g/art/a.png"), [Path("/g")])              # doctest: +SKIP
    PosixPath('/g/art/a.png')
    """
    resolved = Path(os.path.realpath(path))
    for root in roots:
        real_root = Path(os.path.realpath(root))
        if resolved == real_root or real_root in resolved.parents:
            return resolved
    shown = ", ".join(str(r) for r in roots)
    raise UnsafePath(_("{what} {path!r} is outside the game folder ({roots}); "
                       "use a path relative to the folder, without '..' that leaves it").format(
                         what=tr(what), path=str(path), roots=shown))


def check_regular(path: Path, what: str = "file") -> None:
    """Refuse folders, devices, FIFOs and sockets (opening a FIFO waits for a writer, and
    ``/dev/zero`` never ends); a missing file is the caller's to report."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return
    if not stat.S_ISREG(mode):
        raise UnsafePath(_("{what} {path!r} is not a regular file (a folder, device, FIFO or socket); "
                           "cardpress refuses to read it").format(what=tr(what), path=str(path)))


def read_bounded(path: Path, limit: int, what: str = "file") -> bytes:
    """Read a regular file of at most ``limit`` bytes; refuse a larger or special file. The size
    is checked before reading, and again on what was read (the file may grow meanwhile)."""
    check_regular(path, what)
    with open(path, "rb") as fh:
        if os.fstat(fh.fileno()).st_size > limit:
            raise _too_large(path, limit, what)
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise _too_large(path, limit, what)
    return data


def _too_large(path: Path, limit: int, what: str) -> UnsafePath:
    return UnsafePath(_("{what} {path!r} is larger than {size}; cardpress refuses files this large").format(
        what=tr(what), path=str(path), size=_size(limit)))


def _size(n: int) -> str:
    """``16 MB``, ``256 KB``, ``900 bytes``: a limit as a person reads it."""
    for unit, scale in (("MB", 1024 * 1024), ("KB", 1024)):
        if n >= scale:
            return f"{n / scale:g} {unit}"
    return _("{n} bytes").format(n=n)


# ---------------------------------------------------------------------------- per-user data


def user_data_dir() -> Path:
    """Where this user's games and keys live: ``$CARDPRESS_DATA`` or the platform's data dir."""
    env = os.environ.get("CARDPRESS_DATA")
    if env:
        return Path(env)
    import platformdirs  # here, not at import: a tracker command that never needs it skips the cost

    return Path(platformdirs.user_data_dir("cardpress"))


#: How every writer names its temp files: ``.<target>.<pid>.<random>.tmp`` (see ``remove_leftovers``).
TEMP_NAME = re.compile(r"^\.(?P<target>.+)\.(?P<pid>\d+)\.[A-Za-z0-9_]+\.tmp$")
#: A temp file of a process that is alive but this old is also a leftover (the id was reused).
STALE_SECONDS = 24 * 60 * 60


def remove_leftovers(folder: Path) -> list[Path]:
    """Delete temp files in ``folder`` left by writers that were killed; return them."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        match = TEMP_NAME.match(entry.name)
        if not match:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode):
                continue
            pid = int(match["pid"])
            if pid != os.getpid() and process_alive(pid) and now - info.st_mtime < STALE_SECONDS:
                continue  # another build is writing it right now
            if pid == os.getpid() and now - info.st_mtime < STALE_SECONDS:
                continue  # one of our own, still open
            os.unlink(entry.path)
            removed.append(Path(entry.path))
        except OSError:
            continue  # gone already, or not ours to delete
    return removed


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a temp file it owns is then not a leftover)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive, just not ours to signal
    return True
