"""Decks and the deck-construction rules of a game (one of the rules the engine knows).

A deck file (``card_data/<game>/decks/<name>.yaml``)::

    name: 深层探索者
    description: 以前哨为核心的稳健卡组。
    cards:
      level-0: 1        # card id: copies
      almond-water: 3

``check_deck`` returns every problem: unknown card, too many copies (per card and per type),
deck size out of range, a required card type missing or over its limit.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from .cards import Card
from .definitions import GameDefinition
from .errors import DataError, Location, Problem
from .i18n import N_, _
from .i18n import _ as tr
from .limits import MAX_COPIES, MAX_DECK_CARDS, MAX_FIELD_CHARS
from .yamlio import line_of, load_yaml


#: Card ids (and bad counts) are cut to this many characters in messages.
MAX_SHOWN_ID = 64
#: The message of a deck entry no card has (``Problem.rule`` "unknown-card" marks it: the text
#: is in the user's language).
UNKNOWN_CARD = N_("deck names an unknown card")


@dataclass(frozen=True, slots=True)
class Deck:
    """A named list of (card id, count), in file order. ``lines`` maps card id → line."""

    name: str
    entries: tuple[tuple[str, int], ...]
    path: Path | None = None
    description: str = ""
    lines: Mapping[str, int] = field(default_factory=dict, compare=False)

    @property
    def size(self) -> int:
        return sum(n for _, n in self.entries)

    def counts(self) -> dict[str, int]:
        return dict(self.entries)


def read_deck(path: Path) -> Deck:
    """Parse a deck file; raise ``DataError`` for malformed files and bad counts."""
    raw = load_yaml(path)
    if not isinstance(raw, dict) or not isinstance(raw.get("cards"), dict):
        raise DataError(Problem(_("a deck file is a mapping with 'cards:' (card id: copies)"), Location(path, 1)))
    unknown = [k for k in raw if k not in ("name", "description", "cards")]
    problems = [
        Problem(_("unknown key in a deck file (name, description, cards)"), Location(path, line_of(raw, k)),
                field=str(k)[:MAX_SHOWN_ID])
        for k in unknown
    ]
    for key in ("name", "description"):
        if isinstance(raw.get(key), (dict, list)):
            problems.append(Problem(_("expected text"), Location(path, line_of(raw, key)), field=key))
        elif len(str(raw.get(key) or "")) > MAX_FIELD_CHARS:
            problems.append(Problem(_("{count:,} characters; cardpress refuses more than {limit:,}").format(
                count=len(str(raw[key])), limit=MAX_FIELD_CHARS), Location(path, line_of(raw, key)), field=key))
    entries = []
    cards = raw["cards"]
    for card_id, count in cards.items():
        line = line_of(cards, card_id)
        label = str(card_id)[:MAX_SHOWN_ID]
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            shown = repr(count) if len(repr(count)) <= MAX_SHOWN_ID else repr(count)[:MAX_SHOWN_ID] + "…"
            problems.append(Problem(_("copies must be a whole number ≥ 1, got {value}").format(value=shown), Location(path, line), label, "cards"))
            continue
        if count > MAX_COPIES:
            # Before the game's own limit: a deck of 10⁹ copies must not be expanded to check it.
            problems.append(Problem(_("{count:,} copies; cardpress refuses more than {limit:,} of one card").format(
                count=count, limit=MAX_COPIES),
                                    Location(path, line), label, "cards"))
            continue
        entries.append((str(card_id), count))
    total = sum(n for _id, n in entries)
    if total > MAX_DECK_CARDS:
        problems.append(Problem(_("the deck has {count:,} cards; cardpress refuses more than {limit:,}").format(
            count=total, limit=MAX_DECK_CARDS),
                                Location(path, line_of(raw, "cards")), field="cards"))
    if problems:
        raise DataError(problems)
    return Deck(
        name=str(raw.get("name") or path.stem), entries=tuple(entries), path=path,
        description=str(raw.get("description") or ""), lines=dict(cards.lines),
    )


def deck_files(game: GameDefinition) -> list[Path]:
    folder = game.card_data_dir / "decks"
    return sorted(p for p in folder.glob("*.y*ml")) if folder.is_dir() else []


def find_deck(game: GameDefinition, deck: str | Path) -> Path:
    """The deck a user named: a file path as given, or, for a bare name that is no file here,
    one of the game's own decks by file name (``--deck meg-vanguard`` for
    ``decks/meg-vanguard.yaml``), so a shipped deck has one name after any install. A name that
    matches nothing comes back as given, to be reported as not found (``deck_names`` lists the
    ones there are)."""
    path = Path(deck)
    if path.exists() or len(path.parts) != 1 or path.suffix in (".yaml", ".yml"):
        return path
    for file in deck_files(game):
        if file.stem == path.name:
            return file
    return path


def user_deck(game: GameDefinition, deck: str | Path) -> Path:
    """The deck file a user named (``find_deck``), checked to be a regular file: the user's own
    choice may live anywhere, but a FIFO would hang the read. Raises ``DataError`` naming it."""
    from .paths import UnsafePath, check_regular

    path = find_deck(game, deck)
    try:
        check_regular(path, "deck file")
    except UnsafePath as exc:
        raise DataError(Problem(str(exc), Location(path))) from None
    if not path.is_file():
        raise DataError(Problem(_("deck file not found ({decks})").format(decks=deck_names(game)), Location(path)))
    return path


def deck_names(game: GameDefinition) -> str:
    """The game's own decks by name, for an error message (or a note that it has none)."""
    names = [file.stem for file in deck_files(game)]
    if not names:
        return _("the game has no decks/ folder of its own")
    return _("the game's decks: {names}").format(names=_(", ").join(names))


def _matches(card: Card, where: Mapping[str, object]) -> bool:
    return all(card.get(k) == v for k, v in where.items())


def check_deck(game: GameDefinition, cards: list[Card] | Mapping[str, Card], deck: Deck) -> list[Problem]:
    """Every way ``deck`` breaks ``game``'s construction rules (empty list = legal).

    >>> check_deck(game, cards, deck)  # doctest: +SKIP
    [Problem('deck has 38 cards; 40–60 allowed', ...)]
    """
    by_id = cards if isinstance(cards, Mapping) else {c.id: c for c in cards}
    rules = game.deck
    problems: list[Problem] = []

    def at(card_id: str | None = None) -> Location:
        return Location(deck.path, deck.lines.get(card_id) if card_id else 1)

    resolved: list[tuple[Card, int]] = []
    for card_id, count in deck.entries:
        card = by_id.get(card_id)
        if card is None:
            problems.append(Problem(tr(UNKNOWN_CARD), at(card_id), card_id, "cards", rule="unknown-card"))
            continue
        resolved.append((card, count))

    same = Counter()
    for card, count in resolved:
        same[card.name if rules.copies_by == "name" else card.id] += count
    for card, count in resolved:
        key = card.name if rules.copies_by == "name" else card.id
        limit = rules.type_max_copies.get(card.type, rules.max_copies)
        if same[key] > limit:
            if rules.copies_by == "name":
                text = _("{count} cards named {name!r}; at most {limit} allowed for a {type} card")
            else:
                text = _("{count} copies; at most {limit} allowed for a {type} card")
            text = text.format(count=same[key], name=card.name, limit=limit, type=game.card_types[card.type].name)
            problems.append(Problem(text, at(card.id), card.id, "cards", rule="copies"))
            same[key] = -10**9  # report each name once

    size = deck.size
    if not rules.min_size <= size <= rules.max_size:
        allowed = str(rules.min_size) if rules.min_size == rules.max_size else f"{rules.min_size}–{rules.max_size}"
        problems.append(Problem(_("deck has {size} cards; {allowed} required").format(size=size, allowed=allowed),
                                at(), rule="size"))

    for index, req in enumerate(rules.requirements):
        n = sum(count for card, count in resolved if card.type == req.type and _matches(card, req.where))
        if n < req.min or (req.max is not None and n > req.max):
            allowed = (f"{req.min}" if req.max == req.min else f"{req.min}–{req.max}" if req.max is not None
                       else _("at least {min}").format(min=req.min))
            problems.append(Problem(_("deck has {count} {label} card(s); {allowed} required").format(
                count=n, label=req.label, allowed=allowed), at(), rule=f"requirement:{index}"))
    problems.extend(_affiliation_problems(game, resolved, at))
    return problems


def _affiliation_problems(game: GameDefinition, resolved: list[tuple[Card, int]], at) -> list[Problem]:
    rule = game.deck.affiliation
    if rule is None:
        return []
    leaders = [card for card, _n in resolved if card.type == rule.leader_type]
    if not leaders:
        return []  # a missing leader is already reported by the type requirements
    allowed = {leader.get(rule.field) for leader in leaders} | set(rule.always)
    leader_names = "、".join(leader.name for leader in leaders)
    label = game.card_types[rule.leader_type].fields[rule.field].label
    return [
        Problem(_("{label} {value!r} is not allowed with {leaders} (allowed: {allowed})").format(
                    label=label, value=card.get(rule.field), leaders=leader_names,
                    allowed=_(", ").join(sorted(map(str, allowed)))),
                at(card.id), card.id, "cards", rule="affiliation")
        for card, _n in resolved
        if card.type != rule.leader_type and card.get(rule.field) not in allowed
    ]
