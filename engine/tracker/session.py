"""A live game: the store's log replayed into state, and the one door commands come in by.

``LiveGame.do("spend", player="A", amount=3)`` decides the command's events from the current
state (the rules refuse by raising), appends them as one entry in one transaction, then applies
them. Undo and redo are entries too; the state is always the fold of the command entries that
are in effect, so undoing ``next`` takes back everything that phase change triggered.

Example::

    store = Store("games.sqlite")
    live = LiveGame.new(store, "backrooms", ("A", "B"), levels=("Level 0", "Level 1"))
    live.do("next"); live.do("spend", player="A", amount=3)
    live.undo()
"""

from __future__ import annotations

import pickle
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

from ..cards import Card
from ..decks import Deck
from ..definitions import GameDefinition, load_game
from ..errors import DataError, Problem
from ..paths import card_data_root
from . import events as ev
from .core import Context, IllegalCommand, TrackerError, run_command, start_game
from .state import State, fold
from .store import Entry, GameRow, Store, StoreConflict, now

FORMAT = "cardpress-track"
FORMAT_VERSION = 1


class NothingToUndo(IllegalCommand):
    """Undo with no command in effect (the game's setup cannot be undone)."""


class NothingToRedo(IllegalCommand):
    """Redo with nothing undone since the last command."""


class _LazyCards(Mapping):
    """The game's cards, read on first use: resuming a game must not wait for card files."""

    def __init__(self, defn: GameDefinition):
        self._defn = defn
        self._cards: dict[str, Card] | None = None

    def _load(self) -> dict[str, Card]:
        if self._cards is None:
            from ..rules import cards_by_id

            self._cards = cards_by_id(self._defn) if self._defn.folder else {}
        return self._cards

    def __getitem__(self, key: str) -> Card:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


def game_ref(defn: GameDefinition) -> str:
    """How the store names a game: its shipped id, else its folder's absolute path."""
    shipped = card_data_root() / defn.id
    if defn.folder is not None and shipped.resolve() != Path(defn.folder).resolve():
        return str(Path(defn.folder).resolve())
    return defn.id


def make_context(defn: GameDefinition, cards: Mapping[str, Card] | None = None) -> Context:
    from ..rules import rules_for

    return Context(defn=defn, rules=rules_for(defn), cards=cards if cards is not None else _LazyCards(defn))


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command did: its entry, and whether it had already been applied (a retried op id)."""

    entry: Entry
    repeated: bool = False

    @property
    def events(self) -> tuple[ev.Event, ...]:
        return self.entry.events


#: Write a snapshot (a cache of the replayed state) every this many log entries, so resuming a
#: long game replays at most this many entries (measured: ~20 µs per event to decode and fold).
SNAPSHOT_EVERY = 500
SNAPSHOT_VERSION = 1


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
        self._load_all = load_all

    def snapshot(self) -> bytes:
        return pickle.dumps((SNAPSHOT_VERSION, self.last_seq, self.state, [s for s, _ in self.applied], self.redo))

    def restore(self, data: bytes) -> bool:
        """Start from a snapshot; False (and unchanged) if it is unreadable or of another version."""
        try:
            version, last_seq, state, applied, redo = pickle.loads(data)
        except Exception:  # a stale or damaged cache is ignored, never trusted
            return False
        if version != SNAPSHOT_VERSION or not isinstance(state, State):
            return False
        self.last_seq, self.state, self.redo = last_seq, state, list(redo)
        self.applied = [(s, None) for s in applied[:-1]] + [(applied[-1], state)]
        return True

    def _fill_states(self) -> None:
        if self._load_all is None:
            raise DataError(Problem("cannot undo past the snapshot: no log to replay"))
        full = Replay()
        for entry in self._load_all():
            if entry.seq > self.last_seq:
                break
            full.add(entry)
        self.applied = full.applied
        self.entries.update(full.entries)

    def add(self, entry: Entry) -> None:
        if entry.seq != self.last_seq + 1:
            raise DataError(Problem(f"log entry {entry.seq} follows {self.last_seq}: the log has a gap"))
        if entry.kind in ("start", "command"):
            if entry.kind == "start" and self.last_seq:
                raise DataError(Problem(f"log entry {entry.seq}: a second game start"))
            self.state = fold(entry.events, self.state)
            self.applied.append((entry.seq, self.state))
            self.redo.clear()
        elif entry.kind == "undo":
            if len(self.applied) < 2 or self.applied[-1][0] != entry.target:
                raise DataError(Problem(f"log entry {entry.seq}: undo of {entry.target}, which is not the last command in effect"))
            if self.applied[-2][1] is None:
                self._fill_states()
            self.redo.append(self.applied.pop()[0])
            self.state = self.applied[-1][1]
        elif entry.kind == "redo":
            if not self.redo or self.redo[-1] != entry.target:
                raise DataError(Problem(f"log entry {entry.seq}: redo of {entry.target}, which is not the last undone command"))
            self.redo.pop()
            self.state = fold(self.entries[entry.target].events, self.state)
            self.applied.append((entry.target, self.state))
        else:
            raise DataError(Problem(f"log entry {entry.seq}: unknown kind {entry.kind!r}"))
        self.entries[entry.seq] = entry
        self.last_seq = entry.seq

    @property
    def in_effect(self) -> set[int]:
        return {seq for seq, _ in self.applied}


def new_game_id(ruleset: str) -> str:
    return f"{ruleset}-{secrets.token_hex(3)}"


def new_op_id() -> str:
    return secrets.token_hex(8)


class LiveGame:
    """One game of a store, replayed and ready for commands."""

    def __init__(self, store: Store, game_id: str, cards: Mapping[str, Card] | None = None,
                 use_snapshots: bool = True):
        self.store = store
        self.row: GameRow = store.game(game_id)
        self.id = game_id
        self.defn = load_game(self.row.game)
        self.ctx = make_context(self.defn, cards)
        self.replay = Replay(loader=lambda seq: store.entry(game_id, seq), load_all=lambda: store.entries(game_id))
        snap = store.latest_snapshot(game_id) if use_snapshots else None
        if snap is not None:
            self.replay.restore(snap[1])
        self._snapshot_seq = self.replay.last_seq
        self._catch_up()
        if use_snapshots:
            self._maybe_snapshot()

    def _maybe_snapshot(self) -> None:
        if self.replay.last_seq - self._snapshot_seq >= SNAPSHOT_EVERY:
            self.store.save_snapshot(self.id, self.replay.last_seq, self.replay.snapshot())
            self._snapshot_seq = self.replay.last_seq

    # -------------------------------------------------------------------- creation

    @classmethod
    def new(cls, store: Store, game: str | Path | GameDefinition, players: tuple[str, ...] | list[str],
            first: str | int | None = None, levels: tuple[str, ...] = (), decks: Mapping[str, Path] | None = None,
            game_id: str | None = None, op_id: str | None = None, check_decks: bool = True,
            cards: Mapping[str, Card] | None = None) -> "LiveGame":
        """Set up a game (first turn begun), store it and make it current.

        ``decks`` maps a player name to a deck file; each is checked against the game's deck rules
        (``check_decks=False`` to skip) and gives backrooms its public levels, duel its deck size.
        """
        defn = game if isinstance(game, GameDefinition) else load_game(game)
        ctx = make_context(defn, cards)
        players = tuple(str(p).strip() for p in players)
        first_index = 0
        if first is not None:
            matches = [i for i, p in enumerate(players) if p.casefold() == str(first).strip().casefold()]
            if not matches:
                raise IllegalCommand(f"--first {first!r} is not one of the players ({', '.join(players)})")
            first_index = matches[0]
        loaded: dict[int, Deck] = {}
        for name, path in (decks or {}).items():
            matches = [i for i, p in enumerate(players) if p.casefold() == str(name).strip().casefold()]
            if not matches:
                raise IllegalCommand(f"--deck {name}=…: {name!r} is not one of the players ({', '.join(players)})")
            from ..rules import check_deck_file

            deck, problems = check_deck_file(defn, Path(path), dict(ctx.cards))
            if problems and check_decks:
                raise DataError(problems)
            loaded[matches[0]] = deck
        events = start_game(ctx, players, first_index, levels=tuple(levels), decks=loaded)
        gid = game_id or new_game_id(defn.id)
        entry = Entry(seq=1, op_id=op_id or new_op_id(), kind="start", command="new",
                      args={"players": list(players), "first": players[first_index], "levels": list(levels),
                            "decks": {k: str(v) for k, v in (decks or {}).items()}},
                      target=None, events=tuple(events), created=now())
        with store.transaction():
            store.add_game(GameRow(gid, game_ref(defn), defn.id, players, entry.created))
            store.append(gid, entry)
        store.set_current(gid)
        return cls(store, gid, cards)

    # -------------------------------------------------------------------- reading

    @property
    def state(self) -> State:
        return self.replay.state

    @property
    def can_undo(self) -> bool:
        return len(self.replay.applied) > 1

    @property
    def can_redo(self) -> bool:
        return bool(self.replay.redo)

    def entries(self) -> list[Entry]:
        """Every log entry, in order (read from the store when a snapshot skipped them)."""
        if len(self.replay.entries) < self.replay.last_seq:
            for entry in self.store.entries(self.id):
                if entry.seq > self.replay.last_seq:
                    break
                self.replay.entries.setdefault(entry.seq, entry)
        return [self.replay.entries[k] for k in range(1, self.replay.last_seq + 1)]

    def _catch_up(self) -> None:
        for entry in self.store.entries(self.id, after=self.replay.last_seq):
            self.replay.add(entry)

    def refresh(self) -> State:
        """Pick up entries another process appended."""
        self._catch_up()
        return self.state

    # -------------------------------------------------------------------- writing

    def _append(self, op_id: str | None, decide) -> Outcome:
        op = op_id or new_op_id()
        store = self.store
        with store.transaction():
            done = store.find_op(self.id, op)
            if done is not None:
                self._catch_up()
                return Outcome(self.replay.entries[done], repeated=True)
            if store.last_seq(self.id) != self.replay.last_seq:
                self._catch_up()
            kind, command, args, target, events = decide()
            entry = Entry(seq=self.replay.last_seq + 1, op_id=op, kind=kind, command=command, args=args,
                          target=target, events=tuple(events), created=now())
            store.append(self.id, entry)
        self.replay.add(entry)
        self._maybe_snapshot()
        return Outcome(entry)

    def do(self, command: str, op_id: str | None = None, **args: Any) -> Outcome:
        """Apply a command (``next``, ``spend``…) once; a refusal raises and stores nothing."""
        name = command.replace("-", "_")
        clean = {k: v for k, v in args.items() if v is not None}
        return self._append(op_id, lambda: ("command", name, clean, None,
                                            run_command(self.state, self.ctx, name, clean)))

    def undo(self, op_id: str | None = None) -> Outcome:
        """Take back the last command in effect, with everything it triggered."""
        def decide():
            if not self.can_undo:
                raise NothingToUndo("nothing to undo (the game's setup cannot be undone)")
            target = self.replay.applied[-1][0]
            return "undo", "undo", {}, target, []

        return self._append(op_id, decide)

    def redo(self, op_id: str | None = None) -> Outcome:
        """Re-apply the last undone command (only until a new command is given)."""
        def decide():
            if not self.can_redo:
                raise NothingToRedo("nothing to redo")
            return "redo", "redo", {}, self.replay.redo[-1], []

        return self._append(op_id, decide)

    def query(self, name: str, **args: Any) -> Any:
        """Ask the rules a question that changes nothing (ridm ``playable``)."""
        fn = getattr(self.ctx.rules, name, None)
        if fn is None or name not in getattr(self.ctx.rules, "QUERIES", ("playable",)):
            raise IllegalCommand(f"{self.defn.id} has no query {name!r}")
        return fn(self.state, self.ctx, **args)

    # -------------------------------------------------------------------- export

    def export(self) -> dict[str, Any]:
        """The whole log as JSON-ready data (``import_game`` reads it back)."""
        return {"format": FORMAT, "version": FORMAT_VERSION,
                "game": {"id": self.id, "game": self.row.game, "ruleset": self.row.ruleset,
                         "players": list(self.row.players), "created": self.row.created},
                "entries": [e.to_json() for e in self.entries()]}


def import_game(store: Store, data: Any, game_id: str | None = None) -> LiveGame:
    """Store an exported log (checked by replaying it) and make it current."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise DataError(Problem(f"not a cardpress game log (expected \"format\": \"{FORMAT}\")"))
    if data.get("version") != FORMAT_VERSION:
        raise DataError(Problem(f"unsupported log version {data.get('version')!r} (this cardpress reads {FORMAT_VERSION})"))
    try:
        info = data["game"]
        entries = [Entry.from_json(e) for e in data["entries"]]
        replay = Replay()
        for entry in entries:
            replay.add(entry)
        load_game(info["game"])
        row = GameRow(game_id or str(info["id"]), str(info["game"]), str(info["ruleset"]),
                      tuple(info["players"]), float(info.get("created", now())))
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(Problem(f"malformed game log: {exc!r}")) from None
    if not entries or entries[0].kind != "start":
        raise DataError(Problem("a game log starts with the game's setup entry"))
    with store.transaction():
        store.add_game(row)
        for entry in entries:
            store.append(row.id, entry)
    store.set_current(row.id)
    return LiveGame(store, row.id)


def resume(store: Store, game_id: str | None = None) -> LiveGame:
    """Open ``game_id`` (default: the current game) and make it current."""
    gid = game_id or store.current()
    if gid is None:
        raise TrackerError("no current game: start one with `cardpress track new` or pick one from `track list`")
    live = LiveGame(store, gid)
    if game_id is not None and store.current() != gid:
        store.set_current(gid)
    return live


__all__ = ["LiveGame", "Outcome", "Replay", "import_game", "resume", "NothingToUndo", "NothingToRedo",
           "StoreConflict", "new_op_id"]
