"""How the events of duel read in the log (Chinese, as at the table)."""

from __future__ import annotations

from ...tracker.describe import Name, sentence
from .board import HOW, STANCE_NAMES, ZONE_NAMES
from .events import (DecksCounted, LifeChanged, CardsMoved, DrawFailed, DescentMade, SkillUsed, AttackResolved,
                     FighterEntered, FighterRankedUp, AssistPlaced, StanceChanged, FighterWounded, GuardLowered,
                     PieceLeft, FighterBoosted)


def _zone(zone: str, face_down: bool = False) -> str:
    name = ZONE_NAMES.get(zone, zone)
    return f"{name}（背面）" if face_down and zone == "netherworld" else name


@sentence(LifeChanged)
def _life_changed(e: LifeChanged, n: Name) -> str:
    return f"{n(e.player)}生命{e.delta:+d}"


@sentence(CardsMoved)
def _cards_moved(e: CardsMoved, n: Name) -> str:
    return f"{n(e.player)}：{e.count}张 {_zone(e.source, e.from_face_down)} → {_zone(e.dest, e.face_down)}"


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


@sentence(FighterEntered)
def _fighter_entered(e: FighterEntered, n: Name) -> str:
    return (f"{n(e.player)}的{e.piece} {e.name}上场（{_zone(e.source, e.from_face_down)}→场上，阶{e.rank} "
            f"攻{e.attack}/守{e.guard} {STANCE_NAMES.get(e.stance, e.stance)}）")


@sentence(FighterRankedUp)
def _ranked_up(e: FighterRankedUp, n: Name) -> str:
    return f"{n(e.player)}的{e.piece}升阶为{e.name}（阶{e.rank} 攻{e.attack}/守{e.guard}）"


@sentence(AssistPlaced)
def _assist_placed(e: AssistPlaced, n: Name) -> str:
    return f"{n(e.player)}的{e.piece} {e.name}协助{e.fighter}（{e.attack_bonus:+d}/{e.guard_bonus:+d}）"


@sentence(StanceChanged)
def _stance_changed(e: StanceChanged, n: Name) -> str:
    return f"{n(e.player)}的{e.piece} {e.name}转为{STANCE_NAMES.get(e.stance, e.stance)}状态"


@sentence(FighterWounded)
def _wounded(e: FighterWounded, n: Name) -> str:
    return f"{n(e.player)}的{e.piece} {e.name}受伤"


@sentence(GuardLowered)
def _guard_lowered(e: GuardLowered, n: Name) -> str:
    return f"{n(e.player)}的{e.piece} {e.name}本回合守卫力-{e.amount}"


@sentence(PieceLeft)
def _piece_left(e: PieceLeft, n: Name) -> str:
    return f"{n(e.player)}的{e.piece} {e.name}{HOW.get(e.how, e.how)}（→ {_zone(e.dest, e.face_down)}）"


@sentence(FighterBoosted)
def _boosted(e: FighterBoosted, n: Name) -> str:
    changes = [f"攻击力{e.attack:+d}" if e.attack else "", f"守卫力{e.guard:+d}" if e.guard else "",
               f"攻击次数+{e.attacks}" if e.attacks else ""]
    return f"{n(e.player)}的{e.piece} {e.name}{'本回合' if e.this_turn else ''}" + "、".join(c for c in changes if c)
