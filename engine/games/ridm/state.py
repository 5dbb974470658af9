"""ridm on the board: sanity, charges, skill timers, each turn's deployments, and the operators.

Every operator on the table is a piece (``RidmOperator``) standing in one zone of the lane:
seat 0's deploy zone, seat 0's action zone, seat 1's action zone, seat 1's deploy zone (see
``board.py``). The reducers only write down what the events say; ``rules.py`` decides.
"""

from __future__ import annotations


from ...tracker.records import Record, record
from ...tracker import events as kev
from ...tracker.state import (Piece, Player as BasePlayer, State as BaseState, add_piece, change_piece, game_classes,
                              reducer, remove_piece, replace, with_player as _with_player)
from .events import (SanityChanged, OperatorDeployed, ChargeAdded, ChargesSpent, SkillActivated, TimersTicked,
                     TimerExpired, DeployZoneChanged, ActionPlayed, OperatorMoved, OperatorAttacked, BlockLost,
                     OperatorRouted, OperatorLeft, OperatorAdjusted, PrepTaken, DeckDealt, PileChanged)

RULESET = "ridm"


@record
class Timer(Record):
    """A skill in effect: ``left`` turns of its owner remain; ``piece`` is the operator it covers."""

    operator: str
    skill: str
    left: int
    piece: str = ""


@record
class RidmOperator(Piece):
    """An operator on the board. ``side``/``zone``: where it stands (an invader stands in the
    opponent's zone). Current values start as the card's printed ones (``base_*``, ``max_block``);
    ``deployed_turn``/``acted_turn`` are turn numbers, so nothing needs resetting at a turn's start."""

    side: int = 0
    zone: str = "deploy"
    attack: int = 0
    defense: int = 0
    block: int = 0
    base_attack: int = 0
    base_defense: int = 0
    max_block: int = 0
    routed: bool = False
    deployed_turn: int = 0
    acted_turn: int = 0


@record
class RidmPlayer(BasePlayer):
    sanity: int = 0
    charges: int = 0
    timers: tuple[Timer, ...] = ()
    deployments_used: int = 0
    skill_slot_charges_used: int = 0
    #: Set by hand in logs from before the board (``invade``); no rule reads it any more.
    enemy_in_deploy: bool = False
    #: Cards the board sent to the preparation zone (withdrawn or replaced operators), by name.
    prep: tuple[str, ...] = ()
    #: Skill cards lying face up in the skill slot (each also one of ``charges``).
    skill_slot: tuple[str, ...] = ()
    #: Cards taken from the preparation zone to hand this turn.
    prep_taken: int = 0
    #: Cards in the draw pile and in the hand; None when the game was started without this
    #: player's deck list (or before the tracker counted them): then nothing below is counted.
    deck: int | None = None
    hand: int | None = None
    #: Cards in the discard (routed operators, ended skills, played actions, spent charges).
    discard: int = 0
    #: Hand cards lying face down in the charge slot (``charges`` also counts effect charges).
    charge_cards: int = 0

    @property
    def counted(self) -> bool:
        return self.deck is not None


@record
class RidmState(BaseState):
    pass


State = RidmState


game_classes(RULESET, RidmState, RidmPlayer, Timer, RidmOperator)


def operators(s: State) -> tuple[RidmOperator, ...]:
    return tuple(p for p in s.pieces if isinstance(p, RidmOperator))


def _counts(s: State, player: int, **deltas: int) -> State:
    """Add ``deltas`` to ``player``'s card counts (deck, hand, discard, charge_cards), when counted."""
    p = s.players[player]
    if not p.counted:
        return s
    return _with_player(s, player, **{k: getattr(p, k) + d for k, d in deltas.items() if d})


@reducer(DeckDealt)
def _dealt(s: State, e: DeckDealt) -> State:
    return _with_player(s, e.player, deck=e.deck, hand=e.hand)


@reducer(PileChanged)
def _cards_moved(s: State, e: PileChanged) -> State:
    if e.source == e.dest:  # the rules refuse it; nothing moves
        return s
    return _counts(s, e.player, **{e.source: -e.count, e.dest: e.count})


@reducer(kev.TurnBegan, ruleset=RULESET)
def _turn(s: State, e: kev.TurnBegan) -> State:
    return replace(s, players=tuple(replace(p, deployments_used=0, skill_slot_charges_used=0, prep_taken=0)
                                    for p in s.players))


@reducer(SanityChanged)
def _sanity(s: State, e: SanityChanged) -> State:
    return _with_player(s, e.player, sanity=s.players[e.player].sanity + e.delta)


@reducer(OperatorDeployed)
def _deployed(s: State, e: OperatorDeployed) -> State:
    p = s.players[e.player]
    s = _with_player(s, e.player, deployments_used=p.deployments_used + (1 if e.active else 0))
    s = _counts(s, e.player, hand=-1)  # every deployment (and a replacement) comes from the hand
    if not e.piece:  # an old log's (or a card-data-less game's) deployment: counted, no piece
        return s
    return add_piece(s, RidmOperator(
        id=e.piece, owner=e.player, card=e.card, name=e.operator, side=e.side, zone=e.zone,
        attack=e.attack, defense=e.defense, block=e.block, base_attack=e.attack, base_defense=e.defense,
        max_block=e.block, deployed_turn=s.turn))


@reducer(OperatorMoved)
def _moved(s: State, e: OperatorMoved) -> State:
    return change_piece(s, e.piece, side=e.side, zone=e.zone, acted_turn=s.turn)


@reducer(OperatorAttacked)
def _attacked(s: State, e: OperatorAttacked) -> State:
    return change_piece(s, e.attacker, acted_turn=s.turn) if e.counted else s


@reducer(BlockLost)
def _block_lost(s: State, e: BlockLost) -> State:
    piece = s.piece(e.piece)
    return change_piece(s, e.piece, block=piece.block - e.amount)


@reducer(OperatorRouted)
def _routed(s: State, e: OperatorRouted) -> State:
    return change_piece(s, e.piece, routed=True)


@reducer(OperatorLeft)
def _left(s: State, e: OperatorLeft) -> State:
    piece = s.piece(e.piece)
    s = remove_piece(s, e.piece)
    if e.to == "prep":
        s = _with_player(s, piece.owner, prep=s.players[piece.owner].prep + (piece.name,))
    elif e.to in ("discard", "hand"):
        s = _counts(s, piece.owner, **{e.to: 1})
    return s


@reducer(OperatorAdjusted)
def _adjusted(s: State, e: OperatorAdjusted) -> State:
    piece = s.piece(e.piece)
    return change_piece(s, e.piece, **{e.stat: getattr(piece, e.stat) + e.delta})


@reducer(PrepTaken)
def _prep_taken(s: State, e: PrepTaken) -> State:
    p = s.players[e.player]
    prep = list(p.prep)
    prep.remove(e.card)
    s = _with_player(s, e.player, prep=tuple(prep), prep_taken=p.prep_taken + 1)
    return _counts(s, e.player, hand=1)


@reducer(ChargeAdded)
def _charge(s: State, e: ChargeAdded) -> State:
    p = s.players[e.player]
    slot = p.skill_slot + ((e.card,) if e.skill_slot and e.card else ())
    s = _with_player(s, e.player, charges=p.charges + e.count, skill_slot=slot,
                     skill_slot_charges_used=p.skill_slot_charges_used + (1 if e.skill_slot else 0))
    # The skill card lies face up in the skill slot (counted there); face-down cards in charge_cards.
    return _counts(s, e.player, hand=-e.from_hand, charge_cards=0 if e.skill_slot else e.from_hand)


@reducer(ChargesSpent)
def _charges_spent(s: State, e: ChargesSpent) -> State:
    p = s.players[e.player]
    left = p.charges - e.count
    # Face-down cards pay first; the skill-slot cards are used up once fewer charges remain.
    slot = p.skill_slot[:max(left, 0)]
    # Of the face-down charges, the cardless ones (card effects) pay before the cards do; the
    # cards that paid go to the discard.
    cards = min(p.charge_cards, max(left - len(slot), 0))
    s = _with_player(s, e.player, charges=left, skill_slot=slot)
    return _counts(s, e.player, charge_cards=cards - p.charge_cards,
                   discard=p.charge_cards - cards + len(p.skill_slot) - len(slot))


@reducer(SkillActivated)
def _activated(s: State, e: SkillActivated) -> State:
    p = s.players[e.player]
    s = _with_player(s, e.player, timers=p.timers + (Timer(e.operator, e.skill, e.duration, e.piece),))
    return _counts(s, e.player, hand=-1)  # the skill card covers its operator from the hand


@reducer(TimersTicked)
def _ticked(s: State, e: TimersTicked) -> State:
    p = s.players[e.player]
    return _with_player(s, e.player, timers=tuple(replace(t, left=t.left - e.amount) for t in p.timers))


@reducer(TimerExpired)
def _expired(s: State, e: TimerExpired) -> State:
    p = s.players[e.player]
    timers = list(p.timers)
    for i, t in enumerate(timers):
        if t.operator == e.operator and t.skill == e.skill and (not e.piece or t.piece == e.piece):
            del timers[i]
            s = _counts(s, e.player, discard=1)
            break
    return _with_player(s, e.player, timers=tuple(timers))


@reducer(DeployZoneChanged)
def _deploy_zone(s: State, e: DeployZoneChanged) -> State:
    return _with_player(s, e.player, enemy_in_deploy=e.enemy_present)


@reducer(ActionPlayed)
def _action(s: State, e: ActionPlayed) -> State:
    return _counts(s, e.player, hand=-1, discard=1)
