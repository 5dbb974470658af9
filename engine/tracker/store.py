"""The event store: SQLite (stdlib), WAL, ``synchronous=FULL``, one transaction per command.

One row per log entry: a command with the events it produced (automatic ones included), an
undo or a redo. Rows are only ever appended. ``(game_id, op_id)`` is unique, so a command
retried with the same operation id is found instead of applied twice.

Durability: WAL + ``synchronous=FULL`` fsyncs the WAL at every COMMIT, so an entry whose
command returned is on disk even if the process is killed the next instant.

Integrity — a store file is untrusted input (it may come from someone else, or be damaged):

- **Chained digests.** Each entry stores ``digest = sha256(previous digest + canonical JSON of
  the entry)``; the first entry chains from ``chain_seed``, a digest of the game's row (its
  game, players and, for a designer's folder, the ``game.yaml`` text kept with it). Opening a game re-computes the chain over the stored text (one sha256
  per entry, no JSON parsing), walking the table itself rather than an index, and stops at
  the first entry that does not match: a flipped byte in an entry or in the game's row, a row
  edited with ``sqlite3``, a row deleted or inserted in the middle, SQLite-level damage
  (``database disk image is malformed``) part-way through the table. Then the index is checked
  against the walk (a damaged index makes SQLite return too few rows without any error). The
  game is reported as ``StoreDamaged`` naming the last good entry N, and ``intact_entries``
  (``track export GAME --intact``) recovers entries 1..N.
- **A record outside the database**, ``FILE.seqs``: after a commit the game's last seq and
  digest are written there (temp file + rename, no fsync: it must survive a killed process,
  not a power cut) — at once for the first commit of a process (every CLI command), then at
  most every ``MARK_SECONDS`` and on ``close`` (a long ``track play`` session). When SQLite
  drops WAL frames after a damaged one (its WAL checksums make it ignore the rest of the
  WAL), what remains is a shorter but self-consistent chain; the side file says more was
  acknowledged, so the game is reported damaged instead of silently shorter. A whole game
  lost this way is reported too. The side file only ever lags the database (written after
  the commit), so it never raises a false alarm; when it lags (a power cut, a long session
  killed within ``MARK_SECONDS`` of its last commands) losses up to its recorded seq are
  still detected, losses beyond it are not.
- **File-level checks.** A folder, a missing folder, a 0-byte file (we never leave one: a new
  store is created complete under a temp name and linked into place), a file that is not
  SQLite or holds no cardpress schema, a read-only file or folder, a full disk, a -wal/-shm
  that is a symbolic link: each a ``StoreError`` naming the file. A file SQLite calls
  malformed (flipped bytes in its b-tree pages, truncation) is reopened read-only so each
  game's intact prefix can still be named and exported. Stores of schema 1 (no digests,
  pickled snapshots) are migrated once, in one transaction: digests computed, pickled
  snapshots deleted unread; stores of schema 2 get room for stored definitions, and their old
  "current game" is deleted unread (see ``_add_definitions``).
- **Rows are parsed, never trusted**: ``players`` must be a list of names, ``events`` a list of
  known event records with fields of the right types (``codec``), else ``StoreDamaged``.

Snapshots (a cache of the replay) are data-only JSON, verified against their own checksum and
the chain's digest at their position, and dropped on any mismatch (``replay.py``).

Not detected: a store rewritten consistently by someone with the file (they can recompute the
chain and re-seal a snapshot) — the chain proves the log is intact, not who wrote it; losses
beyond what ``FILE.seqs`` recorded when that file is lost too (e.g. only the ``.sqlite`` is
copied); and damage to the main file's first page (its header), which SQLite reports as "not a
database" — then the whole file is unreadable and only a backup or an export helps.
"""

from __future__ import annotations

from engine.i18n import N_, _
from engine.i18n import _ as tr
import errno
import hashlib
import json
import os
import secrets
import shutil
import sqlite3
import stat
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator

from ..limits import MAX_TEXT_FILE_BYTES
from ..paths import remove_leftovers
from . import codec
from . import events as ev
from .core import TrackerError

#: ``meta.format`` of every store this cardpress writes; a file without it is not ours.
STORE_FORMAT = "cardpress-track-store"
#: 1: no digests, pickled snapshots; 2: chained digests, JSON snapshots, a "current" game in
#: ``meta``; 3: a game of a designer's folder keeps its ``game.yaml`` text, no "current" game.
#: Older schemas are migrated on open.
SCHEMA_VERSION = 3

TABLES = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,          -- shipped game id or the game folder's path
    ruleset TEXT NOT NULL,
    players TEXT NOT NULL,       -- JSON list of names
    created REAL NOT NULL,
    definition TEXT              -- a game folder's game.yaml as it was at `track new` (NULL: shipped game)
);
CREATE TABLE IF NOT EXISTS entries (
    game_id TEXT NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    op_id TEXT NOT NULL,
    kind TEXT NOT NULL,          -- start | command | undo | redo
    command TEXT NOT NULL,
    args TEXT NOT NULL,          -- canonical JSON object
    target INTEGER,              -- undo/redo: the seq of the command entry
    events TEXT NOT NULL,        -- canonical JSON list of event records
    created REAL NOT NULL,
    digest TEXT,                 -- sha256(previous digest + canonical entry), hex
    PRIMARY KEY (game_id, seq),
    UNIQUE (game_id, op_id)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- A cache only: the replayed state after entry ``seq`` (verified JSON, see replay.py).
CREATE TABLE IF NOT EXISTS snapshots (
    game_id TEXT NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""

#: Pragmas for every connection (the benchmark's baseline uses the same).
PRAGMAS = ("PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON",
           "PRAGMA busy_timeout=5000")

#: Seconds a command waits for another writer's transaction before giving up.
BUSY_SECONDS = 5.0

#: Free space below which an SQLite I/O error is taken for a full disk (a WAL frame is ~4 KB).
LOW_DISK_BYTES = 64 * 1024

#: A long-lived store (``track play``, the library) updates ``FILE.seqs`` at most this often and
#: on ``close``: written after every commit it tripled a command's latency (its metadata joins
#: the WAL's fsync), and a record that lags is still never a false alarm.
MARK_SECONDS = 0.5

#: ``FILE.seqs`` format marker.
SEQS_FORMAT = "cardpress-seqs"

#: Longest player name or ruleset id a store row may hold.
MAX_NAME_CHARS = 200
#: Longest game reference (a shipped id or a folder's absolute path: PATH_MAX on Linux).
MAX_GAME_REF_CHARS = 4096
#: ``FILE.seqs`` holds ~100 bytes per game; more than this is not ours (read no further).
MAX_SEQS_BYTES = 4 * 1024 * 1024


class StoreError(TrackerError):
    """The store file cannot be used as it is (named in the message)."""


class StoreUnavailable(StoreError):
    """The store file cannot be opened or written: a folder, a missing folder, read-only, busy."""


class DiskFull(StoreUnavailable):
    """The disk filled up during a write; the transaction was rolled back."""


class NotAStore(StoreError):
    """The file exists but is not a cardpress game store."""


class StoreDamaged(StoreError):
    """The store, or one game in it, is damaged; ``last_good`` entries of ``game_id`` are intact."""

    def __init__(self, message: str, game_id: str | None = None, last_good: int | None = None, why: str = ""):
        self.game_id, self.last_good, self.why = game_id, last_good, why or message
        super().__init__(message)


class UnknownGame(TrackerError):
    """No game with that id in the store."""


class StoreConflict(TrackerError):
    """The log changed under us (another device appended); the command was not applied."""


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    op_id: str
    kind: str
    command: str
    args: dict[str, Any]
    target: int | None
    events: tuple[ev.Event, ...]
    created: float
    #: Chained digest, set by the store (``entry_digest``); "" until stored.
    digest: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "op_id": self.op_id, "kind": self.kind, "command": self.command,
                "args": self.args, "target": self.target, "created": self.created,
                "events": [ev.to_record(e) for e in self.events], "digest": self.digest}

    @classmethod
    def from_json(cls, data: Any, path: str = "") -> "Entry":
        """An exported entry, every field checked (``codec.CodecError`` names the field)."""
        if type(data) is not dict:
            raise codec.CodecError(path, _("expected an entry object"))
        extra = set(data) - {"seq", "op_id", "kind", "command", "args", "target", "created", "events", "digest"}
        if extra:
            raise codec.CodecError(path, _("unknown field {extra!r}").format(extra=sorted(extra)[0]))

        def need(key: str) -> Any:
            if key not in data:
                raise codec.CodecError(f"{path}.{key}", _("missing"))
            return data[key]

        events = need("events")
        if type(events) is not list:
            raise codec.CodecError(f"{path}.events", _("expected a list of events"))
        return cls(seq=codec.decode(need("seq"), int, f"{path}.seq"),
                   op_id=codec.decode(need("op_id"), str, f"{path}.op_id"),
                   kind=codec.decode(need("kind"), str, f"{path}.kind"),
                   command=codec.decode(need("command"), str, f"{path}.command"),
                   args=codec.check_args(data.get("args", {}), f"{path}.args"),
                   target=codec.decode(data.get("target"), int | None, f"{path}.target"),
                   events=tuple(ev.from_record(r, f"{path}.events[{i}]") for i, r in enumerate(events)),
                   created=codec.decode(data.get("created", 0.0), float, f"{path}.created"),
                   digest=codec.decode(data.get("digest", ""), str, f"{path}.digest"))


@dataclass(frozen=True, slots=True)
class GameRow:
    id: str
    game: str
    ruleset: str
    players: tuple[str, ...]
    created: float
    #: A game folder's ``game.yaml`` text as it was when the game started (None: a shipped game,
    #: or a store written before definitions were kept), so the game outlives its folder.
    definition: str | None = None


# ---------------------------------------------------------------------------- digests


_quote = json.encoder.encode_basestring   # json.dumps(text, ensure_ascii=False), without its overhead


def _entry_text(seq: Any, op_id: Any, kind: Any, command: Any, args: str, target: Any, events: str,
                created: Any) -> str:
    """Canonical JSON of an entry, assembled from its stored (canonical) ``args``/``events`` text.

    Equal to ``codec.canonical`` of the entry's JSON form, without parsing anything (opening a
    game re-computes this for every entry, so it avoids ``json.dumps``' per-call cost).
    """
    return (f'{{"args":{args},"command":{_quote(command)},"created":{float.__repr__(float(created))},'
            f'"events":{events},"kind":{_quote(kind)},"op_id":{_quote(op_id)},"seq":{int.__repr__(seq)},'
            f'"target":{"null" if target is None else int.__repr__(target)}}}')


def _digest(previous: str, text: str) -> str:
    return hashlib.sha256((previous + text).encode("utf-8")).hexdigest()


def chain_seed(game: str, ruleset: str, players: tuple[str, ...] | list[str],
               definition: str | None = None) -> str:
    """What entry 1 chains from: the game's row (what is played, by whom, under which stored
    definition), so damage to the row is caught like damage to an entry. The game's id is left
    out: ``import --as`` renames. A row without a stored definition seeds as before definitions
    were kept, so older chains stay valid."""
    row: dict[str, Any] = {"game": game, "players": list(players), "ruleset": ruleset}
    if definition is not None:
        row["definition"] = hashlib.sha256(definition.encode("utf-8")).hexdigest()
    return hashlib.sha256(codec.canonical(row).encode("utf-8")).hexdigest()


def _mismatch(seq: int) -> str:
    if seq == 1:
        return _("entry 1 (or the game's row it seals: its game, players and stored definition) does not "
                 "match its checksum")
    return _("entry {seq} does not match its checksum").format(seq=seq)


def canonical_parts(entry: Entry) -> tuple[str, str]:
    """The canonical ``args`` and ``events`` text of an entry, as stored."""
    return codec.canonical(entry.args), codec.canonical([ev.to_record(e) for e in entry.events])


def entry_digest(previous: str, entry: Entry) -> str:
    """The chained digest of ``entry`` after an entry whose digest is ``previous``."""
    args, events = canonical_parts(entry)
    return _digest(previous, _entry_text(entry.seq, entry.op_id, entry.kind, entry.command, args, entry.target,
                                         events, entry.created))


def _row_fits(row: tuple) -> bool:
    """The stored columns have the types we write (a row edited with sqlite3 may not)."""
    seq, op_id, kind, command, args, target, events, created, digest = row
    return (type(seq) is int and type(op_id) is str and type(kind) is str and type(command) is str
            and type(args) is str and (target is None or type(target) is int) and type(events) is str
            and type(created) in _NUMBER and type(digest) is str)


_NUMBER = (float, int)


def _why(exc: BaseException) -> str:
    return "text in it is not valid UTF-8" if isinstance(exc, UnicodeDecodeError) else str(exc)


def _is_damage(exc: BaseException) -> bool:
    """An error that means the bytes are bad (not a lock, a full disk or a read-only file)."""
    if isinstance(exc, UnicodeDecodeError):
        return True
    text = str(exc).lower()
    if isinstance(exc, sqlite3.OperationalError):
        return "malformed" in text or "corrupt" in text or "decode" in text
    return isinstance(exc, sqlite3.DatabaseError)


def _damaged_game(path: Path, game_id: str, last_good: int, why: str) -> StoreDamaged:
    if last_good:
        tail = _("`cardpress track export {game_id} --intact -o {game_id}-intact.json` saves entries "
                 "1..{last_good}").format(game_id=game_id, last_good=last_good)
    else:
        tail = _("not even its first entry is intact")
    return StoreDamaged(_("game {game_id} in {path} is damaged after entry {last_good} (the last good entry): {why}; {tail}").format(game_id=game_id, path=path, last_good=last_good, why=why, tail=tail), game_id, last_good, why)


def _damaged_file(path: Path, exc: BaseException) -> StoreDamaged:
    return StoreDamaged(_("{path} is damaged ({exc}); `cardpress track export GAME --intact -o FILE` saves the entries of a game that can still be read").format(path=path, exc=exc))


# ---------------------------------------------------------------------------- the store


class Store:
    """An open event store. Use as a context manager or call ``close()``.

    Raises ``StoreError`` subclasses (naming the file) instead of ``sqlite3`` errors.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.seqs_path = self.path.with_name(self.path.name + ".seqs")
        self._pending: dict[str, tuple[int, str]] = {}     # appended in the open transaction
        self._unmarked: dict[str, tuple[int, str]] = {}    # committed, not yet in FILE.seqs
        self._marked_at = -MARK_SECONDS
        self.conn: sqlite3.Connection | None = None
        #: Why the file is damaged, when it opened only for reading what is left (see ``_open_damaged``).
        self.damage: str = ""
        #: What the games' ``definition`` is read from (``NULL`` in a damaged file of schema 2).
        self._definition_column = "definition"
        self._check_file()
        try:
            self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_SECONDS)
            for pragma in PRAGMAS:
                self.conn.execute(pragma)
            self._check_schema()
            # FILE.seqs temp files of processes killed between writing and renaming them.
            remove_leftovers(self.seqs_path.parent)
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            self.close()
            error = self._error(exc, N_("open"))
            if not isinstance(error, StoreDamaged) or not self._open_damaged(str(exc)):
                raise error from None
        except BaseException:
            self.close()
            raise

    def _open_damaged(self, damage: str) -> bool:
        """Open a damaged file read-only, to name its games and recover their intact entries.

        ``writable_schema`` makes SQLite read a truncated file up to its end instead of refusing
        it whole (its header promises more pages than there are); ``query_only`` keeps us from
        writing to it.
        """
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=BUSY_SECONDS)
            conn.execute("PRAGMA writable_schema=ON")
            conn.execute("PRAGMA query_only=ON")
            marker = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.Error:
            return False
        if not marker or marker[0] != STORE_FORMAT:
            conn.close()
            return False
        try:
            columns = {r[1] for r in conn.execute("PRAGMA table_info(games)")}
        except sqlite3.Error:
            columns = set()
        if "definition" not in columns:
            self._definition_column = "NULL"     # a schema-2 file: read-only here, so not migrated
        self.conn, self.damage = conn, damage
        return True

    def _refuse_damaged(self) -> None:
        if self.damage:
            names = ""
            try:
                ids = [r[0] for r in self.conn.execute("SELECT id FROM games NOT INDEXED")]
                names = f"; games in it: {', '.join(map(str, ids))}" if ids else ""
            except sqlite3.Error:
                pass
            raise StoreDamaged(_("{path} is damaged ({damage}){names}; `cardpress track export GAME --intact -o FILE` saves the entries of a game that are still intact").format(path=self.path, damage=self.damage, names=names))

    # ------------------------------------------------------------------ opening

    def _check_file(self) -> None:
        path = self.path
        try:
            st = path.stat()
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise StoreUnavailable(_("cannot open {path}: {strerror}").format(path=path, strerror=exc.strerror)) from None
        if st is None:
            if not path.parent.is_dir():
                raise StoreUnavailable(_("cannot create {path}: the folder {parent} does not exist").format(path=path, parent=path.parent))
            if not os.access(path.parent, os.W_OK):
                raise StoreUnavailable(_("cannot create {path}: its folder is read-only").format(path=path))
            self._create()
            return
        if stat.S_ISDIR(st.st_mode):
            raise StoreUnavailable(_("{path} is a folder, not a game store file (give --db a file name)").format(path=path))
        if not stat.S_ISREG(st.st_mode):
            raise StoreUnavailable(_("{path} is not a regular file").format(path=path))
        if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK):
            # SQLite needs to write the file and its -wal/-shm beside it, even to read a WAL store.
            raise StoreUnavailable(_("{path} is read-only (or its folder is): cardpress writes the store and its -wal/-shm files beside it, even to read it").format(path=path))
        wal = path.with_name(path.name + "-wal")
        for side in (wal, path.with_name(path.name + "-shm")):
            if side.is_symlink():
                # SQLite would write its journal through the link, into whatever file it names.
                raise StoreUnavailable(_("{side} is a symbolic link; a store's -wal/-shm files must be its own (delete the link)").format(side=side))
        if st.st_size == 0 and not (wal.is_file() and wal.stat().st_size > 0):
            # SQLite would take 0 bytes for a new empty database; but every store we create has
            # its schema and format marker before it gets its name, so 0 bytes means lost data.
            raise StoreDamaged(_("{path} is empty (0 bytes): a cardpress store is never empty once created, so its data was lost (truncated?); restore it from a backup or an export, or delete it to start a new store").format(path=path))

    def _create(self) -> None:
        """Create a complete store under a temp name, then link it into place (never a 0-byte store)."""
        path = self.path
        tmp = path.with_name(f".{path.name}.new-{secrets.token_hex(4)}")
        try:
            conn = sqlite3.connect(tmp, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.executescript(TABLES)
                conn.executemany("INSERT INTO meta(key, value) VALUES (?, ?)",
                                 [("format", STORE_FORMAT), ("schema", str(SCHEMA_VERSION))])
            finally:
                conn.close()
            self.seqs_path.unlink(missing_ok=True)   # a record of a store that is gone
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass                                  # another process created it first: use theirs
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV) or path.exists():
                    raise
                os.rename(tmp, path)                  # a file system without hard links
        except sqlite3.Error as exc:
            raise self._error(exc, N_("create")) from None
        except OSError as exc:
            raise self._os_error(exc, N_("create")) from None
        finally:
            for leftover in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm")):
                try:
                    leftover.unlink(missing_ok=True)
                except OSError:
                    pass

    def _check_schema(self) -> None:
        conn = self.conn
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall()) if "meta" in tables else {}
        if meta.get("format") == STORE_FORMAT:
            version = meta.get("schema")
            if version not in (str(SCHEMA_VERSION), *_UPGRADABLE):
                raise NotAStore(_("{path} has store schema {version!r}; this cardpress reads schema {SCHEMA_VERSION} (a newer cardpress wrote it?)").format(path=self.path, version=version, SCHEMA_VERSION=SCHEMA_VERSION))
            if not {"games", "entries", "snapshots"} <= tables:
                raise StoreDamaged(_("{path} is damaged: its tables are missing").format(path=self.path))
            if version != str(SCHEMA_VERSION):
                self._upgrade()
            return
        if {"games", "entries", "meta", "snapshots"} <= tables and "format" not in meta:
            self._migrate()
            return
        raise NotAStore(_("{path} is not a cardpress game store (it has no cardpress tables); give --db another file name").format(path=self.path))

    def _migrate(self) -> None:
        """Schema 1 → 2, once, in one transaction: digests for every entry, pickled snapshots deleted unread."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone() is None:
                columns = {r[1] for r in conn.execute("PRAGMA table_info(entries)")}
                if "digest" not in columns:
                    conn.execute("ALTER TABLE entries ADD COLUMN digest TEXT")
                conn.execute("DELETE FROM snapshots")   # schema 1 pickled them: never unpickle a file's bytes
                self._add_definitions()
                for (game_id,) in conn.execute("SELECT id FROM games").fetchall():
                    self._migrate_game(game_id)
                conn.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                                 [("format", STORE_FORMAT), ("schema", str(SCHEMA_VERSION))])
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _upgrade(self) -> None:
        """Schema 2 → 3, once, in one transaction (another process may have done it first)."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            if conn.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] != str(SCHEMA_VERSION):
                self._add_definitions()
                conn.execute("UPDATE meta SET value = ? WHERE key = 'schema'", (str(SCHEMA_VERSION),))
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def _add_definitions(self) -> None:
        """Room for stored definitions, and the end of the "current game": a command without
        ``--game`` used to go to the last game started or resumed, which sent one table's
        commands to another table's game; the old key is deleted, never read. Games stored
        before keep no definition (their folder is read, as it always was) and seed their chain
        as before."""
        columns = {r[1] for r in self.conn.execute("PRAGMA table_info(games)")}
        if "definition" not in columns:
            self.conn.execute("ALTER TABLE games ADD COLUMN definition TEXT")
        self.conn.execute("DELETE FROM meta WHERE key = 'current'")

    def _migrate_game(self, game_id: str) -> None:
        """Digest a game's entries in order; from an unreadable one on, digests stay NULL (reported on open)."""
        try:
            previous = self._seed(game_id)
        except StoreDamaged:
            return
        rows = self.conn.execute("SELECT seq, op_id, kind, command, args, target, events, created FROM entries "
                                 "WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        for k, row in enumerate(rows, 1):
            try:
                if row[0] != k or not _row_fits((*row, "")):
                    return
                entry = _parse_row((*row, ""), "")
            except (codec.CodecError, ValueError, RecursionError):
                return
            args, events = canonical_parts(entry)
            previous = _digest(previous, _entry_text(row[0], row[1], row[2], row[3], args, row[5], events, row[7]))
            self.conn.execute("UPDATE entries SET args = ?, events = ?, digest = ? WHERE game_id = ? AND seq = ?",
                              (args, events, previous, game_id, row[0]))

    # ------------------------------------------------------------------ errors

    def _error(self, exc: sqlite3.Error | UnicodeDecodeError, doing: str) -> StoreError:
        """One of our errors, naming the file, for an sqlite3 error while ``doing`` something
        (``doing``: an N_-marked verb, "read", "write"…, translated here)."""
        if isinstance(exc, UnicodeDecodeError):
            # SQLite's own message quoted damaged bytes of the schema (or a text value was damaged).
            return _damaged_file(self.path, _("text in it is not valid UTF-8"))
        text = str(exc)
        low = text.lower()
        if "full" in low or (("disk i/o" in low or "unable to open" in low) and self._disk_full()):
            return DiskFull(_("the disk is full: could not {doing} {path}; nothing was written "
                              "(the command was not applied)").format(doing=tr(doing), path=self.path))
        if "readonly" in low or "read-only" in low:
            return StoreUnavailable(_("{path} is read-only (or its folder is): cannot {doing} it").format(path=self.path, doing=tr(doing)))
        if "locked" in low or "busy" in low:
            return StoreUnavailable(_("{path} is busy (another cardpress has been writing for {BUSY_SECONDS:g} s); try again").format(path=self.path, BUSY_SECONDS=BUSY_SECONDS))
        if "unable to open" in low:
            return StoreUnavailable(_("cannot {doing} {path}: unable to open it (is its folder writable?)").format(doing=tr(doing), path=self.path))
        if "disk i/o" in low:
            return StoreUnavailable(_("cannot {doing} {path}: disk I/O error").format(doing=tr(doing), path=self.path))
        if "decode" in low:
            return _damaged_file(self.path, exc)
        if "not a database" in low:
            return NotAStore(_("{path} is not a cardpress game store (not an SQLite database, or damaged beyond reading: {text})").format(path=self.path, text=text))
        if isinstance(exc, (sqlite3.DatabaseError,)) and not isinstance(exc, (sqlite3.ProgrammingError,
                                                                              sqlite3.InterfaceError)):
            return _damaged_file(self.path, exc)
        return StoreError(_("{path}: {text}").format(path=self.path, text=text))

    def _disk_full(self) -> bool:
        """SQLite reports a full disk while creating its -wal/-shm files as an I/O error; look."""
        try:
            return shutil.disk_usage(self.path.parent).free < LOW_DISK_BYTES
        except OSError:
            return False

    def _os_error(self, exc: OSError, doing: str) -> StoreError:
        if exc.errno == errno.ENOSPC:
            return DiskFull(_("the disk is full: could not {doing} {path}").format(doing=tr(doing), path=self.path))
        if exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            return StoreUnavailable(_("cannot {doing} {path}: {strerror} (its folder is read-only?)").format(doing=tr(doing), path=self.path, strerror=exc.strerror))
        return StoreUnavailable(_("cannot {doing} {path}: {value}").format(doing=tr(doing), path=self.path, value=exc.strerror or exc))

    @contextmanager
    def _guard(self, doing: str) -> Iterator[None]:
        try:
            yield
        except (sqlite3.Error, UnicodeDecodeError) as exc:
            raise self._error(exc, doing) from None

    # ------------------------------------------------------------------ lifetime

    def close(self) -> None:
        self.flush_marks()
        if self.conn is not None:
            try:
                self.conn.close()
            except sqlite3.Error:
                pass
            self.conn = None

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT`` (rolled back on any exception); then ``FILE.seqs`` is updated."""
        self._refuse_damaged()
        with self._guard(N_("write")):
            self.conn.execute("BEGIN IMMEDIATE")
        self._pending = {}
        try:
            yield self.conn
            with self._guard(N_("write")):
                self.conn.execute("COMMIT")
        except BaseException:
            try:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            self._pending = {}
            raise
        if self._pending:
            self._unmarked.update(self._pending)
            self._pending = {}
            if time.monotonic() - self._marked_at >= MARK_SECONDS:
                self.flush_marks()

    # ------------------------------------------------------------------ FILE.seqs

    def _read_marks(self) -> dict[str, tuple[int, str]]:
        """What ``FILE.seqs`` says was acknowledged, per game; {} when absent or unreadable."""
        try:
            if not self.seqs_path.is_file():     # absent, or a FIFO/device that must not be read
                return {}
            with open(self.seqs_path, "rb") as fh:
                data = json.loads(fh.read(MAX_SEQS_BYTES))
            games = data["games"] if data.get("format") == SEQS_FORMAT else {}
            return {str(g): (int(v[0]), str(v[1])) for g, v in games.items()}
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError):
            return {}

    def recorded(self, game_id: str) -> int:
        """The last seq ``FILE.seqs`` says was written for ``game_id`` (0 if none)."""
        return self._read_marks().get(game_id, (0, ""))[0]

    def flush_marks(self) -> None:
        """Write committed high-water marks to ``FILE.seqs`` now (``close`` does it too)."""
        if self._unmarked:
            self._write_marks(self._unmarked)
            self._unmarked = {}
        self._marked_at = time.monotonic()

    def _write_marks(self, done: dict[str, tuple[int, str]]) -> None:
        """Record the new high-water marks. Best effort: a failure only weakens loss detection."""
        marks = self._read_marks()
        for gid, (seq, digest) in done.items():
            if marks.get(gid, (0, ""))[0] < seq:
                marks[gid] = (seq, digest)
        tmp = self.seqs_path.with_name(f".{self.seqs_path.name}.{os.getpid()}.{secrets.token_hex(3)}.tmp")
        try:
            tmp.write_text(json.dumps({"format": SEQS_FORMAT, "games": {g: list(v) for g, v in marks.items()}}),
                           encoding="utf-8")
            os.replace(tmp, self.seqs_path)
        except OSError:
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass

    # ------------------------------------------------------------------ games

    def add_game(self, row: GameRow) -> None:
        """Insert a game row (call inside ``transaction``)."""
        try:
            self.conn.execute("INSERT INTO games(id, game, ruleset, players, created, definition) "
                              "VALUES (?,?,?,?,?,?)",
                              (row.id, row.game, row.ruleset, json.dumps(list(row.players), ensure_ascii=False),
                               row.created, row.definition))
        except sqlite3.IntegrityError:
            raise TrackerError(_("a game with id {row_id!r} already exists in {path}").format(row_id=row.id, path=self.path)) from None
        except sqlite3.Error as exc:
            raise self._error(exc, N_("write")) from None

    def _game_row(self, row: tuple) -> GameRow:
        gid, game, ruleset, players, created, definition = row
        try:
            names = json.loads(players) if type(players) is str else None
        except (ValueError, RecursionError):
            names = None
        ok = (type(gid) is str and type(game) is str and type(ruleset) is str and type(created) in (int, float)
              and type(names) is list and all(type(n) is str and 0 < len(n) <= MAX_NAME_CHARS for n in names)
              and len(game) <= MAX_GAME_REF_CHARS and len(ruleset) <= MAX_NAME_CHARS
              and (definition is None or (type(definition) is str and len(definition) <= MAX_TEXT_FILE_BYTES)))
        if not ok:
            raise StoreDamaged(_("game {gid!r} in {path} is damaged: its game row (game, players, stored definition) is unreadable").format(gid=gid, path=self.path), gid if type(gid) is str else None, 0)
        return GameRow(gid, game, ruleset, tuple(names), float(created), definition)

    def game(self, game_id: str) -> GameRow:
        mark = self._read_marks().get(game_id)  # before the table: see verify()
        with self._guard(N_("read")):
            row = self.conn.execute(f"SELECT id, game, ruleset, players, created, {self._definition_column} "
                                    "FROM games NOT INDEXED WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            if mark:
                raise self._short(game_id, 0, mark[0])
            raise UnknownGame(_("no game {game_id!r} in {path} (see: cardpress track list)").format(game_id=game_id, path=self.path))
        return self._game_row(row)

    def game_ids(self) -> list[str]:
        """The ids of the stored games, read from the table itself (no index, no side record):
        this works on a damaged file too, so a store's only game can still be opened and its
        damage named precisely."""
        with self._guard(N_("read")):
            return [r[0] for r in self.conn.execute("SELECT id FROM games NOT INDEXED ORDER BY rowid")
                    if type(r[0]) is str]

    def games(self) -> list[tuple[GameRow, int, float]]:
        """Every game with its entry count and last activity, most recent first.

        Raises ``StoreDamaged`` when a game ``FILE.seqs`` recorded is gone (lost WAL frames).
        """
        self._refuse_damaged()
        marks = self._read_marks()  # before the table: see verify()
        with self._guard(N_("read")):
            rows = self.conn.execute(
                f"SELECT g.id, g.game, g.ruleset, g.players, g.created, {self._definition_column}, COUNT(e.seq), "
                "COALESCE(MAX(e.created), g.created) "
                "FROM games g LEFT JOIN entries e ON e.game_id = g.id GROUP BY g.id ORDER BY 8 DESC").fetchall()
        out = [(self._game_row(r[:6]), r[6], r[7]) for r in rows]
        known = {r.id: n for r, n, _rest in out}
        for gid, (seq, _rest) in marks.items():
            if known.get(gid, 0) < seq:
                raise self._short(gid, known.get(gid, 0), seq)
        return out

    def _short(self, game_id: str, have: int, recorded: int) -> StoreDamaged:
        if have == 0:
            return StoreDamaged(_("game {game_id} in {path} is missing: {recorded} entries of it were written on this computer (see {name}); the store lost them (if you restored an older copy on purpose, delete {name})").format(game_id=game_id, path=self.path, recorded=recorded, name=self.seqs_path.name), game_id, 0)
        return _damaged_game(self.path, game_id, have, _("{recorded} entries were written, only {have} remain (part of the store was lost, e.g. a damaged -wal file; if you restored an older copy on purpose, delete {name})").format(recorded=recorded, have=have, name=self.seqs_path.name))

    # ------------------------------------------------------------------ entries

    def last_seq(self, game_id: str) -> int:
        with self._guard(N_("read")):
            return self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?",
                                     (game_id,)).fetchone()[0]

    def find_op(self, game_id: str, op_id: str) -> int | None:
        with self._guard(N_("read")):
            row = self.conn.execute("SELECT seq FROM entries WHERE game_id = ? AND op_id = ?",
                                    (game_id, op_id)).fetchone()
        return row[0] if row else None

    def _seed(self, game_id: str) -> str:
        row = self.game(game_id)
        return chain_seed(row.game, row.ruleset, row.players, row.definition)

    def digest_at(self, game_id: str, seq: int) -> str | None:
        if seq == 0:
            return self._seed(game_id)
        with self._guard(N_("read")):
            row = self.conn.execute("SELECT digest FROM entries WHERE game_id = ? AND seq = ?",
                                    (game_id, seq)).fetchone()
        return row[0] if row else None

    def append(self, game_id: str, entry: Entry) -> Entry:
        """Insert one entry, chained to the one before it (call inside ``transaction``); returns it with its digest."""
        previous = self.digest_at(game_id, entry.seq - 1)
        if previous is None:
            raise StoreConflict(_("entry {seq} of {game_id} would follow a missing entry").format(seq=entry.seq, game_id=game_id))
        args, events = canonical_parts(entry)
        digest = _digest(previous, _entry_text(entry.seq, entry.op_id, entry.kind, entry.command, args,
                                               entry.target, events, float(entry.created)))
        try:
            self.conn.execute(
                "INSERT INTO entries(game_id, seq, op_id, kind, command, args, target, events, created, digest) "
                "VALUES (?,?,?,?,?,?,?,?,?,?)",
                (game_id, entry.seq, entry.op_id, entry.kind, entry.command, args, entry.target, events,
                 float(entry.created), digest))
        except sqlite3.IntegrityError as exc:
            raise StoreConflict(_("entry {seq} or operation {op_id!r} already exists ({exc})").format(seq=entry.seq, op_id=entry.op_id, exc=exc)) from None
        except sqlite3.Error as exc:
            raise self._error(exc, N_("write")) from None
        self._pending[game_id] = (entry.seq, digest)
        return replace(entry, digest=digest, created=float(entry.created))

    _COLUMNS = "seq, op_id, kind, command, args, target, events, created, digest"

    def verify(self, game_id: str) -> tuple[int, str]:
        """Check the game's digest chain (and ``FILE.seqs``); its last seq and digest.

        Raises ``StoreDamaged`` naming the last good entry. Reads the stored text only, no JSON
        parsing: ~7 µs per entry (10,000 in ~70 ms).
        """
        if self.damage:
            kept, _rest = self.intact_entries(game_id)
            raise _damaged_game(self.path, game_id, len(kept), _("the database file is damaged ({damage})").format(damage=self.damage))
        # FILE.seqs first, the database after: marks are written only after their commit, so a
        # mark read first never runs ahead of the table read next — even while another writer
        # commits in between (read the other way round, that race looked like lost entries).
        mark = self._read_marks().get(game_id)
        good, digest, why = self._walk(game_id)
        if why:
            raise _damaged_game(self.path, game_id, good, why)
        if mark and mark[0] > good:
            raise self._short(game_id, good, mark[0])
        if mark and self.digest_at(game_id, mark[0]) != mark[1]:
            raise _damaged_game(self.path, game_id, mark[0] - 1, _("entry {mark} differs from the one written on this computer (see {name})").format(mark=mark[0], name=self.seqs_path.name))
        return good, digest

    def _walk(self, game_id: str) -> tuple[int, str, str]:
        """(last good seq, its digest, why the next one is not good — "" when all are).

        Walks the table itself in insertion order, not an index: a damaged index makes SQLite
        return too few rows without any error, so the index is then checked against the walk.
        """
        with self._one_snapshot():
            return self._walk_in_snapshot(game_id)

    @contextmanager
    def _one_snapshot(self) -> Iterator[None]:
        """Statements inside read one state of the database. Without it each SELECT sees the
        store as of its own start, and a writer committing between the walk and the index check
        looked like a damaged index."""
        if self.conn.in_transaction:
            yield  # already inside a transaction: it is the snapshot
            return
        self.conn.execute("BEGIN")
        try:
            yield
        finally:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")  # read only: nothing to keep

    def _walk_in_snapshot(self, game_id: str) -> tuple[int, str, str]:
        good, previous = 0, self._seed(game_id)
        try:
            cursor = self.conn.execute(f"SELECT {self._COLUMNS} FROM entries NOT INDEXED WHERE game_id = ? "
                                       "ORDER BY rowid", (game_id,))
            for row in cursor:
                if not _row_fits(row):
                    return good, previous, _("entry {seq} has a value of the wrong type").format(seq=good + 1)
                seq, op_id, kind, command, args, target, events, created, digest = row
                if seq != good + 1:
                    return good, previous, _("entry {seq} is missing").format(seq=good + 1)
                expected = _digest(previous, _entry_text(seq, op_id, kind, command, args, target, events, created))
                if digest != expected:
                    return good, previous, _mismatch(seq)
                good, previous = seq, digest
            if good == 0:
                return good, previous, _("entry 1 is missing (a game is stored with its setup entry)")
            indexed = self.conn.execute("SELECT COUNT(*), MAX(seq) FROM entries WHERE game_id = ?",
                                        (game_id,)).fetchone()
            if tuple(indexed) != (good, good) or self.digest_at(game_id, good) != previous:
                return good, previous, _("the database's index is damaged (it finds {indexed} entries, the "
                                          "table holds {good})").format(indexed=indexed[0], good=good)
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            if not _is_damage(exc):
                raise self._error(exc, N_("read")) from None
            return good, previous, _("the database file is damaged ({why})").format(why=_why(exc))
        return good, previous, ""

    def entries(self, game_id: str, after: int = 0) -> list[Entry]:
        """Entries after seq ``after``, parsed and chain-checked (``StoreDamaged`` at the first bad one)."""
        previous = self.digest_at(game_id, after)
        out = []
        with self._guard(N_("read")):
            rows = self.conn.execute(f"SELECT {self._COLUMNS} FROM entries WHERE game_id = ? AND seq > ? "
                                     "ORDER BY seq", (game_id, after)).fetchall()
        for row in rows:
            entry = self._checked(game_id, row, previous, after + len(out) + 1)
            previous = entry.digest
            out.append(entry)
        return out

    def entry(self, game_id: str, seq: int) -> Entry:
        with self._guard(N_("read")):
            row = self.conn.execute(f"SELECT {self._COLUMNS} FROM entries WHERE game_id = ? AND seq = ?",
                                    (game_id, seq)).fetchone()
        if row is None:
            # Only entries the chain walk has seen are asked for: not finding one is a bad index.
            raise _damaged_game(self.path, game_id, seq - 1, _("entry {seq} cannot be found through the database's index (the index is damaged)").format(seq=seq))
        return self._checked(game_id, row, self.digest_at(game_id, seq - 1), seq)

    def _checked(self, game_id: str, row: tuple, previous: str | None, expect: int) -> Entry:
        if previous is None or not _row_fits(row) or row[0] != expect:
            raise _damaged_game(self.path, game_id, expect - 1, _("entry {expect} is missing or unreadable").format(expect=expect))
        if row[8] != _digest(previous, _entry_text(*row[:8])):
            raise _damaged_game(self.path, game_id, expect - 1, _mismatch(expect))
        try:
            return _parse_row(row, f"entry {expect}")
        except (codec.CodecError, ValueError, RecursionError) as exc:
            raise _damaged_game(self.path, game_id, expect - 1, _("entry {expect} is unreadable ({exc})").format(expect=expect, exc=exc)) from None

    def intact_entries(self, game_id: str) -> tuple[list[Entry], str]:
        """The longest readable, chain-checked prefix of a game's log, and why it stops ("" = complete).

        Scans the table itself in insertion order (not through its index, whose pages may be the
        damaged ones) and stops at the first row that cannot be read or does not chain.
        """
        out: list[Entry] = []
        previous = self._seed(game_id)
        try:
            cursor = self.conn.execute(f"SELECT {self._COLUMNS} FROM entries NOT INDEXED WHERE game_id = ? "
                                       "ORDER BY rowid", (game_id,))
            for row in cursor:
                try:
                    entry = self._checked(game_id, row, previous, len(out) + 1)
                except StoreDamaged as exc:
                    return out, exc.why
                out.append(entry)
                previous = entry.digest
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            if not _is_damage(exc):
                raise self._error(exc, N_("read")) from None
            return out, _("the database file is damaged after that ({why})").format(why=_why(exc))
        return out, ""

    # ------------------------------------------------------------------ snapshots (a cache)

    def save_snapshot(self, game_id: str, seq: int, data: bytes) -> None:
        with self.transaction():
            self.conn.execute("INSERT OR REPLACE INTO snapshots(game_id, seq, data) VALUES (?,?,?)",
                              (game_id, seq, data))
            self.conn.execute("DELETE FROM snapshots WHERE game_id = ? AND seq < ?", (game_id, seq))

    def latest_snapshot(self, game_id: str) -> tuple[int, Any] | None:
        with self._guard(N_("read")):
            row = self.conn.execute("SELECT seq, data FROM snapshots WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                                    (game_id,)).fetchone()
        return (row[0], row[1]) if row else None

    def drop_snapshots(self, game_id: str) -> None:
        """Delete a game's snapshots (one failed its checks; the log is replayed instead)."""
        with self.transaction():
            self.conn.execute("DELETE FROM snapshots WHERE game_id = ?", (game_id,))

    # ------------------------------------------------------------------ which games are still played

    def ended(self) -> set[str]:
        """Ids of the games whose end is in effect, read from a few rows per game, replaying none.

        Once a game has ended only undo and redo are accepted (``GameOver``), so a game is over
        exactly when its last command entry ended it and is in effect: no undo of it since, or
        a redo after the last undo. Only entries after that one are read (the undo/redo tail).
        The marker cannot be faked by text a player typed: inside a JSON string its quotes are
        escaped, so ``"type":"GameEnded"`` only ever matches an event's own type field.
        """
        with self._guard(N_("read")):
            rows = self.conn.execute(
                "SELECT g.id FROM games g WHERE ("
                f"  SELECT instr(e.events, '{_ENDED_MARK}') > 0 AND COALESCE(("
                "    SELECT u.kind FROM entries u WHERE u.game_id = e.game_id AND u.seq > e.seq "
                "    AND u.target = e.seq AND u.kind IN ('undo', 'redo') ORDER BY u.seq DESC LIMIT 1), 'redo') = 'redo' "
                "  FROM entries e WHERE e.game_id = g.id AND e.kind = 'command' ORDER BY e.seq DESC LIMIT 1)"
            ).fetchall()
        return {r[0] for r in rows if type(r[0]) is str}

#: Store schemas this cardpress migrates on open.
_UPGRADABLE = ("2",)

#: How an ending event's type reads in an entry's canonical ``events`` text.
_ENDED_MARK = codec.canonical({codec.TAG: ev.GameEnded.__name__})[1:-1]


def _parse_row(row: tuple, where: str) -> Entry:
    """A stored row → ``Entry``, every field checked; raises ``CodecError``/``ValueError``."""
    seq, op_id, kind, command, args, target, events, created, digest = row
    parsed_args = codec.check_args(json.loads(args), f"{where}: args")
    records = json.loads(events)
    if type(records) is not list:
        raise codec.CodecError(f"{where}: events", _("expected a list of events"))
    return Entry(seq, op_id, kind, command, parsed_args, target,
                 tuple(ev.from_record(r, f"{where}: events[{i}]") for i, r in enumerate(records)),
                 float(created), digest)


def now() -> float:
    return time.time()
