"""duel on the board: life, the zones' card counts, each turn's used skills, and the pieces —
fighters (rank, printed attack/guard, stance, wound, attacks left, source cards) and the assists
stacked behind them (each a piece with its own id, naming the fighter it assists)."""

from __future__ import annotations


from ...tracker.records import record
from ...tracker import events as kev
from ...tracker.state import (Piece, Player as BasePlayer, State as BaseState, add_piece, change_piece,
                              game_classes, reducer, remove_piece, replace, with_player as _with_player)
from .events import (DecksCounted, LifeChanged, CardsMoved, DrawFailed, DescentMade, SkillUsed, AttackResolved,
                     FighterEntered, FighterRankedUp, AssistPlaced, StanceChanged, FighterWounded, GuardLowered,
                     PieceLeft, FighterBoosted)

RULESET = "duel"

#: The two states of a fighter (战备: upright, fights with its attack; 守卫: sideways, with its guard).
READY = "ready"
GUARD = "guard"
STANCES = (READY, GUARD)


@record
class DuelPlayer(BasePlayer):
    life: int = 0
    deck: int | None = None
    hand: int = 0
    #: Fighters counted without pieces: only logs written before fighters were pieces have any.
    field: int = 0
    #: The netherworld's face-up cards; annihilated cards lie face down and are counted apart.
    netherworld: int = 0
    netherworld_face_down: int = 0
    #: Cards a card effect removed from the game (no zone of the seed; kept so every card is counted).
    removed: int = 0
    decked_out: bool = False
    descents_used: int = 0
    draw_skills_used: int = 0
    in_turn_skills_used: int = 0
    #: Which in-turn skills were used this turn (each option at most once).
    in_turn_skill_kinds: tuple[str, ...] = ()
    pierce: bool = False


@record
class DuelFighter(Piece):
    """A fighter: ``attack`` and ``guard`` are the card's printed numbers (assists and this turn's
    pierce are added by ``engine.games.duel.board``)."""

    rank: int = 0
    attack: int = 0
    guard: int = 0
    stance: str = READY
    wounded: bool = False
    attacks_left: int = 0
    #: Guard lost to pierce this turn.
    guard_drop: int = 0
    #: What card effects add to its attack and guard: while it stays, and for this turn only.
    attack_boost: int = 0
    guard_boost: int = 0
    turn_attack_boost: int = 0
    turn_guard_boost: int = 0
    #: Card ids under it (ranked up from): in no zone while it stands.
    sources: tuple[str, ...] = ()


@record
class DuelAssist(Piece):
    """An assist card behind fighter ``fighter`` (a piece id), with its card's assist bonuses."""

    fighter: str = ""
    rank: int = 0
    attack_bonus: int = 0
    guard_bonus: int = 0


@record
class DuelState(BaseState):
    pass


State = DuelState


game_classes(RULESET, DuelState, DuelPlayer, DuelFighter, DuelAssist)


#: Zones a ``CardsMoved`` counts ("source" and "assist" of older logs are in no zone).
COUNTED_ZONES = ("deck", "hand", "field", "netherworld", "removed")


def _zone(zone: str, face_down: bool) -> str:
    return "netherworld_face_down" if zone == "netherworld" and face_down else zone


def _add(s: State, player: int, zone: str, delta: int, face_down: bool = False) -> State:
    """``player``'s count of ``zone`` changed by ``delta`` (a deck never counted stays unknown)."""
    if zone not in COUNTED_ZONES:
        return s
    p = s.players[player]
    name = _zone(zone, face_down)
    if getattr(p, name) is None:
        return s
    return _with_player(s, player, **{name: getattr(p, name) + delta})


@reducer(DecksCounted)
def _decks(s: State, e: DecksCounted) -> State:
    return replace(s, players=tuple(replace(p, deck=e.deck_sizes[i]) for i, p in enumerate(s.players)))


@reducer(kev.TurnBegan, ruleset=RULESET)
def _turn(s: State, e: kev.TurnBegan) -> State:
    fresh = tuple(replace(p, descents_used=0, draw_skills_used=0, in_turn_skills_used=0, in_turn_skill_kinds=(),
                          pierce=False) for p in s.players)
    # Attacks are gained within a turn and pierce lowers a guard for that turn only.
    pieces = tuple(replace(p, attacks_left=0, guard_drop=0, turn_attack_boost=0, turn_guard_boost=0)
                   if isinstance(p, DuelFighter) else p for p in s.pieces)
    return replace(s, players=fresh, pieces=pieces)


@reducer(LifeChanged)
def _life(s: State, e: LifeChanged) -> State:
    return _with_player(s, e.player, life=s.players[e.player].life + e.delta)


@reducer(CardsMoved)
def _moved(s: State, e: CardsMoved) -> State:
    s = _add(s, e.player, e.source, -e.count, e.from_face_down)
    return _add(s, e.player, e.dest, e.count, e.face_down)


@reducer(DrawFailed)
def _draw_failed(s: State, e: DrawFailed) -> State:
    return _with_player(s, e.player, decked_out=True)


@reducer(DescentMade)
def _descent(s: State, e: DescentMade) -> State:
    return _with_player(s, e.player, descents_used=s.players[e.player].descents_used + 1)


@reducer(SkillUsed)
def _skill(s: State, e: SkillUsed) -> State:
    p = s.players[e.player]
    if e.draw_skill:
        return _with_player(s, e.player, draw_skills_used=p.draw_skills_used + 1)
    return _with_player(s, e.player, in_turn_skills_used=p.in_turn_skills_used + 1,
                        in_turn_skill_kinds=p.in_turn_skill_kinds + (e.kind,), pierce=p.pierce or e.kind == "pierce")


@reducer(AttackResolved)
def _attack(s: State, e: AttackResolved) -> State:
    # Pierce from the in-turn skill lasts for the next attack only.
    if e.pierce_used:
        s = _with_player(s, e.player, pierce=False)
    attacker = s.piece(e.attacker) if e.attacker else None
    if attacker is not None:
        s = change_piece(s, attacker.id, attacks_left=attacker.attacks_left - 1)
    return s


@reducer(FighterEntered)
def _entered(s: State, e: FighterEntered) -> State:
    s = _add(s, e.player, e.source, -1, e.from_face_down)
    return add_piece(s, DuelFighter(id=e.piece, owner=e.player, card=e.card, name=e.name, rank=e.rank,
                                    attack=e.attack, guard=e.guard, stance=e.stance, attacks_left=e.attacks))


@reducer(FighterRankedUp)
def _ranked_up(s: State, e: FighterRankedUp) -> State:
    old = s.piece(e.piece)
    s = _add(s, e.player, "hand", -1)
    return change_piece(s, e.piece, card=e.card, name=e.name, rank=e.rank, attack=e.attack, guard=e.guard,
                        attacks_left=e.attacks, sources=old.sources + (old.card,))


@reducer(AssistPlaced)
def _assist(s: State, e: AssistPlaced) -> State:
    s = _add(s, e.player, "hand", -1)
    return add_piece(s, DuelAssist(id=e.piece, owner=e.player, card=e.card, name=e.name, fighter=e.fighter,
                                   rank=e.rank, attack_bonus=e.attack_bonus, guard_bonus=e.guard_bonus))


@reducer(StanceChanged)
def _stance(s: State, e: StanceChanged) -> State:
    return change_piece(s, e.piece, stance=e.stance)


@reducer(FighterWounded)
def _wounded(s: State, e: FighterWounded) -> State:
    return change_piece(s, e.piece, wounded=True)


@reducer(GuardLowered)
def _guard_lowered(s: State, e: GuardLowered) -> State:
    return change_piece(s, e.piece, guard_drop=s.piece(e.piece).guard_drop + e.amount)


@reducer(PieceLeft)
def _left(s: State, e: PieceLeft) -> State:
    piece = s.piece(e.piece)
    s = _add(remove_piece(s, e.piece), e.player, e.dest, 1, e.face_down)
    sources = len(piece.sources) if isinstance(piece, DuelFighter) else 0
    return _add(s, e.player, "netherworld", sources) if sources else s


@reducer(FighterBoosted)
def _boosted(s: State, e: FighterBoosted) -> State:
    f = s.piece(e.piece)
    if e.this_turn:
        s = change_piece(s, f.id, turn_attack_boost=f.turn_attack_boost + e.attack,
                         turn_guard_boost=f.turn_guard_boost + e.guard)
    else:
        s = change_piece(s, f.id, attack_boost=f.attack_boost + e.attack, guard_boost=f.guard_boost + e.guard)
    return change_piece(s, f.id, attacks_left=f.attacks_left + e.attacks) if e.attacks else s
