"""ridm's card counts: each player's draw pile, hand and discard as numbers (which cards they are
stays at the table). Counted only for a player whose deck list the game was started with; the
rules in ``rules.py`` ask here before a card leaves a zone, the reducers in ``state.py`` count."""

from __future__ import annotations

from engine.i18n import N_, _
from engine.i18n import _ as tr
from typing import TYPE_CHECKING, Any, Mapping

from ...tracker.core import Context, IllegalCommand
from . import events as ev
from .state import RidmState as State

if TYPE_CHECKING:
    from ...decks import Deck

#: The zones ``transfer`` moves cards between, and their names at the table.
ZONE_NAMES = {"deck": "牌库", "hand": "手牌", "discard": "弃置区"}
#: Whatever the cards are counted for, a missing count reads as this on the board.
UNKNOWN = "—"


def dealt(ctx: Context, decks: Mapping[int, Deck]) -> list[ev.DeckDealt]:
    """The opening: each given deck is the whole draw pile, less the opening hand drawn from it."""
    out = []
    for seat in sorted(decks):
        size = decks[seat].size
        hand = min(ctx.numbers.opening_hand, size)
        out.append(ev.DeckDealt(player=seat, deck=size - hand, hand=hand,
                                reason=f"洗牌，抽{hand}张起始手牌，牌库剩{size - hand}张"))
    return out


def require_hand(state: State, player: int, cards: int, what: str) -> None:
    p = state.players[player]
    if p.counted and p.hand < cards:
        raise IllegalCommand(_("{name} has {hand} card(s) in hand: cannot {what}").format(name=p.name, hand=p.hand, what=tr(what)))


def draw_event(state: State, player: int, cards: int, why: str, verb: str = N_("draw")) -> ev.PileChanged:
    """``cards`` from the draw pile to the hand; refused when a counted pile holds fewer."""
    p = state.players[player]
    if p.counted and p.deck < cards:
        raise IllegalCommand(_("{name}'s deck has {deck} card(s): cannot {verb} {cards}").format(name=p.name, deck=p.deck, verb=tr(verb), cards=cards))
    return ev.PileChanged(player=player, source="deck", dest="hand", count=cards, reason=why)


def turn_draw(state: State, ctx: Context) -> list[ev.PileChanged]:
    """The turn-start draw, on leaving 回合开始 (a counted hand only: otherwise the players draw and
    ``next`` says it is done). The seed gives an empty pile no consequence, so it draws what is left."""
    p = state.players[state.active]
    if not p.counted:
        return []
    want = ctx.numbers.draw_per_turn
    got = min(want, p.deck)
    why = "回合开始抽牌" if got == want else f"回合开始抽牌：牌库只剩{got}张" if got else "回合开始抽牌：牌库已空，未抽牌"
    return [ev.PileChanged(player=state.active, source="deck", dest="hand", count=got, reason=why)]


def moved(state: State, player: int, source: str, dest: str, cards: int, why: str) -> ev.PileChanged:
    """A card effect moving ``cards`` between two counted zones."""
    if source == dest:
        raise IllegalCommand(_("cards move from one zone to another; {source} → {dest} is no move").format(source=source, dest=dest))
    p = state.players[player]
    have = getattr(p, source) if p.counted else None
    if have is not None and have < cards:
        raise IllegalCommand(_("{name}'s {source} has {have} card(s): cannot move {cards}").format(name=p.name, source=source, have=have, cards=cards))
    return ev.PileChanged(player=player, source=source, dest=dest, count=cards, reason=why)


def line(p: Mapping[str, Any]) -> str:
    """"牌库 31 手牌 5 弃置 0" from a player's ``player_json``; — for what is not counted."""
    shown = lambda v: UNKNOWN if v is None else str(v)  # noqa: E731
    return f"牌库 {shown(p.get('deck'))} 手牌 {shown(p.get('hand'))} 弃置 {shown(p.get('discard'))}"
