"""Any game: turns, rounds and phases from the definition, reminders from the phase
descriptions, and the per-player counters ``rules.counters`` declares (with an optional loss
threshold). This is what a designer's own game (``cardpress new``) is tracked with.
"""

from __future__ import annotations

from engine.i18n import N_, _
from typing import TYPE_CHECKING, Any, Mapping

from ...tracker import events as kev
from . import events as ev
from ...tracker.core import Context, IllegalCommand, signed, who
from ...tracker.kit import turn_mark as _mark
from ...tracker.kit import Commands, Param
from . import sentences  # noqa: F401 - imported to register the game's log lines
from .state import GenericPlayer as Player, GenericState as State

if TYPE_CHECKING:  # the types only: reading cards and decks is not every command's work
    from ...decks import Deck

RULESET = "generic"
COMMANDS = Commands(RULESET)


def setup(ctx: Context, players: tuple[str, ...], first: int,
          decks: Mapping[int, Deck] | None = None) -> list[kev.Event]:
    counters = ctx.numbers.counters
    start = "，".join(f"{c.label}{c.start}" for c in counters.values())
    out: list[kev.Event] = [kev.GameStarted(game=ctx.defn.id, ruleset=RULESET, players=players, first=first,
                                          reason=f"开局：{start}" if start else "开局")]
    for i in range(len(players)):
        for name, c in counters.items():
            out.append(ev.CounterChanged(player=i, counter=name, delta=c.start, reason=f"{c.label}初始值"))
    return out


def first_phase(state: State, ctx: Context) -> str:
    return ctx.defn.phases[0].id


def on_turn_begin(state: State, ctx: Context) -> list[kev.Event]:
    return []


def on_enter(state: State, ctx: Context) -> list[kev.Event]:
    description = ctx.defn.phase(state.phase).description
    return [kev.ReminderGiven(text=description, reason=ctx.phase_name(state.phase))] if description else []


def on_exit(state: State, ctx: Context) -> list[kev.Event]:
    return []


def losers(state: State, ctx: Context) -> list[tuple[int, str]]:
    out = []
    for i, p in enumerate(state.players):
        for name, c in ctx.numbers.counters.items():
            if c.lose_at is not None and p.counter(name) <= c.lose_at:
                out.append((i, f"{c.label}降至{p.counter(name)}"))
                break
    return out


@COMMANDS.command(Param.player(), Param("name", "text", N_("Counter id or label from game.yaml.")),
                  Param("delta", "signed", N_("Change, e.g. -3 or +2.")), Param.why(),
                  label="计数变化", labels={'name': '计数', 'delta': '变化'}, help=N_("Change a player's counter (games tracked by the generic ruleset: rules.counters in game.yaml)."),
                  examples=('counter A life -3 --why "spark"',))
def counter(state: State, ctx: Context, player: Any, name: str, delta: Any, why: str = "") -> list[kev.Event]:
    """Change one of ``player``'s counters by ``delta`` (``-3``, ``+2``)."""
    i = who(state, player)
    counters = ctx.numbers.counters
    if name not in counters:
        by_label = {c.label: key for key, c in counters.items()}
        if name not in by_label:
            raise IllegalCommand(_("unknown counter {name!r}; this game has: {value}").format(name=name, value=', '.join((f'{k} ({c.label})' for k, c in counters.items())) or 'none'))
        name = by_label[name]
    return [ev.CounterChanged(player=i, counter=name, delta=signed(delta, N_("change")), reason=why or "卡牌效果")]


def player_json(p: Player, state: State, ctx: Context) -> dict[str, Any]:
    return {"counters": {name: p.counter(name) for name in ctx.numbers.counters}}


def state_json(state: State, ctx: Context) -> dict[str, Any]:
    return {}


def board_lines(s: dict[str, Any], ctx: Context) -> list[str]:
    """The game's part of the text board, from ``status_json`` (``s``)."""
    labels = {k: c.label for k, c in ctx.numbers.counters.items()}
    out = []
    for p in s["players"]:
        values = " | ".join(f"{labels.get(k, k)} {v}" for k, v in p["counters"].items())
        out.append(f"{_mark(p, s)} {p['name']}: {values or '（无计数）'}")
    return out


def board_view(s: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """The board as the table page shows it (``engine.live.board``): each player's counters,
    the first one large."""
    from ...live.board import stat

    counters = ctx.numbers.counters
    return {"players": [{"stats": [stat(counters[k].label if k in counters else k, v, key=n == 0)
                                   for n, (k, v) in enumerate(p["counters"].items())]}
                        for p in s["players"]]}
