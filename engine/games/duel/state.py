"""duel on the board: life, the zones' card counts and each turn's used skills."""

from __future__ import annotations

from dataclasses import dataclass

from ...tracker import events as kev
from ...tracker.state import Player as BasePlayer, State as BaseState, game_classes, reducer, replace, with_player as _with_player
from .events import DecksCounted, LifeChanged, CardsMoved, DrawFailed, DescentMade, SkillUsed, AttackResolved

RULESET = "duel"


@dataclass(frozen=True, slots=True)
class DuelPlayer(BasePlayer):
    life: int = 0
    deck: int | None = None
    hand: int = 0
    field: int = 0
    netherworld: int = 0
    decked_out: bool = False
    descents_used: int = 0
    draw_skills_used: int = 0
    in_turn_skills_used: int = 0
    #: Which in-turn skills were used this turn (each option at most once).
    in_turn_skill_kinds: tuple[str, ...] = ()
    pierce: bool = False


@dataclass(frozen=True, slots=True)
class DuelState(BaseState):
    pass


State = DuelState


game_classes(RULESET, DuelState, DuelPlayer)


@reducer(DecksCounted)
def _decks(s: State, e: DecksCounted) -> State:
    return replace(s, players=tuple(replace(p, deck=e.deck_sizes[i]) for i, p in enumerate(s.players)))


@reducer(kev.TurnBegan, ruleset=RULESET)
def _turn(s: State, e: kev.TurnBegan) -> State:
    fresh = tuple(replace(p, descents_used=0, draw_skills_used=0, in_turn_skills_used=0, in_turn_skill_kinds=(),
                          pierce=False) for p in s.players)
    return replace(s, players=fresh)


@reducer(LifeChanged)
def _life(s: State, e: LifeChanged) -> State:
    return _with_player(s, e.player, life=s.players[e.player].life + e.delta)


#: Zones a duel ``CardsMoved`` counts; "source" cards (under a ranked-up fighter) are in no zone.
COUNTED_ZONES = ("deck", "hand", "field", "netherworld")


@reducer(CardsMoved)
def _moved(s: State, e: CardsMoved) -> State:
    p = s.players[e.player]
    changes = {}
    if e.source in COUNTED_ZONES and not (e.source == "deck" and p.deck is None):
        changes[e.source] = getattr(p, e.source) - e.count
    if e.dest in COUNTED_ZONES and not (e.dest == "deck" and p.deck is None):
        changes[e.dest] = changes.get(e.dest, getattr(p, e.dest)) + e.count
    return _with_player(s, e.player, **changes)


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
    return _with_player(s, e.player, pierce=False) if e.pierce_used else s
