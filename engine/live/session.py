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

from engine.i18n import N_, _
from engine.i18n import _ as tr
import json
import os
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ..definitions import GameDefinition, parse_game, read_checked, write_checked
from ..errors import CardpressError, DataError, Location, Problem
from ..limits import MAX_TEXT_FILE_BYTES, MAX_TRACK_LOG_DEPTH
from ..model import CHECKED_RECORDS
from ..paths import card_data_root, resolve_game_dir, user_data_dir
from ..yamlio import parse_yaml, read_text
from ..tracker import codec
from ..tracker import events as ev
from ..tracker.core import Context, IllegalCommand, TrackerError, commands_of, run_command, seat_of, start_game
from ..tracker.replay import BadSnapshot, Replay
from ..tracker.state import State
from ..tracker.store import Entry, GameRow, Store, StoreConflict, StoreDamaged, chain_seed, entry_digest, now

if TYPE_CHECKING:  # the types only: reading cards and decks is not every command's work
    from ..cards import Card
    from ..decks import Deck

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
            from ..games import cards_by_id

            self._cards = cards_by_id(self._defn) if self._defn.folder else {}
        return self._cards

    def __getitem__(self, key: str) -> Card:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


class CardsUnavailable(IllegalCommand):
    """A command needs the game's cards, but the game runs on its stored definition alone."""


class _CardsUnknown(Mapping):
    """The cards of a game whose folder is gone or changed: no card is known, as for a card the
    data lacks (a command given every number it needs still works: ``activate … --duration``),
    and each look-up is remembered, so a refusal that followed one can say the card data is
    unknown rather than leave "unknown card" standing for a card that may well exist."""

    def __init__(self, why: str):
        self.why = why
        self.asked = False

    def __getitem__(self, key: str) -> Card:
        self.asked = True
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        self.asked = True
        return iter(())

    def __len__(self) -> int:
        self.asked = True
        return 0


#: Why a game runs on its stored definition: (for errors: English, N_-marked and translated where
#: shown; for the board and log: Chinese, always).
STORED_WHY = {
    "gone": (N_("its game folder is gone (moved or deleted)"), "游戏文件夹已不存在（被移动或删除）"),
    "unreadable": (N_("its game.yaml cannot be read"), "game.yaml 无法读取"),
    "changed": (N_("its game.yaml changed since the game started"), "game.yaml 在开局后被修改"),
}


class StoredDefinition(TrackerError):
    """The ``game.yaml`` kept with a game no longer reads as a game definition."""


def _is_folder_ref(ref: str) -> bool:
    """A game row names a shipped game by id, a designer's folder by its absolute path."""
    return Path(ref).is_absolute()


def checked_folder() -> Path:
    """Where validated definitions are kept for fast commands (``engine.definitions.read_checked``)."""
    return user_data_dir() / "definitions"


def validated(text: str, path: Path) -> GameDefinition:
    """The definition ``text`` (the ``game.yaml`` at ``path``) says: validated, and kept in the
    checked cache so the next command can skip pydantic; in a fast-path process, read from that
    cache (``NotChecked`` when it is not there: the command then re-runs on the full path)."""
    from ..tracker.replay import seal_key

    if CHECKED_RECORDS:
        return read_checked(text, path, checked_folder(), seal_key())
    defn = parse_game(parse_yaml(text, path), path)
    write_checked(defn, text, checked_folder(), seal_key())
    return defn


def load_game(game: str | Path) -> GameDefinition:
    """``engine.definitions.load_game`` for the tracker (same errors), through the checked cache."""
    path = resolve_game_dir(game) / "game.yaml"
    if CHECKED_RECORDS:
        return validated(_plain_text(path), path)
    return validated(read_text(path, "YAML file"), path)


def _plain_text(path: Path) -> str:
    """A fast-path read of a ``game.yaml``: plain UTF-8 or ``NotChecked`` — anything read_text
    would report or strip (a BOM) is left to the full path, which words it as always."""
    from ..model import NotChecked
    from ..paths import read_bounded

    try:
        data = read_bounded(path, MAX_TEXT_FILE_BYTES, "YAML file")
        if data.startswith(b"\xef\xbb\xbf"):
            raise ValueError("a BOM")
        return data.decode("utf-8")
    except (OSError, ValueError, CardpressError):
        raise NotChecked(_("{path} is for the full path to read").format(path=path)) from None


def definition_of(row: GameRow) -> tuple[GameDefinition, str]:
    """The definition a stored game is played under, and why it is the stored copy: "" (it is
    not), "gone", "unreadable" or "changed" (``STORED_WHY``).

    A shipped game is loaded by id. A designer's folder is loaded from the folder while its
    ``game.yaml`` is still the text the game started with (its cards are then read as usual);
    when the folder is gone or the file changed, the text kept in the store is used, without
    cards, and ``LiveGame.definition_note`` says so (status and log show it).
    """
    if row.definition is None or not _is_folder_ref(row.game):
        return load_game(row.game), ""
    path = Path(row.game) / "game.yaml"
    try:
        now_text = read_text(path, "game definition")
    except DataError:
        now_text = None
    if now_text == row.definition:
        # The text just read, not read a second time (the folder resolved as load_game does).
        return validated(now_text, resolve_game_dir(row.game) / "game.yaml"), ""
    why = ("gone" if now_text is None and not path.exists() else "unreadable" if now_text is None
           else "changed")
    try:
        defn = validated(row.definition, path)
    except DataError as exc:
        raise StoredDefinition(_("game {row_id}: the game.yaml stored when it started no longer reads as a game definition ({names})").format(row_id=row.id, names='; '.join((p.message for p in exc.problems)))) from None
    return defn.model_copy(update={"folder": None}), why


def _folder_definition(game: str | Path) -> tuple[GameDefinition, str | None]:
    """A game to start: a shipped one by id, or a folder with the exact text it is parsed from."""
    folder = resolve_game_dir(game)
    if folder.resolve() == (card_data_root() / folder.name).resolve():
        return load_game(game), None
    path = folder / "game.yaml"
    text = read_text(path, "game definition")
    return validated(text, path), text


def game_ref(defn: GameDefinition) -> str:
    """How the store names a game: its shipped id, else its folder's absolute path."""
    shipped = card_data_root() / defn.id
    if defn.folder is not None and shipped.resolve() != Path(defn.folder).resolve():
        return str(Path(defn.folder).resolve())
    return defn.id


#: ``--first random``: the first seat is drawn at setup.
FIRST_RANDOM = "random"
#: Other words a player may type for it.
_RANDOM_WORDS = {FIRST_RANDOM, "随机"}


def _first_seat(players: tuple[str, ...], first: str | int | None) -> tuple[int, bool]:
    """The first player's seat, and whether it was drawn at random (``secrets``: a table
    deciding who starts must not be able to predict the draw)."""
    if first is None or not players:
        return 0, False
    try:
        return seat_of(players, first), False  # a player named "random" is that player
    except IllegalCommand:
        if str(first).strip().casefold() in _RANDOM_WORDS:
            return secrets.randbelow(len(players)), True
        raise IllegalCommand(_("--first {first!r} is not one of the players ({players}), a seat number or 'random'").format(first=first, players=', '.join(players))) from None


def _definition_text(defn: GameDefinition) -> str | None:
    """The ``game.yaml`` of a definition loaded from a folder (None when it cannot be read)."""
    if defn.folder is None:
        return None
    try:
        return read_text(Path(defn.folder) / "game.yaml", "game definition")
    except DataError:
        return None


def make_context(defn: GameDefinition, cards: Mapping[str, Card] | None = None) -> Context:
    from ..games import rules_for

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
#: long game replays at most this many entries. Every ``cardpress track`` command is a resume,
#: so this is small: replaying ~0.1 ms per entry against a snapshot of a few ms every 50
#: commands (500 made a command of a 600-entry game replay 100 entries, ~20 ms of its 150 ms).
#: ``CARDPRESS_SNAPSHOT_EVERY`` lowers it (the crash test kills processes mid-snapshot).
DEFAULT_SNAPSHOT_EVERY = 50


def _snapshot_every() -> int:
    try:
        every = int(os.environ.get("CARDPRESS_SNAPSHOT_EVERY", DEFAULT_SNAPSHOT_EVERY))
    except ValueError:
        return DEFAULT_SNAPSHOT_EVERY
    return every if every >= 1 else DEFAULT_SNAPSHOT_EVERY


SNAPSHOT_EVERY = _snapshot_every()


class OpIdReused(IllegalCommand):
    """An operation id already names a different command in this game's log."""


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
        verified, _rest = store.verify(game_id)       # damage is reported before anything is loaded
        self.defn, self.stored_definition_why = definition_of(self.row)
        if cards is None and self.stored_definition_why:
            cards = _CardsUnknown(_("{why} ({game}), so this game runs on the game.yaml kept when it started").format(
                why=tr(STORED_WHY[self.stored_definition_why][0]), game=self.row.game))
        self.ctx = make_context(self.defn, cards)

        def fresh() -> Replay:
            return Replay(loader=lambda seq: store.entry(game_id, seq), load_all=lambda: store.entries(game_id))

        self.replay = fresh()
        snap = store.latest_snapshot(game_id) if use_snapshots else None
        if snap is not None:
            try:
                self.replay.restore(snap[1], lambda seq: store.digest_at(game_id, seq))
            except BadSnapshot:
                store.drop_snapshots(game_id)     # a cache that fails its checks is rebuilt from the log
                self.replay = fresh()
        self._snapshot_seq = self.replay.last_seq
        self._catch_up()
        if self.replay.last_seq < verified:
            # The walk read the table itself; reading through the index found fewer entries.
            raise StoreDamaged(_("game {game_id} in {path} is damaged: the database's index finds {last_seq} of its {verified} entries; `cardpress track export {game_id} --intact -o {game_id}-intact.json` saves them all").format(game_id=game_id, path=store.path, last_seq=self.replay.last_seq, verified=verified), game_id, verified)
        if use_snapshots:
            self._maybe_snapshot()

    @property
    def definition_note(self) -> str:
        """For the board and the log: the game runs on the definition kept in the store ("" if not)."""
        if not self.stored_definition_why:
            return ""
        why = STORED_WHY[self.stored_definition_why][1]
        return f"规则定义：{why}，使用开局时保存的 game.yaml（{self.row.game}）；卡牌数据不可用"

    def _maybe_snapshot(self) -> None:
        if self.replay.last_seq - self._snapshot_seq >= SNAPSHOT_EVERY:
            data = self.replay.snapshot()
            if data is not None:  # None: no key to seal it with; resuming replays the log
                self.store.save_snapshot(self.id, self.replay.last_seq, data)
            self._snapshot_seq = self.replay.last_seq

    # -------------------------------------------------------------------- creation

    @classmethod
    def new(cls, store: Store, game: str | Path | GameDefinition, players: tuple[str, ...] | list[str],
            first: str | int | None = None, levels: tuple[str, ...] = (), decks: Mapping[str, Path] | None = None,
            game_id: str | None = None, op_id: str | None = None, check_decks: bool = True,
            cards: Mapping[str, Card] | None = None) -> "LiveGame":
        """Set up a game (first turn begun) and store it.

        ``first`` names the first player (name or seat number), or is ``"random"``: the seat is
        drawn here, once, with ``secrets``, and recorded (the start entry's args, and the reason
        of its ``GameStarted``), so a replay shows the same draw and never draws again. A player
        actually named "random" is that player.

        ``decks`` maps a player name to a deck file; each is checked against the game's deck rules
        (``check_decks=False`` to skip) and gives backrooms its public levels, duel its deck size.

        A game of a designer's folder keeps the folder's ``game.yaml`` text in the store, so it
        stays readable and exportable after the folder moves (``definition_of``).
        """
        if isinstance(game, GameDefinition):
            defn, text = game, _definition_text(game)
        else:
            defn, text = _folder_definition(game)
        ctx = make_context(defn, cards)
        players = tuple(str(p).strip() for p in players)
        first_index, drawn = _first_seat(players, first)
        loaded: dict[int, Deck] = {}
        for name, path in (decks or {}).items():
            try:
                seat = seat_of(players, name)
            except IllegalCommand:
                raise IllegalCommand(_("--deck {name}=…: {name!r} is not one of the players ({players})").format(name=name, players=', '.join(players))) from None
            from ..decks import find_deck
            from ..games import check_deck_file

            deck, problems = check_deck_file(defn, find_deck(defn, path), dict(ctx.cards))
            if problems and check_decks:
                raise DataError(problems)
            loaded[seat] = deck
        events = start_game(ctx, players, first_index, levels=tuple(levels), decks=loaded)
        args = {"players": list(players), "first": players[first_index], "levels": list(levels),
                "decks": {k: str(v) for k, v in (decks or {}).items()}}
        if drawn:
            args["first_drawn"] = FIRST_RANDOM
            events = [replace(e, reason=f"随机决定先手：{players[first_index]}") if isinstance(e, ev.GameStarted)
                      else e for e in events]
        gid = check_game_id(game_id) if game_id else new_game_id(defn.id)
        entry = Entry(seq=1, op_id=op_id or new_op_id(), kind="start", command="new", args=args,
                      target=None, events=tuple(events), created=now())
        ref = game_ref(defn)
        with store.transaction():
            store.add_game(GameRow(gid, ref, defn.id, players, entry.created,
                                   text if _is_folder_ref(ref) else None))
            store.append(gid, entry)
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

    def _append(self, op_id: str | None, intent: tuple[str, dict[str, Any]], decide) -> Outcome:
        op = op_id or new_op_id()
        store = self.store
        with store.transaction():
            done = store.find_op(self.id, op)
            if done is not None:
                self._catch_up()
                return Outcome(_same_command(self.replay.entries[done], op, *intent, self._arg_order),
                               repeated=True)
            if store.last_seq(self.id) != self.replay.last_seq:
                self._catch_up()
            kind, command, args, target, events = decide()
            entry = Entry(seq=self.replay.last_seq + 1, op_id=op, kind=kind, command=command, args=args,
                          target=target, events=tuple(events), created=now())
            entry = store.append(self.id, entry)
        self.replay.add(entry)
        self._maybe_snapshot()
        return Outcome(entry)

    def _arg_order(self, command: str) -> list[str]:
        """A command's parameter names after (state, ctx), in the order a player types them."""
        spec = commands_of(self.ctx).get(command)
        return [p.name for p in spec.params] if spec else []

    def do(self, command: str, op_id: str | None = None, **args: Any) -> Outcome:
        """Apply a command (``next``, ``spend``…) once; a refusal raises and stores nothing."""
        name = command.replace("-", "_")
        clean = {k: v for k, v in args.items() if v is not None}
        return self._append(op_id, (name, clean), lambda: ("command", name, clean, None, self._cards_said(
            lambda: run_command(self.state, self.ctx, name, clean))))

    def _cards_said(self, run: Callable[[], Any]) -> Any:
        """``run()``; a refusal after a card look-up in a game without its cards says why they are unknown."""
        cards = self.ctx.cards
        if not isinstance(cards, _CardsUnknown):
            return run()
        cards.asked = False
        try:
            return run()
        except IllegalCommand as exc:
            if not cards.asked:
                raise
            raise CardsUnavailable(_("{exc} — the card data is unknown: {why}; give the numbers the command asks for, or restore the game folder").format(exc=exc, why=cards.why)) from None

    def undo(self, op_id: str | None = None) -> Outcome:
        """Take back the last command in effect, with everything it triggered."""
        def decide():
            if not self.can_undo:
                raise NothingToUndo(_("nothing to undo (the game's setup cannot be undone)"))
            target = self.replay.applied[-1][0]
            return "undo", "undo", {}, target, []

        return self._append(op_id, ("undo", {}), decide)

    def redo(self, op_id: str | None = None) -> Outcome:
        """Re-apply the last undone command (only until a new command is given)."""
        def decide():
            if not self.can_redo:
                raise NothingToRedo(_("nothing to redo"))
            return "redo", "redo", {}, self.replay.redo[-1], []

        return self._append(op_id, ("redo", {}), decide)

    def query(self, name: str, **args: Any) -> Any:
        """Ask the rules a question that changes nothing (ridm ``playable``): ``(ok, text)``."""
        spec = commands_of(self.ctx).get(name)
        if spec is None or not spec.query:
            raise IllegalCommand(_("{id} has no query {name!r}").format(id=self.defn.id, name=name))
        return self._cards_said(lambda: spec.run(self.state, self.ctx, **args))

    # -------------------------------------------------------------------- export

    def export(self) -> dict[str, Any]:
        """The whole log as JSON-ready data (``import_game`` reads it back)."""
        return {"format": FORMAT, "version": FORMAT_VERSION, "game": _game_json(self.row),
                "entries": [e.to_json() for e in self.entries()]}


def _game_json(row: GameRow) -> dict[str, Any]:
    """An export's ``game`` object; a stored definition travels with the log (``definition``)."""
    data = {"id": row.id, "game": row.game, "ruleset": row.ruleset, "players": list(row.players),
            "created": row.created}
    if row.definition is not None:
        data["definition"] = row.definition
    return data


def _same_command(entry: Entry, op_id: str, command: str, args: dict[str, Any],
                  order: Callable[[str], list[str]]) -> Entry:
    """The recorded entry of a retried op id, if it was this same command; else ``OpIdReused``."""
    try:
        same = entry.command == command and entry.args == json.loads(codec.canonical(args))
    except (TypeError, ValueError):
        same = False
    if not same:
        raise OpIdReused(_("operation id {op_id!r} was already used for `{describe_command}` (entry {seq}); give this command a new --op-id").format(op_id=op_id, describe_command=describe_command(entry, order(entry.command)), seq=entry.seq))
    return entry


def describe_command(entry: Entry, order: list[str] | tuple[str, ...] = ()) -> str:
    """``spend 甲 3`` — an entry's command as typed: arguments in the command's own order
    (``order``; the store keeps them sorted by name), flags as ``--name``."""
    words = [entry.command.replace("_", "-")]
    rank = {name: i for i, name in enumerate(order)}
    for key in sorted(entry.args, key=lambda k: (rank.get(k, len(rank)), k)):
        value = entry.args[key]
        if value in ("", None, False) or isinstance(value, (list, dict)):
            continue
        words.append(f"--{key}" if value is True else str(value))
    return " ".join(words)


# ---------------------------------------------------------------------------- import

ENTRY_KINDS = ("start", "command", "undo", "redo")

MAX_LOG_DEPTH = MAX_TRACK_LOG_DEPTH


def _refuse_constant(name: str) -> Any:
    raise ValueError(_("{name} is not a number a game log can hold").format(name=name))


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > codec.MAX_INT_DIGITS:
        raise ValueError(_("the number {number}… has {digits} digits (at most {most})").format(
            number=text[:20], digits=len(text.lstrip("-")), most=codec.MAX_INT_DIGITS))
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(_("the number {number} is out of range").format(number=text[:20]))
    return value


def _depth(value: Any, limit: int) -> int:
    """How deeply ``value`` nests (iteratively: a deep log must not exhaust the stack)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            todo.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return deepest


def parse_log(raw: bytes, source: str | Path | None = None) -> Any:
    """The JSON of an exported log, strictly: no NaN/Infinity, no huge numbers, bounded nesting."""
    where = Location(Path(source)) if source else Location()
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant, parse_int=_bounded_int,
                          parse_float=_finite_float)
    except UnicodeDecodeError as exc:
        raise DataError(Problem(_("not a JSON game log: not UTF-8 text (byte {start})").format(start=exc.start), where)) from None
    except RecursionError:
        raise DataError(Problem(_("not a JSON game log: nested far too deeply"), where)) from None
    except ValueError as exc:
        raise DataError(Problem(_("not a JSON game log ({exc})").format(exc=exc), where)) from None
    if _depth(data, MAX_LOG_DEPTH) > MAX_LOG_DEPTH:
        raise DataError(Problem(_("not a game log: nested more than {MAX_LOG_DEPTH} levels deep").format(MAX_LOG_DEPTH=MAX_LOG_DEPTH), where))
    return data


def _log_error(where: Location, message: str, field: str | None = None) -> DataError:
    return DataError(Problem(message, where, field=field))


def _entry_error(where: Location, exc: codec.CodecError) -> DataError:
    entry, _sep, field = exc.path.partition(".")
    if not field and ": " in entry:
        entry, field = entry.split(": ", 1)
    return DataError(Problem(_("{entry}: {detail}").format(entry=entry, detail=exc.detail), where, field=field or None))


def validate_log(data: Any, source: str | Path | None = None,
                 game_id: str | None = None) -> tuple[GameRow, list[Entry]]:
    """Check an exported log completely without storing anything: the game row and its entries.

    Refuses (``DataError`` naming the entry and field): another format or version, a game that
    does not exist or a player count its definition does not have, unknown kinds or event types,
    fields of the wrong type or out of range, seqs that are not 1, 2, 3…, reused op ids, a digest
    chain that does not match, undo/redo of entries that are not undoable (the log is replayed).
    """
    where = Location(Path(source)) if source else Location()
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise _log_error(where, _("not a cardpress game log (expected \"format\": \"{FORMAT}\")").format(FORMAT=FORMAT))
    if data.get("version") != FORMAT_VERSION:
        raise _log_error(where, _("unsupported log version {version!r} (this cardpress reads {FORMAT_VERSION})").format(version=data.get('version'), FORMAT_VERSION=FORMAT_VERSION), "version")
    info = data.get("game")
    if not isinstance(info, dict):
        raise _log_error(where, _("the log has no \"game\" object"), "game")
    try:
        gid = codec.decode(info.get("id"), str, "game.id")
        ref = codec.decode(info.get("game"), str, "game.game")
        ruleset = codec.decode(info.get("ruleset"), str, "game.ruleset")
        players = codec.decode(info.get("players"), tuple[str, ...], "game.players")
        created = codec.decode(info.get("created", now()), float, "game.created")
        definition = codec.decode(info.get("definition"), str | None, "game.definition")
    except codec.CodecError as exc:
        raise _log_error(where, exc.detail, exc.path) from None
    if definition is not None and len(definition.encode("utf-8")) > MAX_TEXT_FILE_BYTES:
        raise _log_error(where, _("the stored game definition is larger than {MAX_TEXT_FILE_BYTES} MB").format(MAX_TEXT_FILE_BYTES=MAX_TEXT_FILE_BYTES // (1024 * 1024)), "game.definition")
    if definition is not None and not _is_folder_ref(ref):
        raise _log_error(where, _("a stored definition belongs to a game folder, not to the shipped game {ref!r}").format(ref=ref),
                         "game.definition")
    if game_id is None:
        check_game_id(gid, where, "game.id")
    else:
        gid = check_game_id(game_id, Location(), "--as")
    row = GameRow(gid, ref, ruleset, players, created, definition)
    defn, _rest = definition_of(row)
    if ruleset != defn.id:
        raise _log_error(where, _("the log is of {ruleset!r}, but {ref!r} is {defn_id!r}").format(ruleset=ruleset, ref=ref, defn_id=defn.id), "game.ruleset")
    if len(players) != defn.players:
        raise _log_error(where, _("the log has {n_players} players; {defn_id} is for {players}").format(n_players=len(players), defn_id=defn.id, players=defn.players),
                         "game.players")
    raw = data.get("entries")
    if not isinstance(raw, list) or not raw:
        raise _log_error(where, _("the log has no entries (a game log starts with the game's setup entry)"),
                         "entries")
    entries: list[Entry] = []
    seen: dict[str, int] = {}
    previous = chain_seed(ref, ruleset, players, definition)
    for n, item in enumerate(raw, 1):
        try:
            entry = Entry.from_json(item, f"entry {n}")
        except codec.CodecError as exc:
            raise _entry_error(where, exc) from None
        if entry.seq != n:
            raise _log_error(where, _("entry {n}: seq {seq} where {n} was expected (a gap or a reordering in the log)").format(n=n, seq=entry.seq), "seq")
        if entry.kind not in ENTRY_KINDS:
            raise _log_error(where, _("entry {n}: unknown kind {kind!r} (one of {ENTRY_KINDS})").format(n=n, kind=entry.kind, ENTRY_KINDS=', '.join(ENTRY_KINDS)),
                             "kind")
        if entry.op_id in seen:
            raise _log_error(where, _("entry {n}: operation id {op_id!r} was already used by entry {seen}").format(n=n, op_id=entry.op_id, seen=seen[entry.op_id]), "op_id")
        seen[entry.op_id] = n
        digest = entry_digest(previous, entry)
        if entry.digest and entry.digest != digest:
            raise _log_error(where, _("entry {n}: its checksum does not match (the log was altered after export)").format(n=n),
                             "digest")
        previous = digest
        entries.append(entry)
    start = entries[0]
    if start.kind != "start":
        raise _log_error(where, _("entry 1: a game log starts with the game's setup entry"), "kind")
    began = [e for e in start.events if isinstance(e, ev.GameStarted)]
    if len(began) != 1 or began[0].players != players:
        raise _log_error(where, _("entry 1: its setup does not start a game of the log's players"), "events")
    replay = Replay()
    for entry in entries:
        try:
            replay.add(entry)
        except DataError as exc:
            raise DataError([Problem(p.message, where, field=p.field) for p in exc.problems]) from None
    return row, entries


#: A game id: it is typed in commands and names export files (``ID-intact.json``).
GAME_ID = re.compile(r"[^\W][\w.-]{0,99}")


def check_game_id(game_id: str, where: Location = Location(), field: str = "id") -> str:
    """Refuse an id that could not be typed as an argument or used in a file name."""
    if not GAME_ID.fullmatch(game_id):
        raise _log_error(where, _("game id {game_id!r} is not usable: letters, digits, '.', '-' and '_', at most 100 characters, not starting with '-' or '.'").format(game_id=game_id[:40]), field)
    return game_id


def import_game(store: Store, data: Any, game_id: str | None = None, source: str | Path | None = None) -> LiveGame:
    """Store an exported log (checked completely first: ``validate_log``)."""
    row, entries = validate_log(data, source, game_id)
    with store.transaction():
        store.add_game(row)
        for entry in entries:
            store.append(row.id, entry)
    return LiveGame(store, row.id)


def intact_export(store: Store, game_id: str) -> tuple[dict[str, Any], int, str]:
    """The intact prefix of a damaged game as an export: (data, entries kept, why it stops — "" if whole)."""
    recorded = store.recorded(game_id)  # before the table: a mark never runs ahead of what is read next
    row = store.game(game_id)
    entries, why = store.intact_entries(game_id)
    replay, kept = Replay(), []
    for entry in entries:
        try:
            replay.add(entry)
        except DataError as exc:
            why = str(exc)
            break
        kept.append(entry)
    if not why and recorded > len(kept):
        why = _("{recorded} entries were written, only {have} remain").format(recorded=recorded, have=len(kept))
    data = {"format": FORMAT, "version": FORMAT_VERSION, "game": _game_json(row),
            "entries": [e.to_json() for e in kept]}
    return data, len(kept), why


#: The environment variable that names a terminal's game (the CLI's ``--game`` reads it).
GAME_ENV = "CARDPRESS_GAME"


class NoGame(TrackerError):
    """The store holds no game yet."""


class WhichGame(TrackerError):
    """A command names no game and the store has more than one it could mean."""


def activity_time(ts: float) -> str:
    """A game's last activity as players read it (local time, to the minute)."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def pick_game(store: Store, game_id: str | None = None) -> str:
    """The game a command acts on: ``game_id`` when given, else the store's only game in progress.

    Nothing is ever chosen because it was started or opened last: with two tables on one store,
    that would send one table's commands to the other's game. So without an id, the game must
    be the only unfinished one (or the store's only game, even finished); otherwise ``WhichGame``
    lists the candidates (id, game, players, last activity) and says how to pick one.
    """
    if game_id:
        return game_id
    ids = store.game_ids()
    if not ids:
        raise NoGame(_("no game in {path} yet: start one with `cardpress track new GAME --players A B`").format(path=store.path))
    if len(ids) == 1:
        return ids[0]           # opening it names any damage precisely (``LiveGame``)
    ended = store.ended()
    playing = [gid for gid in ids if gid not in ended]
    if len(playing) == 1:
        return playing[0]
    rows = store.games()        # only to list the candidates: it counts every game's entries
    playing = [r for r in rows if r[0].id not in ended]
    if playing:
        head = _("{n} games in {path} are in progress, so a command must say which one").format(n=len(playing), path=store.path)
    else:
        head = _("no game in {path} is in progress; say which finished game you mean").format(path=store.path)
    listing = "\n".join(_("  {game}  {ruleset}  {players}  (last activity {when})").format(
        game=r.id, ruleset=r.ruleset, players=" vs ".join(r.players), when=activity_time(last))
                        for r, _sep, last in (playing or rows))
    raise WhichGame(_("{head}:\n{listing}\npick one with --game ID, or once per terminal: export {GAME_ENV}=ID").format(head=head, listing=listing, GAME_ENV=GAME_ENV))


def resume(store: Store, game_id: str | None = None) -> LiveGame:
    """Open ``game_id``, or the store's only game in progress (``pick_game``)."""
    return LiveGame(store, pick_game(store, game_id))


__all__ = ["LiveGame", "Outcome", "Replay", "import_game", "intact_export", "parse_log", "validate_log", "resume",
           "pick_game", "definition_of", "NothingToUndo", "NothingToRedo", "OpIdReused", "StoreConflict",
           "CardsUnavailable", "NoGame", "WhichGame", "StoredDefinition", "GAME_ENV", "FIRST_RANDOM", "new_op_id"]
