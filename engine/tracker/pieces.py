"""Finding what a command names: a card of a player's deck list, a piece on the board.

Players type what they see on the table: a card's id (``smiler``), its name or part of it
(``笑``), a piece's id (``A3``, ``a3``, ``Ａ３`` from a phone keyboard) or the name of the only
piece of that card on the board. A miss says what was meant ("did you mean") or what there is.
Every game's commands use these two look-ups, so all three games read names the same way.
"""

from __future__ import annotations

from engine.i18n import N_, _
from engine.i18n import _ as tr
import difflib
import unicodedata
from typing import Any, Callable, Iterable, Sequence

from .errors import IllegalCommand

#: Names listed when a look-up fails and nothing is close.
_LISTED = 12


def _norm(text: Any) -> str:
    """Full-width letters and digits as ASCII, case folded, outer spaces gone."""
    return unicodedata.normalize("NFKC", str(text)).strip().casefold()


def pick(token: Any, candidates: Sequence[Any], keys: Callable[[Any], Iterable[str]], what: str) -> Any:
    """The one candidate ``token`` names: an exact key, else a key it is the start of, else a key
    it is inside of — each step only when it names exactly one candidate.

    Raises ``IllegalCommand`` for an ambiguous or unknown token, naming the candidates (all of
    them when few, the closest when many).
    """
    text = _norm(token)
    if not text:
        raise IllegalCommand(_("which {what}? none given").format(what=tr(what)))
    keyed = [(c, [_norm(k) for k in keys(c) if k]) for c in candidates]
    for test in (lambda k: k == text, lambda k: k.startswith(text), lambda k: text in k):
        found = _unique(c for c, ks in keyed if any(test(k) for k in ks))
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            names = "、".join(_first(keys(c)) for c in found[:_LISTED])
            raise IllegalCommand(_("{token!r} could be any of: {names}; type more of the {what}").format(token=token, names=names, what=tr(what)))
    every = {k: c for c, ks in keyed for k in ks}
    close = difflib.get_close_matches(text, list(every), n=3, cutoff=0.5)
    if close:
        meant = "、".join(dict.fromkeys(_first(keys(every[k])) for k in close))
        raise IllegalCommand(_("no {what} {token!r}; did you mean {meant}?").format(what=tr(what), token=token, meant=meant))
    if not candidates:
        raise IllegalCommand(_("no {what} {token!r}: there are none").format(what=tr(what), token=token))
    listed = "、".join(_first(keys(c)) for c in candidates[:_LISTED])
    more = _(" (and {n} more)").format(n=len(candidates) - _LISTED) if len(candidates) > _LISTED else ""
    raise IllegalCommand(_("no {what} {token!r}; there are: {listed}{more}").format(what=tr(what), token=token, listed=listed, more=more))


def _unique(items: Iterable[Any]) -> list[Any]:
    seen: list[Any] = []
    for item in items:
        if not any(item is s for s in seen):
            seen.append(item)
    return seen


def _first(keys: Iterable[str]) -> str:
    return next(iter(keys), "?")


def deck_cards(state: Any, ctx: Any, player: int, types: Sequence[str] = ()) -> list[Any]:
    """The cards ``player`` may bring to the board: their deck list (``--deck`` at ``new``), or
    every card of the game when no deck was given; only ``types`` when given."""
    lists = state.decks
    if player < len(lists) and lists[player]:
        cards = [ctx.cards[card_id] for card_id, _rest in lists[player] if card_id in ctx.cards]
    else:
        cards = list(ctx.cards.values())
    return [c for c in cards if not types or c.type in types]


def find_card(state: Any, ctx: Any, player: int, token: Any, types: Sequence[str] = (), what: str = N_("card")) -> Any:
    """The card of ``player``'s deck list that ``token`` names (id, name, or part of a name)."""
    cards = deck_cards(state, ctx, player, types)
    if not cards and not ctx.cards:
        raise IllegalCommand(_("the {what} cannot be looked up: this game's card data is not available").format(what=tr(what)))
    if player < len(state.decks) and state.decks[player]:
        what = _("{what} in {player}'s deck").format(what=tr(what), player=state.players[player].name)
    return pick(token, cards, lambda c: (c.name, c.id), what)


def copies_in_deck(state: Any, player: int, card_id: str) -> int | None:
    """How many copies of ``card_id`` ``player``'s deck list holds (None: no deck was given)."""
    if not (player < len(state.decks) and state.decks[player]):
        return None
    return dict(state.decks[player]).get(card_id, 0)


def check_copies(state: Any, player: int, card: Any, used: int, where: str, adding: int = 1) -> None:
    """Refuse ``adding`` more copies of ``card`` when, with the ``used`` ones (counted by the
    game: on the board, in the discard…, said by ``where``), they are more than the player's deck
    list holds."""
    copies = copies_in_deck(state, player, card.id)
    if copies is not None and used + adding > copies:
        raise IllegalCommand(_("{name}'s deck has {copies} {name2}; {used} already {where}").format(name=state.players[player].name, copies=copies, name2=card.name, used=used, where=where))


def find_piece(state: Any, token: Any, owner: int | None = None, what: str = N_("piece")) -> Any:
    """The piece on the board ``token`` names: its id (``A3``) or the name of its card when only
    one such piece is on the board; ``owner`` limits the search to one player's pieces."""
    pieces = [p for p in state.pieces if owner is None or p.owner == owner]
    text = _norm(token)
    for piece in pieces:
        if _norm(piece.id) == text:
            return piece
    if not pieces:
        if owner is None:
            raise IllegalCommand(_("no {what} {token!r}: there are no pieces on the board").format(what=tr(what), token=token))
        raise IllegalCommand(_("no {what} {token!r}: there are no pieces of {player} on the board").format(
            what=tr(what), token=token, player=state.players[owner].name))
    return pick(token, pieces, lambda p: (f"{p.id} {p.name}", p.name), what)
