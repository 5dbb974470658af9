"""How the events of backrooms read in the log (Chinese, as at the table)."""

from __future__ import annotations

from ...tracker.describe import Name, sentence
from .events import LevelPileLaid, CostGained, CostSpent, LevelCut, OutpostPlaced, OutpostCarried, OutpostDamaged, OutpostRepaired, OutpostDestroyed, ChainLinkAdded, ChainLinkNegated, ChainLinkResolved, ChainCleared


@sentence(CostGained)
def _cost_gained(e: CostGained, n: Name) -> str:
    return f"{n(e.player)}获得{e.amount}费用"


@sentence(CostSpent)
def _cost_spent(e: CostSpent, n: Name) -> str:
    return f"{n(e.player)}花费{e.amount}费用"


@sentence(LevelCut)
def _level_cut(e: LevelCut, n: Name) -> str:
    return f"层级切出：{e.cut_out or '—'} → 切入：{e.cut_in or '—'}"


@sentence(OutpostPlaced)
def _outpost_placed(e: OutpostPlaced, n: Name) -> str:
    return f"{n(e.player)}放置前哨站（{e.hp}HP）"


@sentence(OutpostCarried)
def _outpost_carried(e: OutpostCarried, n: Name) -> str:
    return f"{n(e.player)}将前哨站{e.index + 1}带入新层级"


@sentence(OutpostDamaged)
def _outpost_damaged(e: OutpostDamaged, n: Name) -> str:
    return f"{n(e.player)}的前哨站{e.index + 1}受到{e.amount}点伤害"


@sentence(OutpostRepaired)
def _outpost_repaired(e: OutpostRepaired, n: Name) -> str:
    return f"{n(e.player)}的前哨站{e.index + 1}回复{e.amount}点"


@sentence(OutpostDestroyed)
def _outpost_destroyed(e: OutpostDestroyed, n: Name) -> str:
    return f"{n(e.player)}的前哨站{e.index + 1}被摧毁"


@sentence(ChainLinkAdded)
def _chain_link_added(e: ChainLinkAdded, n: Name) -> str:
    neg = f"（无效连锁{e.negates}）" if e.negates else ""
    return f"{n(e.player)}加入连锁：{e.text}{neg}"


@sentence(ChainLinkNegated)
def _chain_link_negated(e: ChainLinkNegated, n: Name) -> str:
    return f"连锁{e.link}被无效"


@sentence(ChainLinkResolved)
def _chain_link_resolved(e: ChainLinkResolved, n: Name) -> str:
    return f"处理连锁{e.link}：{e.text}" + ("——已被无效，不产生效果" if e.negated else "")


@sentence(ChainCleared)
def _chain_cleared(e: ChainCleared, n: Name) -> str:
    return "连锁处理顺序：" + " → ".join(str(k) for k in e.order)


@sentence(LevelPileLaid)
def _level_pile_laid(e: LevelPileLaid, n: Name) -> str:
    return "公共层级牌堆：" + " → ".join(e.level_pile)
