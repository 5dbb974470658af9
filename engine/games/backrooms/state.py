"""The Backrooms TCG on the board: each player's cost, the pieces (outposts, units, specials,
equipment), the public level pile, the effect chain.

Outposts are pieces (RULES.md 2026-12). The outpost events of older logs name an outpost by its
place among its owner's outposts (``index``); they still do, counted over the outpost pieces in
board order, so an old log folds to the same HPs it always did. ``BackroomsPlayer.outposts``
stays as the HPs of those pieces, kept in step by every reducer that touches an outpost.
"""

from __future__ import annotations


from ...tracker.records import Record, record
from ...tracker.events import TurnBegan
from ...tracker.state import (Piece, Player as BasePlayer, State as BaseState, add_piece, change_piece, game_classes,
                              next_piece_id, reducer, remove_piece, replace, with_player as _with_player)
from .events import (LevelPileLaid, CostGained, CostSpent, LevelCut, OutpostPlaced, OutpostCarried, OutpostDamaged,
                     OutpostRepaired, OutpostDestroyed, ChainLinkAdded, ChainLinkNegated, ChainLinkResolved,
                     ChainCleared, BackroomsPieceEntered, BackroomsCardPlayed, BackroomsUnitAttacked, BackroomsPieceDamaged, BackroomsPieceHealed, BackroomsPieceBuffed,
                     BackroomsPieceLeft, BackroomsUnitExplored, BackroomsPieceStunned, BackroomsDeckCounted,
                     BackroomsCardsDrawn, BackroomsCardsMoved, BackroomsSearched)

RULESET = "backrooms"


@record
class Link(Record):
    """One link of the effect chain; ``number`` is 1-based in activation order."""

    number: int
    player: int
    text: str
    negates: int | None = None
    negated: bool = False


#: Kinds of piece: where on the board it lies.
UNIT, SPECIAL, EQUIPMENT, OUTPOST = "unit", "special", "equipment", "outpost"
#: The name of an outpost placed without naming its card (and of every outpost of older logs).
OUTPOST_NAME = "前哨站"


@record
class BackroomsPiece(Piece):
    """A card on the board. ``slot`` is 1-based within its zone (units, specials); outposts
    and equipment have none. ``max_hp`` is the printed HP (0: the piece has no HP, like an
    item); ``host`` is the unit an equipment piece is stacked on."""

    kind: str = UNIT
    slot: int = 0
    cost: int = 0
    attack: int = 0
    hp: int = 0
    max_hp: int = 0
    carry: int = 0
    host: str = ""
    face_down: bool = False
    attacked: bool = False
    explored: bool = False
    stunned: bool = False
    #: The explored unit's end-of-turn search was made (one per exploration).
    searched: bool = False

    @property
    def has_hp(self) -> bool:
        return self.kind in (UNIT, OUTPOST) or self.max_hp > 0


@record
class BackroomsPlayer(BasePlayer):
    cost: int = 0
    #: HPs of the player's outpost pieces, in board order (what old logs' ``index`` counts).
    outposts: tuple[int, ...] = ()
    outposts_destroyed: int = 0
    carries_left: int = 0
    #: HP of the outposts that left with the last cut-out level (carry candidates).
    cut_out_outposts: tuple[int, ...] = ()
    must_place_outpost: bool = False
    #: Card ids in the discard, oldest first (pieces that went there, cards used from the hand).
    discard: tuple[str, ...] = ()
    #: Draw pile and hand sizes; None: not tracked (no deck list given, or a log from before).
    deck: int | None = None
    hand: int | None = None
    #: Cards in the discard known only by count (outposts placed without naming their card,
    #: cards an effect sent there unnamed); the discard holds ``len(discard) + discard_unnamed``.
    discard_unnamed: int = 0
    #: Cards removed from the game; outpost cards that stayed under a cut-out level.
    removed: int = 0
    under_levels: int = 0

    @property
    def counted(self) -> bool:
        return self.hand is not None


@record
class BackroomsState(BaseState):
    #: The public level pile, in cut order (display names), face up for everyone.
    level_pile: tuple[str, ...] = ()
    level_index: int = 0
    cuts: int = 0
    chain: tuple[Link, ...] = ()
    last_resolution: tuple[str, ...] = ()
    #: Outpost pieces that left with the last cut-out level (what ``carry`` may bring back).
    cut_out: tuple[BackroomsPiece, ...] = ()

    @property
    def level(self) -> str | None:
        return self.level_pile[self.level_index] if self.level_pile else None

    def pieces_in(self, owner: int, kind: str) -> tuple[BackroomsPiece, ...]:
        return tuple(p for p in self.pieces if p.owner == owner and p.kind == kind)

    def outpost_pieces(self, owner: int) -> tuple[BackroomsPiece, ...]:
        return self.pieces_in(owner, OUTPOST)

    def equipment_of(self, unit_id: str) -> tuple[BackroomsPiece, ...]:
        return tuple(p for p in self.pieces if p.kind == EQUIPMENT and p.host == unit_id)


State = BackroomsState


game_classes(RULESET, BackroomsState, BackroomsPlayer, Link, BackroomsPiece)


def _sync(s: State) -> State:
    """Every player's ``outposts`` (HPs) as their outpost pieces say."""
    players = tuple(replace(p, outposts=tuple(o.hp for o in s.outpost_pieces(i))) if
                    p.outposts != tuple(o.hp for o in s.outpost_pieces(i)) else p
                    for i, p in enumerate(s.players))
    return replace(s, players=players)


def _outpost_id(s: State, player: int, index: int) -> str:
    return s.outpost_pieces(player)[index].id


def _to_discard(s: State, player: int, card: str) -> State:
    return _with_player(s, player, discard=s.players[player].discard + (card,)) if card else s


def _from_hand(s: State, player: int) -> State:
    """A card played from the hand (a no-op when sizes are not tracked; the command refused an empty hand)."""
    p = s.players[player]
    return _with_player(s, player, hand=p.hand - 1) if p.counted else s


@reducer(LevelPileLaid)
def _pile(s: State, e: LevelPileLaid) -> State:
    return replace(s, level_pile=e.level_pile)


@reducer(CostGained)
def _cost_gained(s: State, e: CostGained) -> State:
    return _with_player(s, e.player, cost=s.players[e.player].cost + e.amount)


@reducer(CostSpent)
def _cost_spent(s: State, e: CostSpent) -> State:
    return _with_player(s, e.player, cost=s.players[e.player].cost - e.amount)


@reducer(LevelCut)
def _level_cut(s: State, e: LevelCut) -> State:
    leaving = tuple(p for p in s.pieces if p.kind == OUTPOST)
    # The outposts stay under the cut-out level unless one is carried back (``under_levels``).
    players = tuple(replace(p, cut_out_outposts=p.outposts, outposts=(), must_place_outpost=True,
                            under_levels=p.under_levels + len(p.outposts)) for p in s.players)
    return replace(s, players=players, level_index=e.level_index, cuts=s.cuts + 1, cut_out=leaving,
                   pieces=tuple(p for p in s.pieces if p.kind != OUTPOST))


@reducer(OutpostPlaced)
def _placed(s: State, e: OutpostPlaced) -> State:
    piece = BackroomsPiece(id=e.piece or next_piece_id(s, e.player), owner=e.player, card=e.card,
                           name=e.name or OUTPOST_NAME, kind=OUTPOST, hp=e.hp, max_hp=e.hp, attack=e.attack)
    s = _from_hand(_with_player(add_piece(s, piece), e.player, must_place_outpost=False), e.player)
    return _sync(s)


@reducer(OutpostCarried)
def _carried(s: State, e: OutpostCarried) -> State:
    p = s.players[e.player]
    mine = [o for o in s.cut_out if o.owner == e.player]
    piece = mine[e.index]
    rest = p.cut_out_outposts[:e.index] + p.cut_out_outposts[e.index + 1:]
    # The same piece, with its id and HP, comes back; it is not a new piece.
    s = replace(s, pieces=s.pieces + (piece,), cut_out=tuple(o for o in s.cut_out if o is not piece))
    s = _with_player(s, e.player, cut_out_outposts=rest, carries_left=p.carries_left - 1, must_place_outpost=False,
                     under_levels=p.under_levels - 1)
    return _sync(s)


@reducer(OutpostDamaged)
def _damaged(s: State, e: OutpostDamaged) -> State:
    piece = s.outpost_pieces(e.player)[e.index]
    return _sync(change_piece(s, piece.id, hp=piece.hp - e.amount))


@reducer(OutpostRepaired)
def _repaired(s: State, e: OutpostRepaired) -> State:
    piece = s.outpost_pieces(e.player)[e.index]
    return _sync(change_piece(s, piece.id, hp=piece.hp + e.amount))


@reducer(OutpostDestroyed)
def _destroyed(s: State, e: OutpostDestroyed) -> State:
    piece = s.outpost_pieces(e.player)[e.index]
    s = _to_discard(remove_piece(s, piece.id), e.player, piece.card)
    p = s.players[e.player]
    # An outpost placed without naming its card still puts a card in the discard.
    unnamed = p.discard_unnamed + (1 if p.counted and not piece.card else 0)
    s = _with_player(s, e.player, outposts_destroyed=p.outposts_destroyed + 1, discard_unnamed=unnamed)
    return _sync(s)


@reducer(ChainLinkAdded)
def _link_added(s: State, e: ChainLinkAdded) -> State:
    link = Link(number=len(s.chain) + 1, player=e.player, text=e.text, negates=e.negates)
    return replace(s, chain=s.chain + (link,), last_resolution=())


@reducer(ChainLinkNegated)
def _link_negated(s: State, e: ChainLinkNegated) -> State:
    chain = tuple(replace(l, negated=True) if l.number == e.link else l for l in s.chain)
    return replace(s, chain=chain)


@reducer(ChainLinkResolved)
def _link_resolved(s: State, e: ChainLinkResolved) -> State:
    line = f"{e.link}. {e.text}" + ("（已被无效，不产生效果）" if e.negated else "")
    return replace(s, chain=tuple(l for l in s.chain if l.number != e.link),
                   last_resolution=s.last_resolution + (line,))


@reducer(ChainCleared)
def _chain_cleared(s: State, e: ChainCleared) -> State:
    return replace(s, chain=())


# ---------------------------------------------------------------------------- units, specials, equipment


@reducer(BackroomsPieceEntered)
def _entered(s: State, e: BackroomsPieceEntered) -> State:
    piece = BackroomsPiece(id=e.piece, owner=e.player, card=e.card, name=e.name, kind=e.kind, slot=e.slot,
                           cost=e.cost, attack=e.attack, hp=e.hp, max_hp=e.hp, carry=e.carry, host=e.host,
                           face_down=e.face_down)
    return _from_hand(add_piece(s, piece), e.player)


@reducer(BackroomsCardPlayed)
def _played(s: State, e: BackroomsCardPlayed) -> State:
    return _from_hand(_to_discard(s, e.player, e.card), e.player)


@reducer(BackroomsUnitAttacked)
def _attacked(s: State, e: BackroomsUnitAttacked) -> State:
    return change_piece(s, e.piece, attacked=True)


@reducer(BackroomsPieceDamaged)
def _piece_damaged(s: State, e: BackroomsPieceDamaged) -> State:
    return _sync(change_piece(s, e.piece, hp=s.piece(e.piece).hp - e.amount))


@reducer(BackroomsPieceHealed)
def _piece_healed(s: State, e: BackroomsPieceHealed) -> State:
    return _sync(change_piece(s, e.piece, hp=s.piece(e.piece).hp + e.amount))


@reducer(BackroomsPieceBuffed)
def _piece_buffed(s: State, e: BackroomsPieceBuffed) -> State:
    p = s.piece(e.piece)
    if e.stat == "attack":
        return change_piece(s, e.piece, attack=p.attack + e.amount)
    return _sync(change_piece(s, e.piece, hp=p.hp + e.amount, max_hp=p.max_hp + e.amount))


@reducer(BackroomsPieceLeft)
def _left(s: State, e: BackroomsPieceLeft) -> State:
    p = s.piece(e.piece)
    s = remove_piece(s, e.piece)
    if e.to == "discard":
        s = _to_discard(s, p.owner, p.card)
    elif e.to == "hand" and s.players[p.owner].counted:
        s = _with_player(s, p.owner, hand=s.players[p.owner].hand + 1)
    elif e.to == "removed":
        s = _with_player(s, p.owner, removed=s.players[p.owner].removed + 1)
    return _sync(s) if p.kind == OUTPOST else s


@reducer(BackroomsUnitExplored)
def _explored(s: State, e: BackroomsUnitExplored) -> State:
    return change_piece(s, e.piece, explored=True)


@reducer(BackroomsPieceStunned)
def _stunned(s: State, e: BackroomsPieceStunned) -> State:
    return change_piece(s, e.piece, stunned=True)


@reducer(TurnBegan, ruleset=RULESET)
def _new_turn(s: State, e: TurnBegan) -> State:
    """A new turn: every unit may attack again.

    Exploring lasts until its owner's next turn begins: the seed's "本回合" is a round here
    (回合 = both players' turns), and an explored unit "cannot be attacked" and "does not shield
    its outpost" (RULES.md 2026-12) only mean something through the opponent's turn. A stun lasts
    until its owner's turn has ended: a unit stunned in the opponent's turn misses its own next
    turn, one stunned in its own turn the rest of it."""
    if not any(p.attacked or p.explored or p.stunned for p in s.pieces):
        return s
    ended = s.other(e.player)

    def fresh(p: BackroomsPiece) -> BackroomsPiece:
        explored = p.explored and p.owner != e.player
        stunned = p.stunned and p.owner != ended
        searched = p.searched and explored
        if (p.attacked, p.explored, p.stunned, p.searched) == (False, explored, stunned, searched):
            return p
        return replace(p, attacked=False, explored=explored, stunned=stunned, searched=searched)

    return replace(s, pieces=tuple(fresh(p) for p in s.pieces))


# ---------------------------------------------------------------------------- hand and deck sizes


@reducer(BackroomsDeckCounted)
def _deck_counted(s: State, e: BackroomsDeckCounted) -> State:
    return _with_player(s, e.player, deck=e.deck, hand=0)


@reducer(BackroomsCardsDrawn)
def _drawn(s: State, e: BackroomsCardsDrawn) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, deck=p.deck - e.amount, hand=p.hand + e.amount) if p.counted else s


def _zone_add(s: State, player: int, zone: str, amount: int, card: str) -> State:
    """``amount`` cards into (negative: out of) ``zone``; the discard keeps a named card's id."""
    p = s.players[player]
    if zone == "discard":
        if card and amount > 0:
            return _with_player(s, player, discard=p.discard + (card,) * amount)
        if card:
            rest = list(p.discard)
            for _n in range(-amount):
                del rest[len(rest) - 1 - rest[::-1].index(card)]
            return _with_player(s, player, discard=tuple(rest))
        return _with_player(s, player, discard_unnamed=p.discard_unnamed + amount)
    return _with_player(s, player, **{zone: getattr(p, zone) + amount})


@reducer(BackroomsCardsMoved)
def _moved(s: State, e: BackroomsCardsMoved) -> State:
    s = _zone_add(s, e.player, e.source, -e.amount, e.card)
    return _zone_add(s, e.player, e.dest, e.amount, e.card)


@reducer(BackroomsSearched)
def _searched(s: State, e: BackroomsSearched) -> State:
    if s.piece(e.piece) is not None:
        s = change_piece(s, e.piece, searched=True)
    p = s.players[e.player]
    return _with_player(s, e.player, deck=p.deck - 1, hand=p.hand + 1) if p.counted else s
