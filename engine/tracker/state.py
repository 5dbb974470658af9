"""State and the reducer: ``apply(state, event) -> state``, a pure fold that only copies.

The reducer never decides anything: it writes down what an event says happened. Rules
(what a command produces, what a phase triggers, who lost) live in ``engine/games/<game>``.

The kernel's ``State`` and ``Player`` know only what every game has: seats, turns, phases,
reminders, the end, and the pieces on the board (``Piece``: an id such as ``A1``, its owner
and its card). Each game subclasses them with its own fields (``engine/games/<game>/state.py``),
registers its classes with ``game_classes`` and its reducers with ``reducer``; a game may
also follow a kernel event (``reducer(TurnBegan, ruleset="duel")`` resets its per-turn counts).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Callable, Iterable

from .records import Record, record
from . import codec
from . import events as ev


_FIELDS: dict[type, tuple[str, ...]] = {}


def replace(obj, **changes):
    """``dataclasses.replace`` for our frozen, slotted state classes, 4× faster.

    The reducer copies state on every event, so replaying a long game is mostly this call;
    the stdlib version re-runs ``__init__`` with its argument handling for every field. These
    classes have no ``__post_init__`` and no init-only fields, so copying the slots is exact.
    """
    cls = type(obj)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in fields(cls))
    new = object.__new__(cls)
    setter = object.__setattr__
    for name in names:
        setter(new, name, changes.pop(name) if name in changes else getattr(obj, name))
    if changes:
        raise TypeError(f"{cls.__name__} has no field(s) {sorted(changes)}")
    return new


@record
class Player(Record):
    """A seat at the table; each game's ``Player`` adds its resources."""

    name: str


@record
class Piece(Record):
    """A card on the board. ``id`` (``A1``: the owner's seat letter and a number) is given when
    it enters and never reused or renumbered in that game; each game's pieces add their values."""

    id: str
    owner: int
    card: str
    name: str


@record
class State(Record):
    game: str = ""
    ruleset: str = ""
    players: tuple[Player, ...] = ()
    first: int = 0
    turn: int = 0
    round: int = 0
    active: int = 0
    phase: str = ""
    over: bool = False
    winner: int | None = None
    end_reason: str = ""
    #: What the rules remind the players of in the current phase (reset on each phase).
    reminders: tuple[str, ...] = ()
    #: Every piece on the board, in the order they entered.
    pieces: tuple[Piece, ...] = ()
    #: Pieces each player has put on the board so far (the number in the next piece id).
    pieces_made: tuple[int, ...] = ()
    #: Each player's deck list, (card id, copies), as given at the start.
    decks: tuple[tuple[tuple[str, int], ...], ...] = ()

    @property
    def started(self) -> bool:
        return bool(self.players)

    def player(self, index: int) -> Player:
        return self.players[index]

    def other(self, index: int) -> int:
        return (index + 1) % len(self.players)

    def piece(self, piece_id: str) -> Piece | None:
        for piece in self.pieces:
            if piece.id == piece_id:
                return piece
        return None

    def pieces_of(self, owner: int) -> tuple[Piece, ...]:
        return tuple(p for p in self.pieces if p.owner == owner)


codec.register(Player, Piece, State)


# ---------------------------------------------------------------------------- what each game adds

#: ruleset → (its State class, its Player class).
_GAME_CLASSES: dict[str, tuple[type[State], type[Player]]] = {}


def game_classes(ruleset: str, state_cls: type[State], player_cls: type[Player], *others: type) -> None:
    """Register a game's ``State`` and ``Player`` subclasses (and its pieces and other state
    classes, for snapshots)."""
    if not (issubclass(state_cls, State) and issubclass(player_cls, Player)):
        raise TypeError(f"{ruleset}: state classes must subclass State and Player")
    _GAME_CLASSES[ruleset] = (state_cls, player_cls)
    codec.register(state_cls, player_cls, *others)


def classes_of(ruleset: str) -> tuple[type[State], type[Player]]:
    if ruleset not in _GAME_CLASSES:
        from ..games import game_module

        game_module(ruleset)  # importing the game registers its classes
    return _GAME_CLASSES[ruleset]


def piece_letter(owner: int) -> str:
    """``A`` for the first seat, ``B`` for the second…"""
    return chr(ord("A") + owner)


def next_piece_id(state: State, owner: int) -> str:
    """The id the next piece ``owner`` puts on the board gets: ``A3`` after A1 and A2 (even if
    they have left)."""
    made = state.pieces_made[owner] if owner < len(state.pieces_made) else 0
    return f"{piece_letter(owner)}{made + 1}"


def add_piece(state: State, piece: Piece) -> State:
    made = list(state.pieces_made) + [0] * (len(state.players) - len(state.pieces_made))
    made[piece.owner] += 1
    return replace(state, pieces=state.pieces + (piece,), pieces_made=tuple(made))


def change_piece(state: State, piece_id: str, **changes) -> State:
    return replace(state, pieces=tuple(replace(p, **changes) if p.id == piece_id else p for p in state.pieces))


def put_piece(state: State, piece: Piece) -> State:
    """``piece`` in place of the piece with its id."""
    return replace(state, pieces=tuple(piece if p.id == piece.id else p for p in state.pieces))


def remove_piece(state: State, piece_id: str) -> State:
    return replace(state, pieces=tuple(p for p in state.pieces if p.id != piece_id))


# ---------------------------------------------------------------------------- reducer

Handler = Callable[[State, ev.Event], State]
_HANDLERS: dict[type, Handler] = {}
#: (ruleset, kernel event class) → what that game does after the kernel's reducer.
_FOLLOWERS: dict[tuple[str, type], Handler] = {}


def reducer(cls: type, ruleset: str | None = None) -> Callable[[Handler], Handler]:
    """Register the reducer of event class ``cls``; with ``ruleset``, a game's follow-up to a
    kernel event."""

    def register(fn: Handler) -> Handler:
        if ruleset is None:
            if cls in _HANDLERS:
                raise TypeError(f"two reducers for {cls.__name__}")
            _HANDLERS[cls] = fn
        else:
            _FOLLOWERS[(ruleset, cls)] = fn
        return fn

    return register


def with_player(state: State, index: int, **changes) -> State:
    players = list(state.players)
    players[index] = replace(players[index], **changes)
    return replace(state, players=tuple(players))


def apply(state: State, event: ev.Event) -> State:
    """The state after ``event``. Pure: ``state`` is never modified."""
    cls = type(event)
    state = _HANDLERS[cls](state, event)
    follow = _FOLLOWERS.get((state.ruleset, cls)) if _FOLLOWERS else None
    return follow(state, event) if follow is not None else state


def fold(events: Iterable[ev.Event], state: State | None = None) -> State:
    """Apply ``events`` in order, from ``state`` (default: before the game)."""
    state = State() if state is None else state
    for event in events:
        state = apply(state, event)
    return state


@reducer(ev.GameStarted)
def _started(s: State, e: ev.GameStarted) -> State:
    state_cls, player_cls = classes_of(e.ruleset)
    start = dict(e.starting)
    players = tuple(player_cls(name=name, **start) for name in e.players)
    state = state_cls(game=e.game, ruleset=e.ruleset, players=players, first=e.first, active=e.first,
                      pieces_made=(0,) * len(players), decks=e.decks)
    return apply(state, e.setup) if e.setup is not None else state


@reducer(ev.TurnBegan)
def _turn(s: State, e: ev.TurnBegan) -> State:
    return replace(s, turn=e.turn, round=e.round, active=e.player, phase="", reminders=())


@reducer(ev.PhaseEntered)
def _phase(s: State, e: ev.PhaseEntered) -> State:
    return replace(s, phase=e.phase, reminders=())


@reducer(ev.ReminderGiven)
def _reminder(s: State, e: ev.ReminderGiven) -> State:
    return replace(s, reminders=s.reminders + (e.text,))


@reducer(ev.NoteAdded)
@reducer(ev.DieRolled)
@reducer(ev.Conceded)
@reducer(ev.WinDeclared)
def _log_only(s: State, e: ev.Event) -> State:
    return s  # a fact for the log; the board does not change


@reducer(ev.GameEnded)
def _ended(s: State, e: ev.GameEnded) -> State:
    return replace(s, over=True, winner=e.winner, end_reason=e.reason)


def check_reducers() -> None:
    """Every registered event has a reducer (called once every game is loaded)."""
    missing = set(ev.EVENT_TYPES.values()) - set(_HANDLERS)
    assert not missing, f"events without a reducer: {sorted(c.__name__ for c in missing)}"
