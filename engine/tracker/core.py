"""The decider: commands in, events out. Pure functions over ``State``; nothing here touches disk.

A command is a plain function ``fn(state, ctx, **args) -> list[Event]`` that raises
``IllegalCommand`` to refuse. ``run_command`` wraps every command the same way: refuse when the
game is over, run it, then let the game's rules end the game if someone has lost. Phase changes
(``next``) run the game's hooks (on exit, on turn begin, on enter); everything a hook produces
is returned with the command, so one undo takes it all back.
"""

from __future__ import annotations

from engine.i18n import N_, _
from engine.i18n import _ as tr
import dataclasses
import inspect
import secrets
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ..definitions import GameDefinition
from . import events as ev
from .errors import GameOver, IllegalCommand, TrackerError, UnknownCommand  # noqa: F401 - their public home was here
from .kit import Commands, CommandSpec, Param
from .state import State, apply

if TYPE_CHECKING:  # the types only: reading cards and decks is not every command's work
    from ..cards import Card

Command = Callable[..., list[ev.Event]]


@dataclass(frozen=True)
class Context:
    """What the rules may consult besides the state: the definition, the game's rules module, its cards."""

    defn: GameDefinition
    rules: ModuleType
    cards: Mapping[str, Card] = field(default_factory=dict)

    @property
    def numbers(self) -> Any:
        return self.defn.rules

    def turn_label(self, turn: int, round_: int) -> str:
        """The turn as this game's players say it: ``第3轮（第2回合）`` or ``第3回合``."""
        return self.defn.terms.label(turn, round_)

    def phase_name(self, phase_id: str) -> str:
        try:
            return self.defn.phase(phase_id).name
        except KeyError:
            return phase_id

    def card(self, key: str) -> Card | None:
        """A card by id or (exact) name, or None when the game's card data does not know it."""
        if key in self.cards:
            return self.cards[key]
        for card in self.cards.values():
            if card.name == key:
                return card
        return None


class Batch:
    """Events being decided, each applied at once so the next decision sees its effect."""

    def __init__(self, state: State):
        self.state = state
        self.events: list[ev.Event] = []

    def emit(self, *events: ev.Event) -> "Batch":
        for event in events:
            self.state = apply(self.state, event)
            self.events.append(event)
        return self


# ---------------------------------------------------------------------------- argument helpers


def who(state: State, token: Any) -> int:
    """A player index from a name (case-insensitive) or a 1-based seat number."""
    return seat_of([p.name for p in state.players], token)


def seat_of(names: Sequence[str], token: Any) -> int:
    """The index of the player ``token`` names: exact name, then any case, then a 1-based seat."""
    if isinstance(token, int) and not isinstance(token, bool):
        if 1 <= token <= len(names):
            return token - 1
    else:
        text = str(token).strip()
        for i, name in enumerate(names):
            if name == text:
                return i
        for i, name in enumerate(names):
            if name.casefold() == text.casefold():
                return i
        if text.isdigit() and 1 <= int(text) <= len(names):
            return int(text) - 1
    raise IllegalCommand(_("unknown player {token!r}; the players are {names}").format(token=token, names=', '.join(names)))


def count(value: Any, what: str, minimum: int = 1) -> int:
    """A whole number ≥ ``minimum`` from a command argument."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise IllegalCommand(_("{what} must be a whole number, got {value!r}").format(what=tr(what), value=value)) from None
    if number < minimum:
        raise IllegalCommand(_("{what} must be at least {minimum}, got {number}").format(what=tr(what), minimum=minimum, number=number))
    return number


def signed(value: Any, what: str) -> int:
    """A non-zero whole number, ``+3`` or ``-2``."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise IllegalCommand(_("{what} must be a whole number like +3 or -2, got {value!r}").format(what=tr(what), value=value)) from None
    if number == 0:
        raise IllegalCommand(_("{what} of 0 changes nothing").format(what=tr(what)))
    return number


def require_active(state: State, player: int, what: str) -> None:
    if player != state.active:
        raise IllegalCommand(
            _("{what}: it is {name}'s turn, not {name2}'s").format(what=tr(what), name=state.players[state.active].name, name2=state.players[player].name)
        )


def require_phase(state: State, ctx: Context, phases: tuple[str, ...], what: str) -> None:
    if state.phase not in phases:
        allowed = "、".join(ctx.phase_name(p) for p in phases)
        raise IllegalCommand(_("{what} only in {allowed} (now: {phase_name})").format(what=tr(what), allowed=allowed, phase_name=ctx.phase_name(state.phase)))


# ---------------------------------------------------------------------------- turn flow


def round_of(turn: int, players: int) -> int:
    """Turn 1, 2 → round 1; turn 11 → round 6 (two players)."""
    return (turn - 1) // players + 1


def _enter(batch: Batch, ctx: Context, phase: str, reason: str) -> None:
    batch.emit(ev.PhaseEntered(phase=phase, reason=reason))
    batch.emit(*ctx.rules.on_enter(batch.state, ctx))


def begin_turn(batch: Batch, ctx: Context, turn: int, player: int) -> None:
    """Start ``turn`` for ``player``: turn hooks, then the turn's first phase and its reminders."""
    s = batch.state
    round_ = round_of(turn, len(s.players))
    batch.emit(ev.TurnBegan(turn=turn, round=round_, player=player,
                            reason=f"{ctx.turn_label(turn, round_)}开始，行动方：{s.players[player].name}"))
    batch.emit(*ctx.rules.on_turn_begin(batch.state, ctx))
    if batch.state.over:
        return
    first = ctx.rules.first_phase(batch.state, ctx)
    default = ctx.defn.phases[0].id
    reason = "回合开始" if first == default else f"先手第一回合跳过{_skipped(ctx, default, first)}"
    _enter(batch, ctx, first, reason)


def _skipped(ctx: Context, start: str, first: str) -> str:
    ids = [p.id for p in ctx.defn.phases]
    return "与".join(ctx.phase_name(p) for p in ids[ids.index(start):ids.index(first)])


def settle(batch: Batch, ctx: Context) -> None:
    """End the game if the rules say someone has lost (both at once: a draw)."""
    s = batch.state
    if s.over:
        return
    losers = ctx.rules.losers(s, ctx)
    if not losers:
        return
    lost = {p for p, _rest in losers}
    reason = "；".join(f"{s.players[p].name}{why}" for p, why in losers)
    survivors = [i for i in range(len(s.players)) if i not in lost]
    winner = survivors[0] if len(survivors) == 1 else None
    batch.emit(ev.GameEnded(winner=winner, reason=reason + ("" if winner is not None else "（平局）")))


CORE = Commands("core")


@CORE.command(label="下一阶段", help=N_("Advance one phase (after the last phase: the next player's turn), with its automatic effects."),
              examples=("next",), name="next")
def next_phase(state: State, ctx: Context) -> list[ev.Event]:
    """Leave the current phase (its exit hooks may refuse) and enter the next; after the last, the next turn."""
    batch = Batch(state)
    batch.emit(*ctx.rules.on_exit(state, ctx))
    settle(batch, ctx)
    if batch.state.over:
        return batch.events
    ids = [p.id for p in ctx.defn.phases]
    i = ids.index(state.phase)
    if i + 1 < len(ids):
        _enter(batch, ctx, ids[i + 1], f"{ctx.phase_name(state.phase)}结束")
    else:
        begin_turn(batch, ctx, state.turn + 1, state.other(state.active))
    return batch.events


@CORE.command(Param.player(), label="认输", help=N_("A player concedes; the other wins."), examples=("concede B",))
def concede(state: State, ctx: Context, player: Any) -> list[ev.Event]:
    p = who(state, player)
    winner = state.other(p)
    return [
        ev.Conceded(player=p, reason="认输"),
        ev.GameEnded(winner=winner, reason=f"{state.players[p].name}认输"),
    ]


@CORE.command(Param.player(help=N_("The player who wins.")),
              Param("why", "text", N_("The card or condition that wins (for the log)."), option=True, label="原因"),
              label="宣告胜利", help=N_("A player wins by a card's or an organisation's special condition (not a concession)."),
              examples=('win A --why "G.O.I 特殊胜利：集齐三座前哨"',))
def win(state: State, ctx: Context, player: Any, why: str) -> list[ev.Event]:
    p = who(state, player)
    reason = str(why).strip()
    if not reason:
        raise IllegalCommand(_("win: say which card or condition wins with --why"))
    return [ev.WinDeclared(player=p, reason=reason),
            ev.GameEnded(winner=p, reason=f"{state.players[p].name}：{reason}")]


#: Sides of the largest die ``roll`` throws (a d100 is the largest die players own).
MAX_DIE_FACES = 100


@CORE.command(Param("faces", "text", N_("Sides of the die (2–100), or coin."), "6"),
              Param("player", "player", N_("Who rolls (for the log)."), None, option=True),
              label="掷骰", labels={'faces': '面数', 'player': '掷骰者'}, help=N_("Roll a die or toss a coin; the result is drawn once and kept in the log."),
              examples=("roll", "roll 20 --player A", "roll coin"))
def roll(state: State, ctx: Context, faces: Any = "6", player: Any = None) -> list[ev.Event]:
    text = str(faces).strip().lower()
    sides = 2 if text in ("coin", "硬币") else count(text, N_("faces of the die"), minimum=2)
    if sides > MAX_DIE_FACES:
        raise IllegalCommand(_("a die has at most {MAX_DIE_FACES} faces, not {sides}").format(MAX_DIE_FACES=MAX_DIE_FACES, sides=sides))
    who_rolls = None if player in (None, "") else who(state, player)
    # secrets, not random: nobody at the table can predict or replay-steer the draw.
    return [ev.DieRolled(faces=sides, result=secrets.randbelow(sides) + 1, player=who_rolls,
                         reason="掷硬币" if sides == 2 else f"掷{sides}面骰")]


@CORE.command(Param("text", "text", N_("Anything worth remembering.")), label="备注", labels={'text': '内容'}, help=N_("Write a note into the log."),
              examples=('note "B used the G.O.I special win condition"',))
def note(state: State, ctx: Context, text: str) -> list[ev.Event]:
    if not str(text).strip():
        raise IllegalCommand(_("a note needs some text"))
    return [ev.NoteAdded(text=str(text).strip(), reason="玩家备注")]


def commands_of(ctx: Context) -> dict[str, CommandSpec]:
    """Every command of the game being played: the core's, then its rules module's."""
    return {**CORE.specs, **ctx.rules.COMMANDS.specs}


def run_command(state: State, ctx: Context, name: str, args: Mapping[str, Any]) -> list[ev.Event]:
    """Decide what command ``name`` does now: its events plus any game end. Raises ``IllegalCommand``."""
    if not state.started:
        raise IllegalCommand(_("the game has not started"))
    if state.over:
        winner = state.players[state.winner].name if state.winner is not None else "nobody (draw)"
        raise GameOver(_("the game is over ({end_reason}; winner: {winner}); only undo/redo are allowed").format(end_reason=state.end_reason, winner=winner))
    table = commands_of(ctx)
    spec = table.get(name)
    if spec is None or spec.query:
        actions = sorted(k for k, v in table.items() if not v.query)
        raise UnknownCommand(_("unknown command {name!r} for {id}; commands: {actions}").format(name=name, id=ctx.defn.id, actions=', '.join(actions)))
    unknown = set(args) - {p.name for p in spec.params}
    missing = [p.name for p in spec.params if p.required and p.name not in args]
    if unknown or missing:
        # Checked against the declaration, so a TypeError inside a rule stays a crash (a bug),
        # never passed off as an illegal move.
        why = ([_("no parameter {names}").format(names=", ".join(sorted(unknown)))] if unknown else []) \
            + ([_("missing {names}").format(names=", ".join(missing))] if missing else [])
        raise IllegalCommand(_("{command}: {why}").format(command=spec.cli_name, why=_("; ").join(why)))
    produced = spec.run(state, ctx, **args)
    batch = Batch(state).emit(*produced)
    settle(batch, ctx)
    return batch.events


def start_game(ctx: Context, players: tuple[str, ...], first: int = 0, **options: Any) -> list[ev.Event]:
    """The events that set up a game and begin its first turn."""
    if len(players) != ctx.defn.players:
        raise IllegalCommand(_("{id} is for {players} players, got {n_players}").format(id=ctx.defn.id, players=ctx.defn.players, n_players=len(players)))
    if len(set(p.casefold() for p in players)) != len(players) or not all(p.strip() for p in players):
        raise IllegalCommand(_("player names must be non-empty and different"))
    if not 0 <= first < len(players):
        raise IllegalCommand(_("first player must be one of {players}").format(players=', '.join(players)))
    batch = Batch(State())
    # A game takes the setup options its ``setup`` names (backrooms: ``levels``); one given to
    # a game that has no use for it is refused rather than silently dropped.
    accepted = inspect.signature(ctx.rules.setup).parameters
    for key, value in options.items():
        if value and key not in accepted and key != "decks":
            raise IllegalCommand(_("--{option} is not an option of {id}").format(option=key.replace('_', '-'), id=ctx.defn.id))
    setup = ctx.rules.setup(ctx, tuple(players), first, **{k: v for k, v in options.items() if k in accepted})
    decks = options.get("decks") or {}
    if decks:
        # Every game's pieces enter from these lists; the kernel records them, no game does.
        lists = tuple(tuple(decks[i].entries) if i in decks else () for i in range(len(players)))
        setup = [dataclasses.replace(e, decks=lists) if isinstance(e, ev.GameStarted) else e for e in setup]
    # Opening reminders (who draws how many) go after the first phase is entered, so they show on the board.
    batch.emit(*(e for e in setup if not isinstance(e, ev.ReminderGiven)))
    begin_turn(batch, ctx, 1, first)
    batch.emit(*(e for e in setup if isinstance(e, ev.ReminderGiven)))
    settle(batch, ctx)
    return batch.events
