"""Hand and deck sizes in backrooms: what the draw pile holds, the draws, the cards that move
between the deck, the hand, the discard and out of the game.

What the draw pile holds at the start (decided from the seed): the deck list given at
``track new --deck`` less
- the G.O.I card (it lies in its own place and decides the special win, "决定了你的特殊获胜目标"),
- every level card: the public levels are shuffled into the shared public level pile, the
  independent levels lie face down in the player's own independent level pile (the seed gives
  each side "一个独立层级放置区与一个独立层级牌堆"),
- the starting outpost, taken from the deck (house clarification: each player starts with one
  outpost on the field; 0 taken when the list holds no outpost card),
and then the opening hands are drawn from it (``opening_hand_first``/``opening_hand_second``).

Without a deck list (``--levels`` only, or a log written before sizes were tracked) the sizes
are not tracked: the fields stay None, the board shows "—" and the commands below refuse.

Draws: the draw phase draws ``draw_per_turn`` by itself from turn 2 (RULES.md 2026-12). The
seed only says the active player "可以抽一张牌" and says nothing of an empty deck, so an empty
deck is no loss here: the draw phase then draws nothing and says so, an effect's draw is capped at
what the deck holds and refused when it holds none. A player who declines the draw puts it back
with ``move PLAYER hand deck``.

The tracker knows sizes, not which cards are in a hand: playing a card (summon, equip, an item or
effect, place) takes one card from the hand and is refused when the hand is empty.
"""

from __future__ import annotations

from engine.i18n import N_, _
from engine.i18n import _ as tr
from typing import Any, Mapping, TYPE_CHECKING

from ...tracker import events as kev
from ...tracker.core import Context, IllegalCommand, count, require_active, who
from ...tracker.kit import Param
from ...tracker.pieces import check_copies, find_card, find_piece
from . import events as ev
from .commands import COMMANDS
from .state import UNIT, BackroomsState as State

if TYPE_CHECKING:
    from ...decks import Deck

#: Card types (game.yaml ``card_types``) that never lie in the draw pile (see the docstring).
NOT_IN_DRAW_PILE = ("goi", "level")
OUTPOST_TYPE = "outpost"
#: What the explore search may bring (the seed: "一张任意道具或装备牌").
SEARCH_TYPES = ("item", "equipment")
#: Zones ``move`` knows by count (the board's pieces move with summon, return, destroy…).
ZONES = ("deck", "hand", "discard", "removed")
ZONE_NAMES = {"deck": "牌库", "hand": "手牌", "discard": "弃牌堆", "removed": "游戏外"}
ZONE_LABELS = tuple(ZONE_NAMES[z] for z in ZONES)
UNTRACKED = "—"


# ---------------------------------------------------------------------------- setup and draws


def draw_pile(ctx: Context, deck: Deck) -> tuple[int, int]:
    """(cards of ``deck`` in the draw pile before the starting outpost, outposts among them)."""
    pile = outposts = 0
    for card_id, copies in deck.entries:
        card = ctx.cards.get(card_id)
        kind = card.type if card is not None else ""
        if kind in NOT_IN_DRAW_PILE:
            continue
        pile += copies
        outposts += copies if kind == OUTPOST_TYPE else 0
    return pile, outposts


def opening(ctx: Context, players: tuple[str, ...], first: int, decks: Mapping[int, Deck] | None) -> list[kev.Event]:
    """Each player with a deck list: the draw pile counted, then the opening hand drawn from it."""
    n = ctx.numbers
    out: list[kev.Event] = []
    for i in range(len(players)):
        if not decks or i not in decks:
            continue
        pile, outposts = draw_pile(ctx, decks[i])
        taken = 1 if outposts else 0
        out.append(ev.BackroomsDeckCounted(player=i, deck=pile - taken, outpost=taken,
                                           reason="牌库：卡组去掉G.O.I、层级卡" + ("与开局前哨站" if taken else "")))
        hand = n.opening_hand_first if i == first else n.opening_hand_second
        drawn = min(hand, pile - taken)
        short = f"（牌库只有{drawn}张）" if drawn < hand else ""
        if drawn:
            out.append(ev.BackroomsCardsDrawn(player=i, amount=drawn,
                                              reason=f"开局抽牌：{'先手' if i == first else '后手'}{hand}张{short}"))
    return out


def turn_draw(state: State, ctx: Context) -> list[kev.Event]:
    """The draw phase's draw (turn 2 on) when sizes are tracked; an empty deck draws nothing."""
    me = state.players[state.active]
    want = ctx.numbers.draw_per_turn
    if not me.deck:
        return [kev.ReminderGiven(text=f"{me.name}的牌库已空：本轮不抽牌", player=state.active, reason="抽牌阶段")]
    got = min(want, me.deck)
    short = f"（牌库只剩{got}张）" if got < want else ""
    return [ev.BackroomsCardsDrawn(player=state.active, amount=got, reason=f"抽牌阶段：抽{want}张{short}")]


def take_from_hand(state: State, player: int, what: str) -> None:
    """Refuse playing ``what`` from an empty hand (when sizes are tracked)."""
    p = state.players[player]
    if p.counted and p.hand <= 0:
        raise IllegalCommand(_("{name}'s hand is empty: {what} must come from the hand (draw or move the card there first if an effect brought it)").format(name=p.name, what=tr(what)))


def _tracked(state: State, player: int) -> None:
    p = state.players[player]
    if not p.counted:
        raise IllegalCommand(_("{name}'s hand and deck sizes are not tracked in this game (start it with --deck to track them)").format(name=p.name))


# ---------------------------------------------------------------------------- commands


@COMMANDS.command(Param.player(), Param.count("cards", N_("How many."), 1), Param.why(),
                  label="抽牌", labels={"cards": "张数"},
                  help=N_("Draw by a card effect (the draw phase draws {n.draw_per_turn} by itself); capped at what "
                       "the deck holds, refused when it is empty."), examples=('draw A 2 --why "杏仁水"',))
def draw(state: State, ctx: Context, player: Any, cards: Any = 1, why: str = "") -> list[kev.Event]:
    i = who(state, player)
    _tracked(state, i)
    want = count(cards, N_("cards to draw"))
    have = state.players[i].deck
    if have == 0:
        raise IllegalCommand(_("{name}'s deck is empty: there is nothing to draw").format(name=state.players[i].name))
    got = min(want, have)
    short = f"（牌库只剩{got}张，原为{want}张）" if got < want else ""
    return [ev.BackroomsCardsDrawn(player=i, amount=got, reason=f"{why or '卡牌效果'}{short}")]


@COMMANDS.command(Param.player(), Param("source", "choice", N_("deck, hand, discard or removed."), choices=ZONES, label="从", choice_labels=ZONE_LABELS),
                  Param("dest", "choice", N_("deck, hand, discard or removed."), choices=ZONES, label="到", choice_labels=ZONE_LABELS),
                  Param.count("cards", N_("How many."), 1),
                  Param.card(help=N_("The card, when it goes into or out of the discard by name."), default=None,
                             option=True),
                  Param.why(), label="移动卡牌", labels={"cards": "张数"},
                  help=N_("Move cards between the deck, the hand, the discard and out of the game by a card effect "
                       "(recycling, milling, discarding from the hand); pieces on the board move with summon, "
                       "return, destroy, discard, remove."),
                  examples=('move A discard hand --card 撬棍 --why "回收"', 'move B hand discard 2 --why "弃牌"'))
def move(state: State, ctx: Context, player: Any, source: str, dest: str, cards: Any = 1, card: Any = None,
         why: str = "") -> list[kev.Event]:
    i = who(state, player)
    p = state.players[i]
    for z in (source, dest):
        if z not in ZONES:
            raise IllegalCommand(_("unknown zone {z!r}; zones: {ZONES}").format(z=z, ZONES=', '.join(ZONES)))
    if source == dest:
        raise IllegalCommand(_("the cards are in the {source} already").format(source=source))
    if {"deck", "hand"} & {source, dest}:
        _tracked(state, i)
    k = count(cards, N_("cards"))
    named = ""
    if card not in (None, ""):
        named = find_card(state, ctx, i, card).id
        if dest == "discard":
            from .board import used_copies  # board reads this module: imported when used

            check_copies(state, i, ctx.cards[named], used_copies(state, i, named), "on the board or in the discard", k)
    if source == "discard":
        if named:
            have = p.discard.count(named)
            if have < k:
                raise IllegalCommand(_("{name}'s discard holds {have} {name2}; cannot move {k}").format(name=p.name, have=have, name2=ctx.cards[named].name, k=k))
        elif p.discard_unnamed < k:
            raise IllegalCommand(_("name the card that leaves {name}'s discard (--card): its discard is {value}").format(name=p.name, value=', '.join((ctx.cards[c].name if c in ctx.cards else c for c in p.discard)) or 'empty'))
    else:
        have = {"deck": p.deck, "hand": p.hand, "removed": p.removed}[source]
        if have is not None and have < k:
            raise IllegalCommand(_("{name}'s {source} holds {have} card(s); cannot move {k}").format(name=p.name, source=source, have=have, k=k))
    text = f"{ZONE_NAMES[source]}→{ZONE_NAMES[dest]}"
    return [ev.BackroomsCardsMoved(player=i, source=source, dest=dest, amount=k, card=named,
                                   reason=f"{why or '卡牌效果'}：{text}")]


@COMMANDS.command(Param.piece("unit", help=N_("Your unit that explored this turn (A3 or its name)."), label="单位"),
                  Param.card(help=N_("The item or equipment found (optional, for the log)."), label="检索",
                             default=None, option=True),
                  label="探索检索", help=N_("At the end of the turn, for a unit that explored, search the deck for one "
                                     "item or equipment (optional): deck → hand."),
                  examples=("search A3", "search A3 --card 撬棍"))
def search(state: State, ctx: Context, unit: Any, card: Any = None) -> list[kev.Event]:
    u = find_piece(state, unit, owner=state.active, what=N_("explored unit"))
    require_active(state, u.owner, N_("search"))
    last = ctx.defn.phases[-1].id
    if state.phase != last:
        raise IllegalCommand(_("the explore search is made at the end of the turn ({phase_name})").format(phase_name=ctx.phase_name(last)))
    if u.kind != UNIT or not u.explored:
        raise IllegalCommand(_("{id} {name} did not explore this turn: only an explored unit brings a search").format(id=u.id, name=u.name))
    if u.searched:
        raise IllegalCommand(_("{id} {name}'s search was made already").format(id=u.id, name=u.name))
    p = state.players[u.owner]
    if p.counted and p.deck <= 0:
        raise IllegalCommand(_("{name}'s deck is empty: there is nothing to search").format(name=p.name))
    named = {}
    if card not in (None, ""):
        c = find_card(state, ctx, u.owner, card, types=SEARCH_TYPES, what=N_("item or equipment"))
        named = dict(card=c.id, name=c.name)
    return [ev.BackroomsSearched(player=u.owner, piece=u.id, **named, reason=f"{u.id} {u.name}探索完成：检索道具或装备")]


# ---------------------------------------------------------------------------- views


def counts_json(p: Any) -> dict[str, Any]:
    return {"deck": p.deck, "hand": p.hand, "discard_unnamed": p.discard_unnamed, "removed": p.removed,
            "under_levels": p.under_levels}


def counts_text(p: dict[str, Any]) -> str:
    """``牌库 31 手牌 5`` (``—`` when not tracked)."""
    show = lambda v: UNTRACKED if v is None else str(v)
    return f"牌库 {show(p['deck'])} 手牌 {show(p['hand'])}"
