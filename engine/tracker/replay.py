"""The fold of a log (state, undo stack, redo stack) and its verified snapshots.

A snapshot is a cache of a ``Replay`` after entry ``seq``: data only (canonical JSON through
``codec``), never code. It is used only when everything about it checks out:

- its seal (an HMAC-SHA256 of its body under this machine's key, ``seal_key``) matches — a
  damaged or truncated blob, or one written anywhere else, is dropped;
- its version is this cardpress's;
- the log's chained digest at ``seq`` equals the one it recorded — a snapshot of another log,
  or of a log rewritten since, is dropped;
- its state decodes field by field into the state classes (an ``int`` is an int…) and its
  undo/redo stacks are well-formed seq lists.

Otherwise the caller deletes it and replays the log (and writes a fresh one). The seal is keyed:
a store file someone sends you carries snapshots sealed with *their* key, or forged with a
recomputed plain checksum, and neither is accepted here, so a snapshot can never make the board
disagree with the log. Without a usable key (a read-only home folder) no snapshot is written or
trusted; games just replay from the log. The log is the record; a snapshot only saves replay time.
"""

from __future__ import annotations

from engine.i18n import _
import hashlib
import hmac
import json
from typing import Any, Callable

from ..errors import DataError, Problem
from ..keys import read_or_make_key
from ..paths import user_data_dir
from . import codec
from .state import State, apply
from .store import Entry

SNAPSHOT_VERSION = 3


class _Entries(dict):
    """Entries by seq; those before a snapshot are read from the store on first use."""

    def __init__(self, loader: Callable[[int], Entry] | None = None):
        super().__init__()
        self._loader = loader

    def __missing__(self, seq: int) -> Entry:
        if self._loader is None:
            raise KeyError(seq)
        entry = self[seq] = self._loader(seq)
        return entry


class BadSnapshot(Exception):
    """Why a snapshot was not used (it is then deleted and the log replayed). Internal."""


#: Bytes of the per-machine key that seals snapshots.
_key: bytes | None | bool = False  # False: not read yet


def seal_key() -> bytes | None:
    """This machine's snapshot key (``<user data dir>/snapshot.key``, made on first use, mode
    0600), or None when it cannot be read or made."""
    global _key
    if _key is False:
        _key = read_or_make_key(user_data_dir() / "snapshot.key")
    return _key


def _checksum(body: Any, key: bytes) -> str:
    return hmac.new(key, codec.canonical(body).encode("utf-8"), hashlib.sha256).hexdigest()


class Replay:
    """The fold of a log: state, the command entries in effect (with the state after each), the redo stack.

    After a snapshot, states before it are not known (None) until an undo reaches them; then
    ``load_all`` gives the whole log and they are replayed once.
    """

    def __init__(self, loader: Callable[[int], Entry] | None = None,
                 load_all: Callable[[], list[Entry]] | None = None) -> None:
        self.entries: dict[int, Entry] = _Entries(loader)
        self.applied: list[tuple[int, State | None]] = []
        self.redo: list[int] = []
        self.state = State()
        self.last_seq = 0
        #: The chained digest of entry ``last_seq`` ("" before the first entry).
        self.digest = ""
        self._load_all = load_all

    # ------------------------------------------------------------------ snapshots

    def snapshot(self) -> bytes | None:
        """The sealed snapshot, or None when this machine has no key to seal it with."""
        key = seal_key()
        if key is None:
            return None
        body = {"version": SNAPSHOT_VERSION, "seq": self.last_seq, "log_digest": self.digest,
                "state": codec.encode(self.state), "applied": [s for s, _rest in self.applied],
                "redo": list(self.redo)}
        return codec.canonical({"body": body, "checksum": _checksum(body, key)}).encode("utf-8")

    def restore(self, data: Any, log_digest: Callable[[int], str | None]) -> None:
        """Start from a snapshot; ``log_digest(seq)`` is the store's digest of entry ``seq``.

        Raises ``BadSnapshot`` (and changes nothing) unless every check in the module docstring passes.
        """
        try:
            text = data.decode("utf-8") if isinstance(data, bytes) else data
            if not isinstance(text, str):
                raise BadSnapshot(_("not a JSON snapshot ({name})").format(name=type(data).__name__))
            outer = json.loads(text, parse_constant=_refuse_constant)
        except (UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise BadSnapshot(_("unreadable ({exc})").format(exc=exc)) from None
        if type(outer) is not dict or set(outer) != {"body", "checksum"} or type(outer["body"]) is not dict:
            raise BadSnapshot(_("not a snapshot record"))
        body = outer["body"]
        key = seal_key()
        if key is None:
            raise BadSnapshot(_("no snapshot key on this machine"))
        if not isinstance(outer["checksum"], str) or not hmac.compare_digest(outer["checksum"], _checksum(body, key)):
            raise BadSnapshot(_("its seal does not match (damaged, or not written on this machine)"))
        if body.get("version") != SNAPSHOT_VERSION:
            raise BadSnapshot(_("version {version!r}, not {SNAPSHOT_VERSION}").format(version=body.get('version'), SNAPSHOT_VERSION=SNAPSHOT_VERSION))
        seq = body.get("seq")
        if type(seq) is not int or seq < 1:
            raise BadSnapshot(_("no log position"))
        if body.get("log_digest") != log_digest(seq):
            raise BadSnapshot(_("it does not match the log at entry {seq}").format(seq=seq))
        try:
            state = codec.decode(body.get("state"), State, "state")
            applied = codec.decode(body.get("applied"), tuple[int, ...], "applied")
            redo = codec.decode(body.get("redo"), tuple[int, ...], "redo")
        except codec.CodecError as exc:
            raise BadSnapshot(str(exc)) from None
        if (not applied or applied[0] != 1 or any(a >= b for a, b in zip(applied, applied[1:]))
                or applied[-1] > seq or any(not 1 < r <= seq or r in applied for r in redo)):
            raise BadSnapshot(_("its undo/redo stacks do not fit the log"))
        self.last_seq, self.state, self.redo, self.digest = seq, state, list(redo), body["log_digest"]
        self.applied = [(s, None) for s in applied[:-1]] + [(applied[-1], state)]

    # ------------------------------------------------------------------ folding

    def _fill_states(self) -> None:
        if self._load_all is None:
            raise DataError(Problem(_("cannot undo past the snapshot: no log to replay")))
        full = Replay()
        for entry in self._load_all():
            if entry.seq > self.last_seq:
                break
            full.add(entry)
        if [s for s, _rest in full.applied] != [s for s, _rest in self.applied]:
            raise DataError(Problem(_("the snapshot at entry {last_seq} does not match its log").format(last_seq=self.last_seq)))
        self.applied = full.applied
        self.entries.update(full.entries)

    def add(self, entry: Entry) -> None:
        if entry.seq != self.last_seq + 1:
            raise DataError(Problem(_("log entry {seq} follows {last_seq}: the log has a gap").format(seq=entry.seq, last_seq=self.last_seq)))
        if entry.kind in ("start", "command"):
            if (entry.kind == "start") != (self.last_seq == 0):
                raise DataError(Problem(_("log entry {seq}: a game log starts with one setup entry, then commands").format(seq=entry.seq)))
            if entry.target is not None:
                raise DataError(Problem(_("log entry {seq}: a {kind} entry has no target").format(seq=entry.seq, kind=entry.kind)))
            self.state = _fold(entry, self.state)
            self.applied.append((entry.seq, self.state))
            self.redo.clear()
        elif entry.kind == "undo":
            if len(self.applied) < 2 or self.applied[-1][0] != entry.target:
                raise DataError(Problem(_("log entry {seq}: undo of {target}, which is not the last command in effect").format(seq=entry.seq, target=entry.target)))
            if entry.events:
                raise DataError(Problem(_("log entry {seq}: an undo carries no events").format(seq=entry.seq)))
            if self.applied[-2][1] is None:
                self._fill_states()
            self.redo.append(self.applied.pop()[0])
            self.state = self.applied[-1][1]
        elif entry.kind == "redo":
            if not self.redo or self.redo[-1] != entry.target:
                raise DataError(Problem(_("log entry {seq}: redo of {target}, which is not the last undone command").format(seq=entry.seq, target=entry.target)))
            if entry.events:
                raise DataError(Problem(_("log entry {seq}: a redo carries no events").format(seq=entry.seq)))
            self.redo.pop()
            self.state = _fold(self.entries[entry.target], self.state)
            self.applied.append((entry.target, self.state))
        else:
            raise DataError(Problem(_("log entry {seq}: unknown kind {kind!r}").format(seq=entry.seq, kind=entry.kind)))
        self.entries[entry.seq] = entry
        self.last_seq = entry.seq
        self.digest = entry.digest

    @property
    def in_effect(self) -> set[int]:
        return {seq for seq, _rest in self.applied}

    def in_effect_from(self, first: int) -> set[int]:
        """The entries from ``first`` on that are in effect: read from the end of ``applied``
        (in increasing order, as a snapshot is checked to be), so a log's last lines cost what
        they show, not the length of the game."""
        out = set()
        for seq, _rest in reversed(self.applied):
            if seq < first:
                break
            out.add(seq)
        return out


def _fold(entry: Entry, state: State) -> State:
    """Fold an entry's events; a log whose events do not fit the game (a seat that does not
    exist, a missing outpost) is a damaged or forged log, reported as such."""
    try:
        for event in entry.events:
            for name in _SEAT_FIELDS:
                seat = getattr(event, name, None)
                seats = len(getattr(event, "players", ()) or state.players)   # GameStarted brings its own
                if seat is not None and seats and not 0 <= seat < seats:
                    raise DataError(Problem(_("log entry {seq}: {name}.{name2} is {seat}, but the game has {seats} players").format(seq=entry.seq, name=type(event).__name__, name2=name, seat=seat, seats=seats)))
            state = apply(state, event)
        return state
    except (IndexError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise DataError(Problem(_("log entry {seq}: its events do not fit the game ({name}: {exc})").format(seq=entry.seq, name=type(exc).__name__, exc=exc))) from None


#: Event fields that name a seat (an index into the players), in any game's events.
_SEAT_FIELDS = ("player", "winner", "first")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")
