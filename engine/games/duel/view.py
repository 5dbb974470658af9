"""The duel board as the table page shows it (``engine.live.board``), from ``status_json``.

Everything ``board_lines`` prints is here, in its words: per player life (large), deck, hand of
the hand limit, fighters of the most allowed, netherworld (face up and face down), removed, the
turn's descents, in-turn skills and draw skill as "used of allowed", pierce pending; on the field
each fighter as a piece (rank, attack/guard as they are now, attacks left, stance and wound as
tags) with its assists and source cards attached. Alerts say what bites next: a full hand, an
empty deck, a pending pierce.
"""

from __future__ import annotations

from typing import Any

from ...live.board import piece, stat, zone
from ...tracker.core import Context
from .board import STANCE_NAMES

#: Life at or below this is drawn as in danger (a ready-vs-ready exchange takes several points).
LOW_LIFE = 5


def _card_name(ctx: Context, card_id: str) -> str:
    card = ctx.card(card_id)
    return card.name if card is not None else card_id


def fighter_piece(f: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """One fighter of ``fighter_json``: its numbers now, its states, what hangs on it."""
    stats = [stat("阶", f["rank"]), stat("攻", f["attack"]), stat("守", f["guard"]),
             stat("可攻击", f["attacks_left"])]
    if f["assist_limit"]:
        stats.append(stat("协助阶级", f["assist_ranks"], of=f["assist_limit"]))
    if f["sources"]:
        stats.append(stat("本源", len(f["sources"])))
    tags = [STANCE_NAMES[f["stance"]], "受伤" if f["wounded"] else "",
            f"本回合守卫-{f['guard_drop']}" if f["guard_drop"] else ""]
    attached = [{"id": a["id"], "name": f"协助：{a['name']}", "card": a["card"]} for a in f["assists"]]
    attached += [{"id": None, "name": f"本源：{_card_name(ctx, c)}", "card": c} for c in f["sources"]]
    return piece(f["id"], f["name"], f["card"], stats, tags, attached)


def player_view(p: dict[str, Any], ctx: Context) -> dict[str, Any]:
    deck = p["deck"] if p["deck"] is not None else "未知"
    stats = [
        stat("生命", p["life"], key=True, warn=p["life"] <= LOW_LIFE),
        stat("牌库", deck, warn=p["deck"] == 0),
        stat("手牌", p["hand"], of=p["hand_limit"], warn=p["hand"] >= p["hand_limit"]),
        stat("场上", p["fighter_count"], of=p["max_fighters"]),
        stat("场上卡牌", p["field_cards"]),
        stat("幽冥", p["netherworld"]),
        stat("幽冥背面", p["netherworld_face_down"]),
    ]
    if p["removed"]:
        stats.append(stat("除外", p["removed"]))
    stats += [
        stat("降临", p["descents_used"], of=p["descents_per_turn"]),
        stat("技能", p["in_turn_skills_used"], of=p["in_turn_skills_per_turn"]),
        stat("抽牌技能", p["draw_skills_used"], of=p["draw_skills_per_turn"]),
    ]
    if p["pierce"]:
        stats.append(stat("贯穿", "待用"))
    alerts = []
    if p["hand"] >= p["hand_limit"]:
        alerts.append(f"手牌已达上限{p['hand_limit']}张：再获得的牌送去幽冥")
    if p["deck"] == 0:
        alerts.append("牌库已空：再抽牌即告负")
    if p["pierce"]:
        alerts.append("贯穿：本回合主战者的下一次攻击获得贯穿")
    fighters = [fighter_piece(f, ctx) for f in p["fighters"]]
    return {"stats": stats, "zones": [zone("场上", fighters, slots=p["max_fighters"])], "alerts": alerts}


def board_view(s: dict[str, Any], ctx: Context) -> dict[str, Any]:
    """Nothing shared on the table: the first turn's battle damage is the kernel's reminder."""
    return {"table": [], "players": [player_view(p, ctx) for p in s["players"]], "sections": []}
