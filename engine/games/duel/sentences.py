"""How the events of duel read in the log (Chinese, as at the table)."""

from __future__ import annotations

from ...tracker.describe import Name, sentence
from .events import DecksCounted, LifeChanged, CardsMoved, DrawFailed, DescentMade, SkillUsed, AttackResolved


@sentence(LifeChanged)
def _life_changed(e: LifeChanged, n: Name) -> str:
    return f"{n(e.player)}生命{e.delta:+d}"


@sentence(CardsMoved)
def _cards_moved(e: CardsMoved, n: Name) -> str:
    zones = {"deck": "牌库", "hand": "手牌", "field": "场上", "netherworld": "幽冥", "source": "本源牌", "assist": "协助"}
    return f"{n(e.player)}：{e.count}张 {zones.get(e.source, e.source)} → {zones.get(e.dest, e.dest)}"


@sentence(DrawFailed)
def _draw_failed(e: DrawFailed, n: Name) -> str:
    return f"{n(e.player)}须从空牌库抽牌"


@sentence(DescentMade)
def _descent_made(e: DescentMade, n: Name) -> str:
    return f"{n(e.player)}降临（阶级{e.rank}）"


@sentence(SkillUsed)
def _skill_used(e: SkillUsed, n: Name) -> str:
    return f"{n(e.player)}使用{'抽牌技能' if e.draw_skill else '回合内技能'}（{e.kind}）"


@sentence(AttackResolved)
def _attack_resolved(e: AttackResolved, n: Name) -> str:
    return f"{n(e.player)}的攻击：{e.summary}" + ("（已用掉贯穿）" if e.pierce_used else "")


@sentence(DecksCounted)
def _decks_counted(e: DecksCounted, n: Name) -> str:
    return "牌库：" + "，".join(f"{n(i)}{size}张" for i, size in enumerate(e.deck_sizes))
