"""The duel board read and changed piece by piece: a fighter's current numbers, who stands where,
the events of a piece leaving the field, and cards gained under the hand limit.

Everything here is pure (state in, numbers or events out); ``rules.py`` declares the commands.
"""

from __future__ import annotations

from engine.i18n import N_, _, ngettext
from typing import Any

from ...tracker.core import Batch, Context, IllegalCommand
from ...tracker.pieces import copies_in_deck, find_card, find_piece
from . import events as ev
from .state import DuelAssist, DuelFighter, State

#: Attacks a fighter gains each time it descends (the seed: "每张主战者降临时，便获得一次攻击次数");
#: a rank-up is how a rank ≥ 2 card descends, so it gains them too.
ATTACKS_PER_DESCENT = 1

#: The seed's words for a piece leaving the field (each a different description to card texts).
HOW = {"slain": "战死", "destroyed": "被消灭", "sent": "送去幽冥", "annihilated": "湮灭",
       "returned": "返回", "removed": "除外"}
ZONE_NAMES = {"deck": "牌库", "hand": "手牌", "field": "场上", "netherworld": "幽冥", "source": "本源牌",
              "assist": "协助", "removed": "除外"}
STANCE_NAMES = {"ready": "战备", "guard": "守卫"}


# ---------------------------------------------------------------------------- reading the board


def fighters_of(state: State, owner: int) -> list[DuelFighter]:
    return [p for p in state.pieces if isinstance(p, DuelFighter) and p.owner == owner]


def assists_of(state: State, fighter_id: str) -> list[DuelAssist]:
    return [p for p in state.pieces if isinstance(p, DuelAssist) and p.fighter == fighter_id]


def attack_of(state: State, f: DuelFighter) -> int:
    """Printed attack plus the assists' attack bonuses and effects; a bonus can bring it to 0, never below."""
    return max(0, f.attack + sum(a.attack_bonus for a in assists_of(state, f.id)) + f.attack_boost
               + f.turn_attack_boost)


def guard_of(state: State, f: DuelFighter) -> int:
    """Printed guard plus the assists' guard bonuses and effects, less this turn's pierce; never below 0."""
    return max(0, f.guard + sum(a.guard_bonus for a in assists_of(state, f.id)) + f.guard_boost
               + f.turn_guard_boost - f.guard_drop)


def assist_ranks(state: State, f: DuelFighter) -> int:
    return sum(a.rank for a in assists_of(state, f.id))


def fighter_count(state: State, owner: int) -> int:
    """Fighters on ``owner``'s side, with any an older log counted without pieces."""
    return len(fighters_of(state, owner)) + state.players[owner].field


def cards_on_field(state: State, owner: int) -> int:
    """Every card of ``owner`` on the field: fighters, assists and the source cards under fighters."""
    pieces = [p for p in state.pieces if p.owner == owner]
    return (len(pieces) + sum(len(p.sources) for p in pieces if isinstance(p, DuelFighter))
            + state.players[owner].field)


def cards_counted(state: State, owner: int) -> int:
    """deck + hand + field + netherworld (both faces) + removed: the deck size at every step."""
    p = state.players[owner]
    return ((p.deck or 0) + p.hand + cards_on_field(state, owner) + p.netherworld + p.netherworld_face_down
            + p.removed)


def on_board(state: State, owner: int, card_id: str) -> int:
    """Copies of ``card_id`` of ``owner`` on the field (as fighter, assist or source card)."""
    return sum((p.card == card_id) + (p.sources.count(card_id) if isinstance(p, DuelFighter) else 0)
               for p in state.pieces if p.owner == owner)


def card_numbers(card: Any) -> tuple[int, int, int]:
    """(rank, attack, guard) from the card data; a card missing one cannot be a fighter."""
    values = tuple(card.get(k) for k in ("rank", "attack", "guard"))
    if any(not isinstance(v, int) for v in values):
        raise IllegalCommand(_("{name} has no rank/attack/guard in the card data; it cannot be a fighter").format(name=card.name))
    return values  # type: ignore[return-value]


def deck_card(state: State, ctx: Context, player: int, token: Any) -> Any:
    """A card of ``player``'s deck list, refused when every copy of it is already on the field."""
    card = find_card(state, ctx, player, token, types=("fighter",))
    copies = copies_in_deck(state, player, card.id)
    if copies is not None and on_board(state, player, card.id) >= copies:
        raise IllegalCommand(ngettext("all {copies} copy of {card} in {player}'s deck are on the field already",
                                      "all {copies} copies of {card} in {player}'s deck are on the field already",
                                      copies).format(copies=copies, card=card.name, player=state.players[player].name))
    return card


def own_fighter(state: State, token: Any, owner: int | None = None, what: str = N_("fighter")) -> DuelFighter:
    """The fighter ``token`` names (of ``owner`` when given); an assist named is refused."""
    piece = find_piece(state, token, owner=owner, what=what)
    if isinstance(piece, DuelAssist):
        raise IllegalCommand(_("{id} {name} is an assist (behind {fighter}), not a fighter").format(id=piece.id, name=piece.name, fighter=piece.fighter))
    return piece


# ---------------------------------------------------------------------------- changing the board


def gain_to_hand(batch: Batch, ctx: Context, player: int, source: str, k: int, why: str,
                 from_face_down: bool = False) -> None:
    """``k`` cards gained into the hand from ``source``: at the hand limit each goes to the
    netherworld instead (RULES.md 2026-12: by any route)."""
    limit = ctx.numbers.hand_limit
    room = max(limit - batch.state.players[player].hand, 0)
    if min(k, room):
        batch.emit(ev.CardsMoved(player=player, source=source, dest="hand", count=min(k, room),
                                 from_face_down=from_face_down, reason=why))
    if k > room:
        batch.emit(ev.CardsMoved(player=player, source=source, dest="netherworld", count=k - room,
                                 from_face_down=from_face_down,
                                 reason=f"{why}：手牌已达上限{limit}，改为送去幽冥（不触发送去幽冥效果）"))


def leave(batch: Batch, ctx: Context, piece_id: str, how: str, dest: str = "netherworld", face_down: bool = False,
          why: str = "", assists_how: str = "sent") -> None:
    """Piece ``piece_id`` leaves the field. A fighter's assists leave first (to the netherworld,
    ``assists_how``: sent when the fighter leaves, slain when it was attacked) and its source
    cards go to the netherworld with it. A card returned to the hand obeys the hand limit."""
    s = batch.state
    piece = s.piece(piece_id)
    if isinstance(piece, DuelFighter):
        for a in assists_of(s, piece.id):
            batch.emit(ev.PieceLeft(player=a.owner, piece=a.id, name=a.name, dest="netherworld", how=assists_how,
                                    reason=f"{piece.id} {piece.name}的协助牌" + (
                                        "，主战者被攻击时战死" if assists_how == "slain" else "，随主战者离场送去幽冥")))
    reason = why or HOW[how]
    if dest == "hand" and batch.state.players[piece.owner].hand >= ctx.numbers.hand_limit:
        dest, reason = "netherworld", f"{reason}：手牌已达上限{ctx.numbers.hand_limit}，改为送去幽冥（不触发送去幽冥效果）"
    if isinstance(piece, DuelFighter) and piece.sources:
        reason += f"；其{len(piece.sources)}张本源牌送去幽冥"
    batch.emit(ev.PieceLeft(player=piece.owner, piece=piece.id, name=piece.name, dest=dest, how=how,
                            face_down=face_down and dest == "netherworld", reason=reason))


def fighter_json(state: State, f: DuelFighter) -> dict[str, Any]:
    return {
        "id": f.id, "card": f.card, "name": f.name, "rank": f.rank,
        "attack": attack_of(state, f), "guard": guard_of(state, f),
        "printed_attack": f.attack, "printed_guard": f.guard, "guard_drop": f.guard_drop,
        "stance": f.stance, "wounded": f.wounded, "attacks_left": f.attacks_left,
        "assist_limit": f.rank, "assist_ranks": assist_ranks(state, f),
        "assists": [{"id": a.id, "card": a.card, "name": a.name, "rank": a.rank,
                     "attack_bonus": a.attack_bonus, "guard_bonus": a.guard_bonus} for a in assists_of(state, f.id)],
        "sources": list(f.sources),
    }


def fighter_line(f: dict[str, Any]) -> str:
    """``A2 剑士 阶1 攻5/守3 战备 [协助：A4 盾兵]`` from ``fighter_json``."""
    parts = [f["id"], f["name"], f"阶{f['rank']}", f"攻{f['attack']}/守{f['guard']}", STANCE_NAMES[f["stance"]]]
    if f["wounded"]:
        parts.append("受伤")
    if f["attacks_left"]:
        parts.append(f"可攻击{f['attacks_left']}次")
    if f["guard_drop"]:
        parts.append(f"本回合守卫-{f['guard_drop']}")
    if f["sources"]:
        parts.append(f"本源{len(f['sources'])}张")
    if f["assists"]:
        parts.append("[协助：" + "、".join(f"{a['id']} {a['name']}" for a in f["assists"]) + "]")
    return " ".join(parts)

