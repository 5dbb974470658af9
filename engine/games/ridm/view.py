"""ridm's board as the table page shows it (``engine.live.board``), from ``status_json``.

Everything ``rules.board_lines`` prints, in its words: each commander's sanity and charges (the
headline numbers), deployments, the skill-slot charge, the timers, the card counts, the
preparation zone, the charge slot and the skill slot; each side's deploy and action zone (one
place each, game.yaml's capacity) with the operator standing there — whoever owns it, so an
invader shows in its victim's deploy zone — and the enemy in one's deploy zone as an alert.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...live.board import piece, stat, zone
from ...tracker.core import Context
from . import board, counts

#: The zones of each side, in lane order from its commander, with their names at the table.
ZONES = ((board.DEPLOY, board.ZONE_NAMES[board.DEPLOY]), (board.ACTION, board.ZONE_NAMES[board.ACTION]))


def _shown(value: Any) -> Any:
    return counts.UNKNOWN if value is None else value


def _skill_card(ctx: Context, skill: str) -> str | None:
    card = ctx.card(skill) if ctx.cards else None
    return card.id if card is not None and card.type == "skill" else None


def operator_piece(o: Mapping[str, Any], zone_owner: str, ctx: Context) -> dict[str, Any]:
    """One operator: its current 攻/防/阻挡 (of its printed block), its states as tags, the skill
    covering it attached (its timer as a stat)."""
    n = ctx.numbers
    stats = [stat("攻", o["attack"]), stat("防", o["defense"]),
             stat("阻挡", o["block"], of=o["max_block"],
                  warn=not o["routed"] and 0 < o["block"] <= n.block_loss)]
    attached = []
    if o["skill"]:
        stats.append(stat("技能", f"{o['skill']['skill']} {o['skill']['turns_left']}T"))
        attached.append({"id": None, "name": o["skill"]["skill"], "card": _skill_card(ctx, o["skill"]["skill"])})
    tags = [f"{o['owner']}的干员" if o["owner"] != zone_owner else "",
            "横置" if o["routed"] else "", "本回合部署" if o["deployed_this_turn"] else "",
            "已行动" if o["acted"] else ""]
    return piece(o["id"], o["name"], o["card"] or None, stats, tags, attached)


def _alerts(p: Mapping[str, Any], s: Mapping[str, Any], ctx: Context) -> list[str]:
    n = ctx.numbers
    out = []
    for o in s.get("operators", []):
        if o["side"] == p["name"] and o["zone"] == board.DEPLOY and o["owner"] != p["name"]:
            # The active player's routed invader leaves for the discard before the check.
            leaves = o["routed"] and o["owner"] == s["active"]
            out.append(f"部署区有敌方干员{o['name']}" + ("" if leaves else f"，回合结束时理智−{n.sanity_loss_enemy_in_deploy}"))
    if p["enemy_in_deploy"] and not out:  # an old log's mark, set by hand
        out.append("部署区有敌方干员")
    for o in s.get("operators", []):
        if o["owner"] == p["name"] and o["routed"]:
            out.append(f"{o['name']}已横置：己方回合结束时送去弃置区（可先撤退或替换）")
    return out


def player_view(p: Mapping[str, Any], s: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    n = ctx.numbers
    timers = "；".join(f"{t['operator']}·{t['skill']} {t['turns_left']}T" for t in p["timers"]) or "无"
    stats = [
        stat("理智", p["sanity"], key=True, warn=p["sanity"] <= n.sanity_loss_enemy_in_deploy),
        stat("充能", p["charges"], key=True),
        stat("部署", p["deployments_used"], of=p["deployments_per_turn"]),
        stat("技能槽充能", "已用" if p["skill_slot_charged"] else "未用"),
        stat("计时", timers),
        stat("牌库", _shown(p["deck"])), stat("手牌", _shown(p["hand"])), stat("弃置", _shown(p["discard"])),
        stat("准备区", p["prep_count"]),
    ]
    if p["prep"]:
        stats.append(stat("准备区卡牌", "、".join(p["prep"])))
    stats += [stat("充能槽", p["charge_slot"]), stat("技能槽", "、".join(p["skill_slot"]) or "无")]
    zones = [zone(label, [operator_piece(o, p["name"], ctx) for o in s.get("operators", [])
                          if o["side"] == p["name"] and o["zone"] == z], slots=board.capacity(ctx, z))
             for z, label in ZONES]
    return {"stats": stats, "zones": zones, "alerts": _alerts(p, s, ctx)}


def board_view(s: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    return {"table": [], "players": [player_view(p, s, ctx) for p in s["players"]], "sections": []}
