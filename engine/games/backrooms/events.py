"""Events of The Backrooms TCG: what can happen at its table, as facts the log keeps."""

from __future__ import annotations


from ...tracker.records import record
from ...tracker.events import Event, register


@record(kw_only=True)
class LevelPileLaid(Event):
    """Setup: the public level pile, in cut order (display names), lies face up for everyone."""

    level_pile: tuple[str, ...]


@record(kw_only=True)
class CostGained(Event):
    player: int
    amount: int


@record(kw_only=True)
class CostSpent(Event):
    player: int
    amount: int


@record(kw_only=True)
class LevelCut(Event):
    """The current public level was cut out and ``level_index`` of the pile cut in.

    Every player's outposts leave with the cut-out level; each must place or carry one.
    """

    cut_out: str
    cut_in: str
    level_index: int


@record(kw_only=True)
class OutpostPlaced(Event):
    """An outpost enters the player's outpost zone as a piece. ``piece`` is its id (empty in
    logs written before outposts were pieces: the fold then gives the next id, as it did);
    ``card``/``name`` the outpost card when one was named."""

    player: int
    hp: int
    piece: str = ""
    card: str = ""
    name: str = ""
    attack: int = 0


@record(kw_only=True)
class OutpostCarried(Event):
    """After a cut: ``index`` of the cut-out outposts goes on into the new level with its HP."""

    player: int
    index: int


@record(kw_only=True)
class OutpostDamaged(Event):
    player: int
    index: int
    amount: int
    #: The outpost piece's id (events written before outposts were pieces have none).
    piece: str = ""


@record(kw_only=True)
class OutpostRepaired(Event):
    player: int
    index: int
    amount: int
    #: The outpost piece's id (events written before outposts were pieces have none).
    piece: str = ""


@record(kw_only=True)
class OutpostDestroyed(Event):
    player: int
    index: int
    #: The outpost piece's id (events written before outposts were pieces have none).
    piece: str = ""


@record(kw_only=True)
class ChainLinkAdded(Event):
    player: int
    text: str
    #: 1-based link this one negates when it resolves (a "negate an effect" response).
    negates: int | None = None


@record(kw_only=True)
class ChainLinkNegated(Event):
    link: int


@record(kw_only=True)
class ChainLinkResolved(Event):
    link: int
    text: str
    negated: bool


@record(kw_only=True)
class ChainCleared(Event):
    """Every link has resolved; ``order`` is the resolution order shown to the players."""

    order: tuple[int, ...]


# ---------------------------------------------------------------------------- the board's pieces


@record(kw_only=True)
class BackroomsPieceEntered(Event):
    """A card enters the board as piece ``piece``: a unit (``kind`` "unit") in unit slot
    ``slot``, a special in special slot ``slot``, or equipment on unit ``host``. It carries
    the card's numbers as they were read, so a replay never reads the card data."""

    player: int
    piece: str
    card: str
    name: str
    kind: str
    slot: int = 0
    cost: int = 0
    attack: int = 0
    hp: int = 0
    carry: int = 0
    host: str = ""
    face_down: bool = False


@record(kw_only=True)
class BackroomsCardPlayed(Event):
    """An item or effect used from the hand: its cost is paid (a ``CostSpent``) and it goes
    straight to the discard, never taking a slot."""

    player: int
    card: str
    name: str


@record(kw_only=True)
class BackroomsUnitAttacked(Event):
    """``piece`` attacks ``target`` (its damage and the counter-damage follow as their own events)."""

    piece: str
    target: str


@record(kw_only=True)
class BackroomsPieceDamaged(Event):
    piece: str
    amount: int


@record(kw_only=True)
class BackroomsPieceHealed(Event):
    piece: str
    amount: int


@record(kw_only=True)
class BackroomsPieceBuffed(Event):
    """``stat`` ("attack" or "hp") of ``piece`` changes by ``amount``; an HP change moves the
    current and the printed maximum together."""

    piece: str
    stat: str
    amount: int


@record(kw_only=True)
class BackroomsPieceLeft(Event):
    """``piece`` leaves the board to ``to``: "discard", "hand" or "removed" (out of the game)."""

    piece: str
    to: str


@record(kw_only=True)
class BackroomsUnitExplored(Event):
    piece: str


@record(kw_only=True)
class BackroomsPieceStunned(Event):
    piece: str


register(BackroomsPieceEntered, BackroomsCardPlayed, BackroomsUnitAttacked, BackroomsPieceDamaged, BackroomsPieceHealed, BackroomsPieceBuffed, BackroomsPieceLeft,
         BackroomsUnitExplored, BackroomsPieceStunned)

register(LevelPileLaid, CostGained, CostSpent, LevelCut, OutpostPlaced, OutpostCarried, OutpostDamaged, OutpostRepaired, OutpostDestroyed, ChainLinkAdded, ChainLinkNegated, ChainLinkResolved, ChainCleared)


# ---------------------------------------------------------------------------- hand and deck sizes


@record(kw_only=True)
class BackroomsDeckCounted(Event):
    """Setup: ``player``'s draw pile holds ``deck`` cards (the deck list without the G.O.I and
    the levels, less the starting outpost ``outpost`` (1 or 0) taken from it); the hand is empty.
    A game without this event (no ``--deck``, or older logs) tracks no hand or deck sizes."""

    player: int
    deck: int
    outpost: int = 0


@record(kw_only=True)
class BackroomsCardsDrawn(Event):
    player: int
    amount: int


@record(kw_only=True)
class BackroomsCardsMoved(Event):
    """``amount`` cards of ``player`` go from zone ``source`` to ``dest`` (deck, hand, discard,
    removed) by a card effect; ``card`` is the card id when one was named (the discard keeps ids)."""

    player: int
    source: str
    dest: str
    amount: int
    card: str = ""


@record(kw_only=True)
class BackroomsSearched(Event):
    """At the end of the turn ``player`` searches the deck for one item or equipment for the
    explored unit ``piece`` (``card``/``name`` when named): deck → hand."""

    player: int
    piece: str
    card: str = ""
    name: str = ""


register(BackroomsDeckCounted, BackroomsCardsDrawn, BackroomsCardsMoved, BackroomsSearched)
