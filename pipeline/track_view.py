"""Text rendering of a live game for the terminal: the board, event lines, the log. No Typer here."""

from __future__ import annotations

from engine.tracker.describe import describe
from engine.tracker.session import LiveGame, Outcome
from engine.tracker.view import live_status, log_lines


def board(live: LiveGame) -> str:
    """The compact board shown after every command in play mode and by ``status``."""
    s = live_status(live)
    names = {p.id: p.name for p in live.defn.phases}
    phases = " ▸ ".join(f"【{names[p]}】" if p == s["phase"] else names[p] for p in s["phases"])
    lines = [f"{s['game_name']} · {s['id']}",
             f"{live.ctx.turn_label(s['turn'], s['round'])} 行动方：{s['active']}",
             f"阶段：{phases}"]
    if live.definition_note:  # a folder game whose folder moved: say what the board runs on
        lines.insert(1, f"⚠ {live.definition_note}")
    lines += live.ctx.rules.board_lines(s, live.ctx)
    for r in s["reminders"]:
        lines.append(f"  • {r}")
    if s["over"]:
        winner = f"{s['winner']}获胜" if s["winner"] else "平局"
        lines.append(f"对局结束：{winner}（{s['end_reason']}）")
    return "\n".join(lines)


def outcome_lines(live: LiveGame, outcome: Outcome) -> list[str]:
    """What one command did, as shown after it runs."""
    entry = outcome.entry
    if outcome.repeated:
        return [f"operation {entry.op_id} was already applied as #{entry.seq}: nothing changed"]
    if entry.kind in ("undo", "redo"):
        target = live.replay.entries[entry.target]
        verb = "撤销" if entry.kind == "undo" else "重做"
        return [f"{verb} #{target.seq}（{target.command}）"] + [
            f"  {describe(e, live.row.players, live.ctx.phase_name, live.ctx.turn_label)}" for e in target.events]
    return [describe(e, live.row.players, live.ctx.phase_name, live.ctx.turn_label) + (f" —— {e.reason}" if e.reason else "")
            for e in entry.events]


def log_text(live: LiveGame, tail: int | None = None) -> str:
    lines = log_lines(live)
    if tail:
        lines = lines[-tail:]
    return "\n".join(l.text() for l in lines)
