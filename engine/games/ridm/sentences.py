"""How the events of ridm read in the log (Chinese, as at the table)."""

from __future__ import annotations

from ...tracker.describe import Name, sentence
from .board import ZONE_NAMES
from .events import (SanityChanged, OperatorDeployed, ChargeAdded, ChargesSpent, SkillActivated, TimersTicked,
                     TimerExpired, DeployZoneChanged, ActionPlayed, OperatorMoved, OperatorAttacked, BlockLost,
                     OperatorRouted, OperatorLeft, OperatorAdjusted, PrepTaken, DeckDealt, PileChanged)

_STATS = {"attack": "攻击", "defense": "防御", "block": "阻挡"}
_TO = {"prep": "准备区", "discard": "弃置区", "hand": "手牌"}
_ZONES = {"deck": "牌库", "hand": "手牌", "discard": "弃置区"}


@sentence(SanityChanged)
def _sanity_changed(e: SanityChanged, n: Name) -> str:
    return f"{n(e.player)}理智{e.delta:+d}"


@sentence(OperatorDeployed)
def _operator_deployed(e: OperatorDeployed, n: Name) -> str:
    if not e.piece:
        return f"{n(e.player)}部署{e.operator}"
    return (f"{n(e.player)}部署{e.piece} {e.operator}至{n(e.side)}的{ZONE_NAMES.get(e.zone, e.zone)}"
            f"（攻{e.attack} 防{e.defense} 阻挡{e.block}）")


@sentence(OperatorMoved)
def _operator_moved(e: OperatorMoved, n: Name) -> str:
    return f"{e.piece}移动至{n(e.side)}的{ZONE_NAMES.get(e.zone, e.zone)}"


@sentence(OperatorAttacked)
def _operator_attacked(e: OperatorAttacked, n: Name) -> str:
    return f"{e.attacker}（攻{e.attack}）攻击{e.defender}（攻{e.target_attack} 防{e.defense}）"


@sentence(BlockLost)
def _block_lost(e: BlockLost, n: Name) -> str:
    return f"{e.piece}失去{e.amount}点阻挡"


@sentence(OperatorRouted)
def _operator_routed(e: OperatorRouted, n: Name) -> str:
    return f"{e.piece}被击溃（横置）"


@sentence(OperatorLeft)
def _operator_left(e: OperatorLeft, n: Name) -> str:
    return f"{e.piece}离场，送去{_TO.get(e.to, e.to)}"


@sentence(OperatorAdjusted)
def _operator_adjusted(e: OperatorAdjusted, n: Name) -> str:
    return f"{e.piece}{_STATS.get(e.stat, e.stat)}{e.delta:+d}"


@sentence(PrepTaken)
def _prep_taken(e: PrepTaken, n: Name) -> str:
    return f"{n(e.player)}将{e.card}从准备区加入手牌"


@sentence(ChargeAdded)
def _charge_added(e: ChargeAdded, n: Name) -> str:
    return f"{n(e.player)}充能+{e.count}" + (f"（技能槽：{e.card}）" if e.skill_slot and e.card else
                                           "（技能槽）" if e.skill_slot else "")


@sentence(ChargesSpent)
def _charges_spent(e: ChargesSpent, n: Name) -> str:
    return f"{n(e.player)}消耗{e.count}充能"


@sentence(SkillActivated)
def _skill_activated(e: SkillActivated, n: Name) -> str:
    who = f"{e.piece} {e.operator}" if e.piece else e.operator
    return f"{n(e.player)}：{who}发动{e.skill}，持续{e.duration}T"


@sentence(TimersTicked)
def _timers_ticked(e: TimersTicked, n: Name) -> str:
    return f"{n(e.player)}的技能计时−{e.amount}T"


@sentence(TimerExpired)
def _timer_expired(e: TimerExpired, n: Name) -> str:
    who = f"{e.piece} {e.operator}" if e.piece else e.operator
    return f"{n(e.player)}：{who}·{e.skill}到期，技能牌送去弃置区"


@sentence(DeployZoneChanged)
def _deploy_zone_changed(e: DeployZoneChanged, n: Name) -> str:
    return f"{n(e.player)}的部署区" + ("有敌方干员" if e.enemy_present else "已无敌方干员")


@sentence(ActionPlayed)
def _action_played(e: ActionPlayed, n: Name) -> str:
    return f"{n(e.player)}使用行动牌{e.name}（理智要求{e.requirement}）"


@sentence(DeckDealt)
def _deck_dealt(e: DeckDealt, n: Name) -> str:
    return f"{n(e.player)}抽{e.hand}张起始手牌，牌库{e.deck}张"


@sentence(PileChanged)
def _cards_moved(e: PileChanged, n: Name) -> str:
    if (e.source, e.dest) == ("deck", "hand"):
        return f"{n(e.player)}抽{e.count}张牌" if e.count else f"{n(e.player)}的牌库已空，未抽牌"
    return f"{n(e.player)}将{e.count}张牌从{_ZONES.get(e.source, e.source)}移至{_ZONES.get(e.dest, e.dest)}"
