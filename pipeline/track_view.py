"""Text rendering of a live game for the terminal: the board, event lines, the log. No Typer here."""

from __future__ import annotations

from typing import Any

from engine.tracker.describe import describe
from engine.tracker.session import LiveGame, Outcome
from engine.tracker.view import live_status, log_lines


def _player_line(ruleset: str, p: dict[str, Any], active: bool, labels: dict[str, str]) -> str:
    mark = "▶" if active else " "
    if ruleset == "generic":
        values = " | ".join(f"{labels.get(k, k)} {v}" for k, v in p["counters"].items())
        return f"{mark} {p['name']}: {values or '（无计数）'}"
    if ruleset == "backrooms":
        hp = " ".join(f"[{h}]" for h in p["outposts"]) or "（无）"
        extra = "  ⚠须放置/带入前哨" if p["must_place_outpost"] else ""
        return (f"{mark} {p['name']}: 费用 {p['cost']} | 前哨 {hp} | 已摧毁 {p['outposts_destroyed']} | "
                f"可带入 {p['carries_left']}{extra}")
    if ruleset == "duel":
        return (f"{mark} {p['name']}: 生命 {p['life']} | 牌库 {p['deck']} 手牌 {p['hand']} 场上 {p['fighters']} "
                f"幽冥 {p['netherworld']} | 降临 {p['descents_used']}/{p['descents_per_turn']} "
                f"技能 {p['in_turn_skills_used']}/{p['in_turn_skills_per_turn']} "
                f"抽牌技能 {'已用' if p['draw_skill_used'] else '未用'}" + (" 贯穿" if p["pierce"] else ""))
    timers = "；".join(f"{t['operator']}·{t['skill']} {t['turns_left']}T" for t in p["timers"]) or "无"
    invaded = " | ⚠部署区有敌方干员" if p["enemy_in_deploy"] else ""
    return (f"{mark} {p['name']}: 理智 {p['sanity']} | 充能 {p['charges']} | "
            f"部署 {p['deployments_used']}/{p['deployments_per_turn']} | 技能槽充能 {'已用' if p['skill_slot_charged'] else '未用'} | "
            f"计时 {timers}{invaded}")


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
    if s["ruleset"] == "backrooms":
        lines.append(f"层级：{s['level']} | {s['rounds_to_cut']}回合后切出，下一层级：{s['next_level']}")
    rules = live.defn.rules
    labels = {k: c.label for k, c in getattr(rules, "counters", {}).items()}
    for p in s["players"]:
        lines.append(_player_line(s["ruleset"], p, p["name"] == s["active"], labels))
    if s.get("chain"):
        lines.append("连锁：" + " ← ".join(
            f"{l['link']}.{l['player']}:{l['text']}" + ("（已无效）" if l["negated"] else "") for l in s["chain"]))
    if s.get("last_resolution"):
        lines.append("上次连锁处理顺序：" + " → ".join(s["last_resolution"]))
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
