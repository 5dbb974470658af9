"""The event store: SQLite (stdlib), WAL, ``synchronous=FULL``, one transaction per command.

One row per log entry: a command with the events it produced (automatic ones included), an
undo or a redo. Rows are only ever appended. ``(game_id, op_id)`` is unique, so a command
retried with the same operation id is found instead of applied twice.

Durability: WAL + ``synchronous=FULL`` fsyncs the WAL at every COMMIT, so an entry whose
command returned is on disk even if the process is killed the next instant.
"""

from __future__ import annotations

import json
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from . import events as ev
from .core import TrackerError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,          -- shipped game id or the game folder's path
    ruleset TEXT NOT NULL,
    players TEXT NOT NULL,       -- JSON list of names
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS entries (
    game_id TEXT NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    op_id TEXT NOT NULL,
    kind TEXT NOT NULL,          -- start | command | undo | redo
    command TEXT NOT NULL,
    args TEXT NOT NULL,          -- JSON object
    target INTEGER,              -- undo/redo: the seq of the command entry
    events TEXT NOT NULL,        -- JSON list of event records
    created REAL NOT NULL,
    PRIMARY KEY (game_id, seq),
    UNIQUE (game_id, op_id)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- A cache only: the replayed state after entry ``seq``. Deleting it loses nothing.
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

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "op_id": self.op_id, "kind": self.kind, "command": self.command,
                "args": self.args, "target": self.target, "created": self.created,
                "events": [ev.to_record(e) for e in self.events]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Entry":
        return cls(seq=int(data["seq"]), op_id=str(data["op_id"]), kind=str(data["kind"]),
                   command=str(data["command"]), args=dict(data.get("args") or {}), target=data.get("target"),
                   events=tuple(ev.from_record(r) for r in data["events"]), created=float(data.get("created", 0)))


@dataclass(frozen=True, slots=True)
class GameRow:
    id: str
    game: str
    ruleset: str
    players: tuple[str, ...]
    created: float


def _row_to_entry(row: tuple) -> Entry:
    seq, op_id, kind, command, args, target, events, created = row
    return Entry(seq, op_id, kind, command, json.loads(args), target,
                 tuple(ev.from_record(r) for r in json.loads(events)), created)


class Store:
    """An open event store. Use as a context manager or call ``close()``."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(self.path, isolation_level=None, timeout=5.0)
        for pragma in PRAGMAS:
            self.conn.execute(pragma)
        self.conn.executescript(SCHEMA)  # idempotent (IF NOT EXISTS); executescript commits by itself

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT`` (rolled back on any exception)."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # -------------------------------------------------------------------- games

    def add_game(self, row: GameRow) -> None:
        """Insert a game row (call inside ``transaction``)."""
        try:
            self.conn.execute("INSERT INTO games(id, game, ruleset, players, created) VALUES (?,?,?,?,?)",
                              (row.id, row.game, row.ruleset, json.dumps(list(row.players), ensure_ascii=False),
                               row.created))
        except sqlite3.IntegrityError:
            raise TrackerError(f"a game with id {row.id!r} already exists in {self.path}") from None

    def game(self, game_id: str) -> GameRow:
        row = self.conn.execute("SELECT id, game, ruleset, players, created FROM games WHERE id = ?",
                                (game_id,)).fetchone()
        if row is None:
            raise UnknownGame(f"no game {game_id!r} in {self.path} (see: cardpress track list)")
        return GameRow(row[0], row[1], row[2], tuple(json.loads(row[3])), row[4])

    def games(self) -> list[tuple[GameRow, int, float]]:
        """Every game with its entry count and last activity, most recent first."""
        rows = self.conn.execute(
            "SELECT g.id, g.game, g.ruleset, g.players, g.created, COUNT(e.seq), COALESCE(MAX(e.created), g.created) "
            "FROM games g LEFT JOIN entries e ON e.game_id = g.id GROUP BY g.id ORDER BY 7 DESC").fetchall()
        return [(GameRow(r[0], r[1], r[2], tuple(json.loads(r[3])), r[4]), r[5], r[6]) for r in rows]

    # -------------------------------------------------------------------- entries

    def last_seq(self, game_id: str) -> int:
        return self.conn.execute("SELECT COALESCE(MAX(seq), 0) FROM entries WHERE game_id = ?", (game_id,)).fetchone()[0]

    def find_op(self, game_id: str, op_id: str) -> int | None:
        row = self.conn.execute("SELECT seq FROM entries WHERE game_id = ? AND op_id = ?", (game_id, op_id)).fetchone()
        return row[0] if row else None

    def append(self, game_id: str, entry: Entry) -> None:
        """Insert one entry (call inside ``transaction``)."""
        try:
            self.conn.execute(
                "INSERT INTO entries(game_id, seq, op_id, kind, command, args, target, events, created) "
                "VALUES (?,?,?,?,?,?,?,?,?)",
                (game_id, entry.seq, entry.op_id, entry.kind, entry.command,
                 json.dumps(entry.args, ensure_ascii=False), entry.target,
                 json.dumps([ev.to_record(e) for e in entry.events], ensure_ascii=False), entry.created))
        except sqlite3.IntegrityError as exc:
            raise StoreConflict(f"entry {entry.seq} or operation {entry.op_id!r} already exists ({exc})") from None

    def entries(self, game_id: str, after: int = 0) -> list[Entry]:
        rows = self.conn.execute(
            "SELECT seq, op_id, kind, command, args, target, events, created FROM entries "
            "WHERE game_id = ? AND seq > ? ORDER BY seq", (game_id, after)).fetchall()
        return [_row_to_entry(r) for r in rows]

    def entry(self, game_id: str, seq: int) -> Entry:
        row = self.conn.execute(
            "SELECT seq, op_id, kind, command, args, target, events, created FROM entries "
            "WHERE game_id = ? AND seq = ?", (game_id, seq)).fetchone()
        if row is None:
            raise KeyError(seq)
        return _row_to_entry(row)

    # -------------------------------------------------------------------- snapshots (a cache)

    def save_snapshot(self, game_id: str, seq: int, data: bytes) -> None:
        with self.transaction():
            self.conn.execute("INSERT OR REPLACE INTO snapshots(game_id, seq, data) VALUES (?,?,?)",
                              (game_id, seq, data))
            self.conn.execute("DELETE FROM snapshots WHERE game_id = ? AND seq < ?", (game_id, seq))

    def latest_snapshot(self, game_id: str) -> tuple[int, bytes] | None:
        row = self.conn.execute("SELECT seq, data FROM snapshots WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                                (game_id,)).fetchone()
        return (row[0], row[1]) if row else None

    # -------------------------------------------------------------------- current game

    def current(self) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'current'").fetchone()
        return row[0] if row else None

    def set_current(self, game_id: str) -> None:
        with self.transaction():
            self.conn.execute("INSERT INTO meta(key, value) VALUES ('current', ?) "
                              "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (game_id,))


def now() -> float:
    return time.time()
