"""The Backrooms board as the table page shows it (``engine.live.board``), from ``status_json``.

What the text board (``rules.board_lines``) says, in the same words, as data the page draws:
- the table: the current level, the rounds until it is cut out (of the cycle), the next level
  and the public level pile (face up, in cut order);
- each player: cost and destroyed outposts large (the loss is counted in destroyed outposts),
  carries left, deck, hand and discard; the outposts, the unit slots and the special slots as
  zones of pieces (equipment hangs on its unit); what the player must not forget as alerts;
- sections: the open chain (in activation order; it resolves last first) and the order the
  last chain resolved in.
"""

from __future__ import annotations

from typing import Any

from ...live.board import piece, section, stat, zone
from ...tracker.core import Context
from .counts import UNTRACKED
from .state import OUTPOST, UNIT

#: Zone names when the game definition does not give them (they are game.yaml's ``zones``).
ZONE_LABELS = {"outpost_zone": "前哨放置区", "unit_slots": "单位放置区", "special_slots": "特殊放置区",
               "level_pile": "公共层级牌堆"}
#: Piece states as the text board words them (``board.piece_text``).
STATE_TAGS = (("attacked", "已攻击"), ("explored", "探索中"), ("stunned", "眩晕"), ("face_down", "背面"))
NOTHING = "—"


def zone_label(ctx: Context, zone_id: str) -> str:
    for z in getattr(ctx.defn, "zones", ()) or ():
        if z.id == zone_id and z.name:
            return z.name
    return ZONE_LABELS[zone_id]


def piece_view(p: dict[str, Any]) -> dict[str, Any]:
    """One piece of ``board_json``: its slot, attack, HP of its printed HP, carried equipment of
    its carry value (what ``piece_text`` shows), its states as tags, its equipment attached."""
    stats = []
    if p["kind"] != OUTPOST and p["slot"]:
        stats.append(stat("位置", p["slot"]))
    tags = []
    if p["kind"] == UNIT or p["max_hp"]:
        # An outpost strikes back only when its card gives it an attack.
        if p["kind"] != OUTPOST or p["attack"]:
            stats.append(stat("攻", p["attack"]))
        stats.append(stat("生命", p["hp"], of=p["max_hp"]))
        if p["kind"] != OUTPOST:
            stats.append(stat("承载", len(p["equipment"]), of=p["carry"]))
        if p["hp"] < p["max_hp"]:
            tags.append("受伤")
    tags += [word for key, word in STATE_TAGS if p[key]]
    return piece(p["id"], p["name"], p["card"] or None, stats, tags,
                 [{"id": q["id"], "name": q["name"], "card": q["card"] or None} for q in p["equipment"]])


def _count(v: Any) -> Any:
    return UNTRACKED if v is None else v


def player_view(p: dict[str, Any], ctx: Context) -> dict[str, Any]:
    n = ctx.numbers
    lose = n.outposts_destroyed_to_lose
    destroyed = p["outposts_destroyed"]
    stats = [stat("费用", p["cost"], key=True),
             stat("前哨已摧毁", destroyed, of=lose, key=True, warn=destroyed >= lose - 1),
             stat("可带入", p["carries_left"], of=n.outpost_carries_per_game),
             stat("牌库", _count(p["deck"]), warn=p["deck"] == 0),
             stat("手牌", _count(p["hand"])),
             stat("弃牌堆", len(p["discard"]) + p.get("discard_unnamed", 0))]
    zones = [zone(zone_label(ctx, "outpost_zone"), [piece_view(o) for o in p["outposts"]]),
             zone(zone_label(ctx, "unit_slots"), [piece_view(u) for u in p["units"]], slots=n.unit_slots),
             zone(zone_label(ctx, "special_slots"), [piece_view(u) for u in p["specials"]], slots=n.special_slots)]
    alerts = []
    if p["must_place_outpost"]:
        carry = f"（可带入剩余{p['carries_left']}次）" if p["carries_left"] else ""
        alerts.append(f"层级切出后须放置新前哨站或带入前哨{carry}")
    elif not p["outposts"]:
        alerts.append("场上没有前哨站")
    if destroyed == lose - 1:
        alerts.append(f"前哨站已被摧毁{destroyed}座：再被摧毁1座即失败")
    if p["deck"] == 0:
        alerts.append("牌库已空：抽牌阶段不抽牌")
    return {"stats": stats, "zones": zones, "alerts": alerts}


def board_view(s: dict[str, Any], ctx: Context) -> dict[str, Any]:
    to_cut = s["rounds_to_cut"]
    table = [stat("层级", s["level"] or NOTHING, key=True),
             stat("切出倒计时（回合）", to_cut, warn=to_cut <= 1),
             stat("下一层级", s["next_level"] or NOTHING),
             stat(zone_label(ctx, "level_pile") + "（正面朝上）", " → ".join(s["level_pile"]) or NOTHING)]
    sections = []
    if s.get("chain"):
        lines = []
        for link in s["chain"]:
            line = f"{link['link']}. {link['player']}：{link['text']}"
            if link.get("negates"):
                line += f"（无效连锁{link['negates']}）"
            if link["negated"]:
                line += "（已无效）"
            lines.append(line)
        sections.append(section("连锁（后发先至）", lines))
    if s.get("last_resolution"):
        sections.append(section("上次连锁处理顺序", s["last_resolution"]))
    return {"table": table, "players": [player_view(p, ctx) for p in s["players"]], "sections": sections}
