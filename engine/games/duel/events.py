"""Events of duel: what can happen at its table, as facts the log keeps."""

from __future__ import annotations


from ...tracker.records import record
from ...tracker.events import Event, register


@record(kw_only=True)
class DecksCounted(Event):
    """Setup: cards in each player's deck after the opening hand."""

    deck_sizes: tuple[int, ...]


@record(kw_only=True)
class LifeChanged(Event):
    player: int
    delta: int


@record(kw_only=True)
class CardsMoved(Event):
    """``count`` cards of ``player`` went from one counted zone to another (deck, hand, netherworld,
    removed; ``field``, ``source`` and ``assist`` only in logs written before fighters were pieces).
    ``face_down``: they went into the netherworld face down (annihilated); ``from_face_down``:
    they came from its face-down cards."""

    player: int
    source: str
    dest: str
    count: int
    face_down: bool = False
    from_face_down: bool = False


@record(kw_only=True)
class DrawFailed(Event):
    """``player`` had to draw from an empty deck (a loss in duel)."""

    player: int


@record(kw_only=True)
class DescentMade(Event):
    player: int
    rank: int


@record(kw_only=True)
class SkillUsed(Event):
    """A duel rule skill: ``kind`` is draw1/fill (draw skills) or send2/send3/sendall/pierce (in-turn)."""

    player: int
    kind: str
    draw_skill: bool


@record(kw_only=True)
class AttackResolved(Event):
    """A duel attack worked out by the combat rules; ``summary`` says how. The deaths and the
    battle damage follow as their own events."""

    player: int
    summary: str
    pierce_used: bool = False
    #: The attacking and the attacked pieces (empty in logs written before fighters were pieces).
    attacker: str = ""
    target: str = ""


# ---------------------------------------------------------------------------- pieces on the board


@record(kw_only=True)
class FighterEntered(Event):
    """A card of ``player`` entered the field as fighter ``piece`` (its printed numbers copied from
    the card data), from zone ``source`` (hand by a descent; any zone by a card effect)."""

    player: int
    piece: str
    card: str
    name: str
    rank: int
    attack: int
    guard: int
    source: str
    from_face_down: bool = False
    stance: str = "ready"
    #: Attacks the fighter gains by entering (one per descent, for this turn).
    attacks: int = 0


@record(kw_only=True)
class FighterRankedUp(Event):
    """Card ``card`` from the hand was put on fighter ``piece``: the piece now has that card's
    numbers; the card it covered becomes one of its source cards; its assists stay."""

    player: int
    piece: str
    card: str
    name: str
    rank: int
    attack: int
    guard: int
    attacks: int = 0


@record(kw_only=True)
class AssistPlaced(Event):
    """Card ``card`` from the hand was placed behind fighter ``fighter`` as assist ``piece``."""

    player: int
    piece: str
    fighter: str
    card: str
    name: str
    rank: int
    attack_bonus: int
    guard_bonus: int


@record(kw_only=True)
class StanceChanged(Event):
    player: int
    piece: str
    name: str
    stance: str


@record(kw_only=True)
class FighterWounded(Event):
    player: int
    piece: str
    name: str


@record(kw_only=True)
class GuardLowered(Event):
    """Pierce: fighter ``piece``'s guard is ``amount`` lower for the rest of this turn."""

    player: int
    piece: str
    name: str
    amount: int


@record(kw_only=True)
class PieceLeft(Event):
    """Piece ``piece`` left the field for zone ``dest`` (``face_down``: into the netherworld face
    down). ``how`` is the game's word for it: slain, destroyed, sent, annihilated, returned,
    removed. A fighter's source cards go to the netherworld face up with it; its assists have
    left before it, each by its own event."""

    player: int
    piece: str
    name: str
    dest: str
    how: str
    face_down: bool = False


@record(kw_only=True)
class FighterBoosted(Event):
    """A card effect changed fighter ``piece``'s attack and guard by ``attack``/``guard`` (for this
    turn, or while it stays on the field) and gave it ``attacks`` more attacks this turn."""

    player: int
    piece: str
    name: str
    attack: int = 0
    guard: int = 0
    attacks: int = 0
    this_turn: bool = True


register(DecksCounted, LifeChanged, CardsMoved, DrawFailed, DescentMade, SkillUsed, AttackResolved,
         FighterEntered, FighterRankedUp, AssistPlaced, StanceChanged, FighterWounded, GuardLowered, PieceLeft,
         FighterBoosted)
