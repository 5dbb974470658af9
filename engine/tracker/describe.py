"""Human sentences (Chinese, as at the table) for events: what happened; the event's reason says why."""

from __future__ import annotations

from typing import Callable

from . import events as ev

Names = tuple[str, ...]
PhaseName = Callable[[str], str]
TurnLabel = Callable[[int, int], str]


def _turn_label(turn: int, round_: int) -> str:
    return f"第{turn}回合"


def describe(event: ev.Event, names: Names, phase_name: PhaseName = str, turn_label: TurnLabel = _turn_label) -> str:
    """One line for ``event``: "A获得11费用". Unknown events fall back to their class name."""
    n = lambda i: names[i] if i is not None and 0 <= i < len(names) else "?"  # noqa: E731
    e = event
    match e:
        case ev.GameStarted():
            return f"新对局：{' 对 '.join(e.players)}，先手{e.players[e.first]}"
        case ev.TurnBegan():
            return f"{turn_label(e.turn, e.round)}：{n(e.player)}行动"
        case ev.PhaseEntered():
            return f"进入{phase_name(e.phase)}"
        case ev.ReminderGiven():
            return f"提示：{e.text}"
        case ev.DieRolled():
            by = f"{n(e.player)}" if e.player is not None else ""
            if e.faces == 2:
                return f"{by}掷硬币：{'正面' if e.result == 1 else '反面'}"
            return f"{by}掷骰（{e.faces}面）：{e.result}"
        case ev.NoteAdded():
            return f"备注：{e.text}"
        case ev.Conceded():
            return f"{n(e.player)}认输"
        case ev.GameEnded():
            return f"对局结束：{n(e.winner)}获胜" if e.winner is not None else "对局结束：平局"
        case ev.CostGained():
            return f"{n(e.player)}获得{e.amount}费用"
        case ev.CostSpent():
            return f"{n(e.player)}花费{e.amount}费用"
        case ev.LevelCut():
            return f"层级切出：{e.cut_out or '—'} → 切入：{e.cut_in or '—'}"
        case ev.OutpostPlaced():
            return f"{n(e.player)}放置前哨站（{e.hp}HP）"
        case ev.OutpostCarried():
            return f"{n(e.player)}将前哨站{e.index + 1}带入新层级"
        case ev.OutpostDamaged():
            return f"{n(e.player)}的前哨站{e.index + 1}受到{e.amount}点伤害"
        case ev.OutpostRepaired():
            return f"{n(e.player)}的前哨站{e.index + 1}回复{e.amount}点"
        case ev.OutpostDestroyed():
            return f"{n(e.player)}的前哨站{e.index + 1}被摧毁"
        case ev.ChainLinkAdded():
            neg = f"（无效连锁{e.negates}）" if e.negates else ""
            return f"{n(e.player)}加入连锁：{e.text}{neg}"
        case ev.ChainLinkNegated():
            return f"连锁{e.link}被无效"
        case ev.ChainLinkResolved():
            return f"处理连锁{e.link}：{e.text}" + ("——已被无效，不产生效果" if e.negated else "")
        case ev.ChainCleared():
            return "连锁处理顺序：" + " → ".join(str(k) for k in e.order)
        case ev.LifeChanged():
            return f"{n(e.player)}生命{e.delta:+d}"
        case ev.CardsMoved():
            zones = {"deck": "牌库", "hand": "手牌", "field": "场上", "netherworld": "幽冥", "source": "本源牌", "assist": "协助"}
            return f"{n(e.player)}：{e.count}张 {zones.get(e.source, e.source)} → {zones.get(e.dest, e.dest)}"
        case ev.DrawFailed():
            return f"{n(e.player)}须从空牌库抽牌"
        case ev.DescentMade():
            return f"{n(e.player)}降临（阶级{e.rank}）"
        case ev.SkillUsed():
            return f"{n(e.player)}使用{'抽牌技能' if e.draw_skill else '回合内技能'}（{e.kind}）"
        case ev.AttackResolved():
            return f"{n(e.player)}的攻击：{e.summary}" + ("（已用掉贯穿）" if e.pierce_used else "")
        case ev.CounterChanged():
            return f"{n(e.player)}的{e.counter} {e.delta:+d}"
        case ev.SanityChanged():
            return f"{n(e.player)}理智{e.delta:+d}"
        case ev.OperatorDeployed():
            return f"{n(e.player)}部署{e.operator}"
        case ev.ChargeAdded():
            return f"{n(e.player)}充能+{e.count}" + ("（技能槽）" if e.skill_slot else "")
        case ev.ChargesSpent():
            return f"{n(e.player)}消耗{e.count}充能"
        case ev.SkillActivated():
            return f"{n(e.player)}：{e.operator}发动{e.skill}，持续{e.duration}T"
        case ev.TimersTicked():
            return f"{n(e.player)}的技能计时−{e.amount}T"
        case ev.TimerExpired():
            return f"{n(e.player)}：{e.operator}·{e.skill}到期"
        case ev.DeployZoneChanged():
            return f"{n(e.player)}的部署区" + ("有敌方干员" if e.enemy_present else "已无敌方干员")
        case ev.ActionPlayed():
            return f"{n(e.player)}使用行动牌{e.name}（理智要求{e.requirement}）"
    return type(e).__name__
