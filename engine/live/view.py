"""Read models of a live game: ``status_json`` (stable English snake_case ids) and the readable log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from ..tracker.core import Context, commands_of
from ..tracker.describe import describe
from ..tracker.kit import CommandSpec
from .session import LiveGame
from ..tracker.state import State


def status_json(state: State, ctx: Context, game_id: str = "") -> dict[str, Any]:
    """The board as data: ``game``, ``turn``, ``round``, ``phase``, ``active``, ``over``, ``winner``,
    ``players`` (each with ``name`` and the game's resources) and the game's extras."""
    names = [p.name for p in state.players]
    data: dict[str, Any] = {
        "id": game_id,
        "game": ctx.defn.id,
        "game_name": ctx.defn.name,
        "ruleset": ctx.defn.rules.ruleset if ctx.defn.rules else None,
        "turn": state.turn,
        "round": state.round,
        "turn_label": ctx.turn_label(state.turn, state.round),
        "phase": state.phase,
        "phase_name": ctx.phase_name(state.phase),
        "phases": [p.id for p in ctx.defn.phases],
        "active": names[state.active] if names else None,
        "first": names[state.first] if names else None,
        "over": state.over,
        "winner": names[state.winner] if state.winner is not None else None,
        "end_reason": state.end_reason or None,
        "reminders": list(state.reminders),
        "players": [{"name": p.name, **ctx.rules.player_json(p, state, ctx)} for p in state.players],
    }
    data.update(ctx.rules.state_json(state, ctx))
    return data


def live_status(live: LiveGame) -> dict[str, Any]:
    data = status_json(live.state, live.ctx, live.id)
    data["can_undo"] = live.can_undo
    data["can_redo"] = live.can_redo
    data["entries"] = live.replay.last_seq
    return data


@dataclass(frozen=True, slots=True)
class LogLine:
    """One log entry as shown: ``#seq command args`` then what happened and why, indented."""

    seq: int
    title: str
    lines: tuple[str, ...]
    in_effect: bool

    def text(self) -> str:
        mark = "" if self.in_effect else "（已撤销）"
        return "\n".join([f"#{self.seq} {self.title}{mark}", *(f"    {l}" for l in self.lines)])


def entry_title(live: LiveGame, entry: Any) -> str:
    """How a stored command reads (``受到伤害 B 伤害7 前哨站1``), for one entry."""
    return _title(commands_of(live.ctx), entry.command, entry.args)


def _title(specs: Mapping[str, CommandSpec], command: str, args: dict[str, Any]) -> str:
    """A command as players read it: ``受到伤害 B 伤害7 前哨站1`` (the declaration's labels),
    never a Python name or ``amount=7``."""
    if command == "new":
        return "开局"
    spec = specs.get(command)
    if spec is None:  # a command this cardpress no longer has: show what was stored
        return " ".join([command, *(f"{k}={v}" for k, v in args.items())])
    return f"{spec.label} {spec.describe_args(args)}".strip()


def log_lines(live: LiveGame, tail: int | None = None) -> list[LogLine]:
    """The log as shown, oldest first; ``tail``: only the last ``tail`` entries (read and
    described alone: a long game's ``log --tail 5`` does not describe the whole game)."""
    names = tuple(live.row.players)
    specs = commands_of(live.ctx)  # once per log, not once per entry
    out = []
    last = live.replay.last_seq
    first = max(last - tail, 0) + 1 if tail else 1
    in_effect = live.replay.in_effect_from(first)
    entries = (live.replay.entries[seq] for seq in range(first, last + 1)) if tail else live.entries()
    for entry in entries:
        if entry.kind == "undo":
            target = live.replay.entries[entry.target]
            title, lines, effect = f"撤销 #{entry.target}（{_title(specs, target.command, target.args)}）", (), True
        elif entry.kind == "redo":
            target = live.replay.entries[entry.target]
            title, lines, effect = f"重做 #{entry.target}（{_title(specs, target.command, target.args)}）", (), True
        else:
            title = _title(specs, entry.command, entry.args)
            effect = entry.seq in in_effect
            lines = tuple(
                describe(e, names, live.ctx.phase_name, live.ctx.turn_label) + (f" —— {e.reason}" if e.reason else "")
                for e in entry.events
            )
        out.append(LogLine(entry.seq, title, lines, effect))
    return out
