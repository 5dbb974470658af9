"""How the events of backrooms read in the log (Chinese, as at the table)."""

from __future__ import annotations

from ...tracker.describe import Name, sentence, sentences
from .events import (LevelPileLaid, CostGained, CostSpent, LevelCut, OutpostPlaced, OutpostCarried, OutpostDamaged,
                     OutpostRepaired, OutpostDestroyed, ChainLinkAdded, ChainLinkNegated, ChainLinkResolved,
                     ChainCleared, BackroomsPieceEntered, BackroomsCardPlayed, BackroomsUnitAttacked,
                     BackroomsPieceDamaged, BackroomsPieceHealed, BackroomsPieceBuffed, BackroomsPieceLeft,
                     BackroomsUnitExplored, BackroomsPieceStunned, BackroomsDeckCounted, BackroomsCardsDrawn,
                     BackroomsCardsMoved, BackroomsSearched)
from .counts import ZONE_NAMES
from .state import OUTPOST_NAME

sentences({
    CostGained: "{p}获得{e.amount}费用",
    CostSpent: "{p}花费{e.amount}费用",
    ChainLinkNegated: "连锁{e.link}被无效",
    BackroomsCardPlayed: "{p}使用{e.name}",
    BackroomsUnitAttacked: "{e.piece}攻击{e.target}",
    BackroomsPieceDamaged: "{e.piece}受到{e.amount}点伤害",
    BackroomsPieceHealed: "{e.piece}回复{e.amount}点生命值",
    BackroomsUnitExplored: "{e.piece}进行探索",
    BackroomsPieceStunned: "{e.piece}被眩晕",
})

#: How the log names where a piece went and what changed (the events keep English ids).
_TO = {"discard": "弃牌堆", "hand": "手牌", "removed": "游戏外（移除）"}
_ZONE = {"unit": "单位区", "special": "特殊放置区"}
_STAT = {"attack": "攻击值", "hp": "生命值"}


@sentence(LevelCut)
def _level_cut(e: LevelCut, n: Name) -> str:
    return f"层级切出：{e.cut_out or '—'} → 切入：{e.cut_in or '—'}"


@sentence(OutpostPlaced)
def _outpost_placed(e: OutpostPlaced, n: Name) -> str:
    piece = f"{e.piece} {e.name or OUTPOST_NAME}" if e.piece else OUTPOST_NAME
    return f"{n(e.player)}放置{piece}（{e.hp}HP）"


@sentence(OutpostCarried)
def _outpost_carried(e: OutpostCarried, n: Name) -> str:
    return f"{n(e.player)}将前哨站{e.index + 1}带入新层级"


def _outpost(e, n: Name, what: str) -> str:
    """``B的前哨站1受到2点伤害（B1）``: the outpost's place (what ``--outpost 1`` names), then its
    piece id (logs from before outposts were pieces have none)."""
    return f"{n(e.player)}的前哨站{e.index + 1}{what}" + (f"（{e.piece}）" if e.piece else "")


@sentence(OutpostDamaged)
def _outpost_damaged(e: OutpostDamaged, n: Name) -> str:
    return _outpost(e, n, f"受到{e.amount}点伤害")


@sentence(OutpostRepaired)
def _outpost_repaired(e: OutpostRepaired, n: Name) -> str:
    return _outpost(e, n, f"回复{e.amount}点")


@sentence(OutpostDestroyed)
def _outpost_destroyed(e: OutpostDestroyed, n: Name) -> str:
    return _outpost(e, n, "被摧毁")


@sentence(ChainLinkAdded)
def _chain_link_added(e: ChainLinkAdded, n: Name) -> str:
    neg = f"（无效连锁{e.negates}）" if e.negates else ""
    return f"{n(e.player)}加入连锁：{e.text}{neg}"


@sentence(ChainLinkResolved)
def _chain_link_resolved(e: ChainLinkResolved, n: Name) -> str:
    return f"处理连锁{e.link}：{e.text}" + ("——已被无效，不产生效果" if e.negated else "")


@sentence(ChainCleared)
def _chain_cleared(e: ChainCleared, n: Name) -> str:
    return "连锁处理顺序：" + " → ".join(str(k) for k in e.order)


@sentence(LevelPileLaid)
def _level_pile_laid(e: LevelPileLaid, n: Name) -> str:
    return "公共层级牌堆：" + " → ".join(e.level_pile)


# ---------------------------------------------------------------------------- the board's pieces


@sentence(BackroomsPieceEntered)
def _piece_entered(e: BackroomsPieceEntered, n: Name) -> str:
    if e.kind == "equipment":
        return f"{n(e.player)}将{e.piece} {e.name}装备于{e.host}"
    values = f"（攻{e.attack} HP{e.hp} 承载{e.carry}）" if e.kind == "unit" or e.hp else ""
    face = "背面" if e.face_down else ""
    return f"{n(e.player)}将{e.piece} {e.name}{values}{face}放入{_ZONE.get(e.kind, e.kind)}{e.slot}号位"


@sentence(BackroomsPieceBuffed)
def _piece_buffed(e: BackroomsPieceBuffed, n: Name) -> str:
    return f"{e.piece}的{_STAT.get(e.stat, e.stat)}{e.amount:+d}"


@sentence(BackroomsPieceLeft)
def _piece_left(e: BackroomsPieceLeft, n: Name) -> str:
    return f"{e.piece}离场，进入{_TO.get(e.to, e.to)}"


# ---------------------------------------------------------------------------- hand and deck sizes

sentences({
    BackroomsDeckCounted: "{p}的牌库共{e.deck}张",
    BackroomsCardsDrawn: "{p}抽{e.amount}张牌",
})

@sentence(BackroomsCardsMoved)
def _cards_moved(e: BackroomsCardsMoved, n: Name) -> str:
    return f"{n(e.player)}将{e.amount}张牌从{ZONE_NAMES.get(e.source, e.source)}移至{ZONE_NAMES.get(e.dest, e.dest)}"


@sentence(BackroomsSearched)
def _searched(e: BackroomsSearched, n: Name) -> str:
    return f"{n(e.player)}为{e.piece}检索1张{e.name or '道具或装备'}加入手牌"
