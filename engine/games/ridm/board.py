"""The ridm table as a lane of zones, and the look-ups the rules make on it.

The seed gives each side a deploy zone (部署区) and an action zone (行动区), each holding at most
one operator, and lets an operator "move one space" (移动1格) instead of attacking; a commander
loses sanity while an opposing operator stands in their deploy zone. Read together, the sides'
zones face each other as one lane::

    seat 0 deploy — seat 0 action — seat 1 action — seat 1 deploy

and an operator moves to the next zone along it, so it must cross the opponent's action zone to
invade their deploy zone. A zone holds one operator whoever owns it: an invader blocks its
victim's deployments until it is routed. The seed puts no range on attacks, so any opposing
operator on the board may be attacked. Zone names a player types are relative to the operator's
owner: ``deploy``, ``action`` (its own), ``enemy-action``, ``enemy-deploy``.
"""

from __future__ import annotations

from engine.i18n import N_, _
from typing import Any

from ...tracker.core import Context, IllegalCommand
from ...tracker.pieces import find_piece
from .state import RidmOperator, State, operators

DEPLOY, ACTION = "deploy", "action"
#: Zone words a player types, relative to the operator's owner: (own side?, zone).
ZONE_WORDS: dict[str, tuple[bool, str]] = {
    "deploy": (True, DEPLOY), "action": (True, ACTION),
    "enemy-action": (False, ACTION), "enemy-deploy": (False, DEPLOY),
}
ZONE_NAMES = {DEPLOY: "部署区", ACTION: "行动区"}
ZONE_WORD_LABELS = ("己方部署区", "己方行动区", "敌方行动区", "敌方部署区")


def capacity(ctx: Context, zone: str) -> int | None:
    """Operators ``zone`` holds at once, from game.yaml's zones (None: no limit given)."""
    for z in ctx.defn.zones:
        if z.id == zone:
            return z.capacity
    return None


def lane(state: State) -> list[tuple[int, str]]:
    """Every (side, zone) of the table in lane order (two seats: the four zones above)."""
    first, second = 0, state.other(0)
    return [(first, DEPLOY), (first, ACTION), (second, ACTION), (second, DEPLOY)]


def standing(state: State, side: int, zone: str) -> list[RidmOperator]:
    return [o for o in operators(state) if o.side == side and o.zone == zone]


def occupant(state: State, side: int, zone: str) -> RidmOperator | None:
    here = standing(state, side, zone)
    return here[0] if here else None


def require_room(state: State, ctx: Context, side: int, zone: str) -> None:
    limit = capacity(ctx, zone)
    here = standing(state, side, zone)
    if limit is not None and len(here) >= limit:
        names = "、".join(f"{o.id} {o.name}" for o in here)
        raise IllegalCommand(_("{name}'s {zone} already holds {names} (at most {limit} operator(s))").format(name=state.players[side].name, zone=ZONE_NAMES[zone], names=names, limit=limit))


def where(state: State, o: RidmOperator) -> str:
    """``B的部署区`` — the zone as players read it."""
    return f"{state.players[o.side].name}的{ZONE_NAMES[o.zone]}"


def invaders(state: State, victim: int) -> list[RidmOperator]:
    """Opposing operators standing in ``victim``'s deploy zone."""
    return [o for o in standing(state, victim, DEPLOY) if o.owner != victim]


def operator(state: State, token: Any, what: str = N_("operator")) -> RidmOperator:
    """The operator piece ``token`` names (``A1``, ``a1`` or its name when only one is on the board)."""
    piece = find_piece(state, token, what=what)
    if not isinstance(piece, RidmOperator):
        raise IllegalCommand(_("{id} is not an operator").format(id=piece.id))
    return piece


def destination(state: State, o: RidmOperator, word: str) -> tuple[int, str]:
    """(side, zone) that zone word ``word`` means for ``o``'s owner."""
    own, zone = ZONE_WORDS[word]
    return (o.owner if own else state.other(o.owner)), zone


def adjacent(state: State, a: tuple[int, str], b: tuple[int, str]) -> bool:
    order = lane(state)
    return abs(order.index(a) - order.index(b)) == 1


def covering(state: State, o: RidmOperator) -> Any:
    """The skill timer covering ``o``, if any."""
    return next((t for t in state.players[o.owner].timers if t.piece == o.id), None)
