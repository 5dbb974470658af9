"""How the events of ridm read in the log (Chinese, as at the table)."""

from __future__ import annotations

from ...tracker.describe import Name, sentence
from .events import SanityChanged, OperatorDeployed, ChargeAdded, ChargesSpent, SkillActivated, TimersTicked, TimerExpired, DeployZoneChanged, ActionPlayed


@sentence(SanityChanged)
def _sanity_changed(e: SanityChanged, n: Name) -> str:
    return f"{n(e.player)}理智{e.delta:+d}"


@sentence(OperatorDeployed)
def _operator_deployed(e: OperatorDeployed, n: Name) -> str:
    return f"{n(e.player)}部署{e.operator}"


@sentence(ChargeAdded)
def _charge_added(e: ChargeAdded, n: Name) -> str:
    return f"{n(e.player)}充能+{e.count}" + ("（技能槽）" if e.skill_slot else "")


@sentence(ChargesSpent)
def _charges_spent(e: ChargesSpent, n: Name) -> str:
    return f"{n(e.player)}消耗{e.count}充能"


@sentence(SkillActivated)
def _skill_activated(e: SkillActivated, n: Name) -> str:
    return f"{n(e.player)}：{e.operator}发动{e.skill}，持续{e.duration}T"


@sentence(TimersTicked)
def _timers_ticked(e: TimersTicked, n: Name) -> str:
    return f"{n(e.player)}的技能计时−{e.amount}T"


@sentence(TimerExpired)
def _timer_expired(e: TimerExpired, n: Name) -> str:
    return f"{n(e.player)}：{e.operator}·{e.skill}到期"


@sentence(DeployZoneChanged)
def _deploy_zone_changed(e: DeployZoneChanged, n: Name) -> str:
    return f"{n(e.player)}的部署区" + ("有敌方干员" if e.enemy_present else "已无敌方干员")


@sentence(ActionPlayed)
def _action_played(e: ActionPlayed, n: Name) -> str:
    return f"{n(e.player)}使用行动牌{e.name}（理智要求{e.requirement}）"
