"""Events of ridm: what can happen at its table, as facts the log keeps."""

from __future__ import annotations


from ...tracker.records import record
from ...tracker.events import Event, register


@record(kw_only=True)
class SanityChanged(Event):
    player: int
    delta: int


@record(kw_only=True)
class OperatorDeployed(Event):
    player: int
    operator: str
    #: False when a card effect deployed it (does not use the turn's active deployment).
    active: bool = True
    #: The piece put on the board (``A1``). Empty in logs from before the board, and when the
    #: game has no card data to read the operator's numbers from: then only the count is kept.
    piece: str = ""
    card: str = ""
    #: Whose zone it entered (a seat) and which (``deploy``/``action``).
    side: int = 0
    zone: str = "deploy"
    attack: int = 0
    defense: int = 0
    block: int = 0


@record(kw_only=True)
class ChargeAdded(Event):
    player: int
    count: int
    #: True for the once-per-turn skill-slot charge.
    skill_slot: bool = False
    #: The skill card put face up into the skill slot (empty: not named, or a face-down charge).
    card: str = ""
    #: Hand cards this charge took (face down, or the skill card): 0 for a card effect's charges
    #: and in logs from before the tracker counted hands.
    from_hand: int = 0


@record(kw_only=True)
class ChargesSpent(Event):
    player: int
    count: int


@record(kw_only=True)
class SkillActivated(Event):
    player: int
    operator: str
    skill: str
    duration: int
    #: The operator piece the skill card covers; empty when it covers none on the board.
    piece: str = ""


@record(kw_only=True)
class TimersTicked(Event):
    player: int
    amount: int


@record(kw_only=True)
class TimerExpired(Event):
    player: int
    operator: str
    skill: str
    #: The covered operator piece, when the skill covered one (two copies may carry the same skill).
    piece: str = ""


@record(kw_only=True)
class DeployZoneChanged(Event):
    """Whether an enemy operator now stands in ``player``'s deploy zone, as players set it by hand
    before the board held the operators. Still folded for old logs; the turn-end sanity check now
    reads the board instead (see ``rules.invaded``)."""

    player: int
    enemy_present: bool


@record(kw_only=True)
class ActionPlayed(Event):
    player: int
    name: str
    requirement: int


@record(kw_only=True)
class OperatorMoved(Event):
    """``piece`` moved one zone along the lane to ``side``'s ``zone``."""

    piece: str
    side: int
    zone: str


@record(kw_only=True)
class OperatorAttacked(Event):
    """``attacker`` attacked ``defender`` with these current values (the exchange's facts);
    the block lost and any rout follow as their own events."""

    attacker: str
    defender: str
    attack: int
    defense: int
    target_attack: int
    #: False for an attack a card effect grants beyond the turn's one (陈's talent, 一刀两断).
    counted: bool = True


@record(kw_only=True)
class BlockLost(Event):
    piece: str
    amount: int


@record(kw_only=True)
class OperatorRouted(Event):
    """``piece`` is routed (横置): it can no longer move or attack."""

    piece: str


@record(kw_only=True)
class OperatorLeft(Event):
    """``piece`` left the board for its owner's ``to`` zone (``prep``, ``discard``, or ``hand`` by a card effect)."""

    piece: str
    to: str


@record(kw_only=True)
class OperatorAdjusted(Event):
    """A card effect changed ``piece``'s current ``stat`` (attack, defense, block) by ``delta``."""

    piece: str
    stat: str
    delta: int


@record(kw_only=True)
class PrepTaken(Event):
    """At its owner's turn end, ``card`` went from the preparation zone to the hand."""

    player: int
    card: str


@record(kw_only=True)
class DeckDealt(Event):
    """At the start, ``player``'s draw pile holds ``deck`` cards after drawing the opening ``hand``.
    Only a game started with that player's deck list has it: without one the counts stay unknown."""

    player: int
    deck: int
    hand: int


@record(kw_only=True)
class PileChanged(Event):
    """``count`` of ``player``'s cards went from ``source`` to ``dest`` (``deck``, ``hand``, ``discard``):
    the turn-start draw, the draw after a face-down charge, a search, a card effect."""

    player: int
    source: str
    dest: str
    count: int


register(SanityChanged, OperatorDeployed, ChargeAdded, ChargesSpent, SkillActivated, TimersTicked, TimerExpired, DeployZoneChanged, ActionPlayed,
         OperatorMoved, OperatorAttacked, BlockLost, OperatorRouted, OperatorLeft, OperatorAdjusted, PrepTaken,
         DeckDealt, PileChanged)
