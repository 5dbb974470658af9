"""Check a whole game folder: definition, every card file, every deck. One run, every problem."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .cards import Card, read_cards
from .decks import Deck, check_deck, deck_files, read_deck
from .definitions import GameDefinition, load_game
from .errors import DataError, Location, Problem
from .i18n import _
from .paths import UnsafePath, confine


@dataclass
class GameReport:
    """What ``check_game`` found: the game, its valid cards and decks, and every problem."""

    game: GameDefinition
    cards: dict[str, Card] = field(default_factory=dict)
    decks: list[Deck] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def raise_if_problems(self) -> "GameReport":
        if self.problems:
            raise DataError(self.problems)
        return self


def _cross_card_problems(game: GameDefinition, cards: dict[str, Card]) -> list[Problem]:
    """Rules between cards: a ridm skill must name an operator of this game as its user."""
    problems = []
    if game.rules is not None and game.rules.ruleset == "ridm":
        operators = {c.name for c in cards.values() if c.type == "operator"}
        for card in cards.values():
            if card.type == "skill" and card["user"] not in operators:
                problems.append(Problem(_("skill user {user!r} is not an operator of this game").format(user=card["user"]),
                                        card.where, card.id, "user"))
    return problems


def check_game(game: str | Path | GameDefinition, decks: list[Path] | None = None) -> GameReport:
    """Validate a game's cards and decks (``decks`` defaults to every file in ``decks/``).

    Raises ``DataError`` only when ``game.yaml`` itself is invalid; everything else is collected
    in the report.
    """
    definition = game if isinstance(game, GameDefinition) else load_game(game)
    report = GameReport(definition)
    cards, problems = read_cards(definition)
    report.cards = {c.id: c for c in cards}
    report.problems.extend(problems)
    report.problems.extend(_cross_card_problems(definition, report.cards))
    for path in deck_files(definition) if decks is None else decks:
        try:
            if decks is None:  # found in the (untrusted) folder: a symlink may not lead out of it
                confine(path, [definition.card_data_dir], "deck file")
            deck = read_deck(path)
        except UnsafePath as exc:
            report.problems.append(Problem(str(exc), Location(path)))
            continue
        except DataError as exc:
            report.problems.extend(exc.problems)
            continue
        report.decks.append(deck)
        deck_problems = check_deck(definition, report.cards, deck)
        if problems:
            # A card file that failed hides its cards; "unknown card" for each of them would
            # bury the real mistake. A truly unknown card is reported once the cards load.
            deck_problems = [p for p in deck_problems if p.rule != "unknown-card"]
        report.problems.extend(deck_problems)
    return report
