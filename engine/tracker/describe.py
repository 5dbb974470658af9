"""Human sentences (Chinese, as at the table) for events: what happened; the event's reason says why.

The kernel's events read here; each game's read in ``engine/games/<game>/sentences.py``."""

from __future__ import annotations

from typing import Any, Callable

from . import events as ev

Names = tuple[str, ...]
#: A player's name from a seat index ("?" for none).
Name = Callable[[int | None], str]
_SENTENCES: dict[type, Callable[[Any, Name], str]] = {}


def sentence(cls: type) -> Callable:
    """Register how events of ``cls`` (a game's own) read: ``fn(event, name_of) -> str``."""

    def register(fn: Callable[[Any, Name], str]) -> Callable[[Any, Name], str]:
        _SENTENCES[cls] = fn
        return fn

    return register


def sentences(templates: dict[type, str]) -> None:
    """Register events that read as a plain template: ``{p}`` is the name of the event's
    ``player``, ``{e.field}`` a field (``{CostGained: "{p}获得{e.amount}费用"}``)."""
    for cls, template in templates.items():
        _SENTENCES[cls] = lambda e, n, t=template: t.format(e=e, p=n(getattr(e, "player", None)))

PhaseName = Callable[[str], str]
TurnLabel = Callable[[int, int], str]


def _turn_label(turn: int, round_: int) -> str:
    return f"第{turn}回合"


def describe(event: ev.Event, names: Names, phase_name: PhaseName = str, turn_label: TurnLabel = _turn_label) -> str:
    """One line for ``event``: "A获得11费用". Unknown events fall back to their class name."""
    n = lambda i: names[i] if i is not None and 0 <= i < len(names) else "?"  # noqa: E731
    e = event
    match e:
        case ev.GameStarted():
            return f"新对局：{' 对 '.join(e.players)}，先手{e.players[e.first]}"
        case ev.TurnBegan():
            return f"{turn_label(e.turn, e.round)}：{n(e.player)}行动"
        case ev.PhaseEntered():
            return f"进入{phase_name(e.phase)}"
        case ev.ReminderGiven():
            return f"提示：{e.text}"
        case ev.DieRolled():
            by = f"{n(e.player)}" if e.player is not None else ""
            if e.faces == 2:
                return f"{by}掷硬币：{'正面' if e.result == 1 else '反面'}"
            return f"{by}掷骰（{e.faces}面）：{e.result}"
        case ev.NoteAdded():
            return f"备注：{e.text}"
        case ev.Conceded():
            return f"{n(e.player)}认输"
        case ev.WinDeclared():
            return f"{n(e.player)}达成特殊胜利条件"
        case ev.GameEnded():
            return f"对局结束：{n(e.winner)}获胜" if e.winner is not None else "对局结束：平局"
    fn = _SENTENCES.get(type(e))
    return fn(e, n) if fn is not None else type(e).__name__
