"""The games the tracker knows, one folder each: ``engine/games/<ruleset>/``.

A game folder is its rulebook in code and the only place that knows the game:

- ``numbers.py`` — ``NUMBERS``: the pydantic model of its ``rules:`` block in ``game.yaml``
  (``ruleset: <folder name>``), the only source of the numbers its rules use;
- ``events.py`` — its events (frozen dataclasses, past tense), registered with the codec;
- ``state.py`` — ``Player`` and ``State``: the kernel's classes with the game's fields added,
  and the reducers of its events (``engine.tracker.state.reducer``);
- ``sentences.py`` — how its events read in the log (``engine.tracker.describe.sentence``);
- ``rules.py`` — setup, phase hooks, losses and ``COMMANDS``, each command declared once
  (the module the kernel calls; it imports the rest).

The kernel (``engine.tracker``) finds a game here by its ruleset name; adding a game means
adding a folder, nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..cards import Card
    from ..decks import Deck
    from ..definitions import GameDefinition
    from ..errors import Problem

_HERE = Path(__file__).parent


@cache
def rulesets() -> tuple[str, ...]:
    """The ruleset names: one per game folder, sorted."""
    return tuple(sorted(m.name for m in pkgutil.iter_modules([str(_HERE)]) if m.ispkg))


def numbers_models() -> tuple[type, ...]:
    """Every game's ``rules:`` model, for the definition's tagged union."""
    return tuple(importlib.import_module(f"{__name__}.{name}.numbers").NUMBERS for name in rulesets())


def game_module(ruleset: str) -> ModuleType:
    """The rules of ``ruleset`` (``engine.games.<ruleset>.rules``: setup, hooks, COMMANDS…);
    importing it registers the game's events, state classes and log lines."""
    if ruleset not in rulesets():
        raise KeyError(ruleset)
    return importlib.import_module(f"{__name__}.{ruleset}.rules")


def load_all() -> tuple[ModuleType, ...]:
    """Import every game (their events and states become known to the codec)."""
    return tuple(game_module(name) for name in rulesets())


def rules_for(game: "GameDefinition") -> ModuleType:
    """The game package that tracks ``game`` (by its ``rules.ruleset``)."""
    from ..errors import DataError, Problem

    if game.rules is None or game.rules.ruleset not in rulesets():
        raise DataError(Problem(f"game {game.id!r} has no tracked ruleset (rules.ruleset in game.yaml)"))
    return game_module(game.rules.ruleset)


def cards_by_id(game: "GameDefinition") -> "dict[str, Card]":
    """The game's valid cards by id (cards with problems are left out; the tracker only looks names up)."""
    from ..cards import read_cards

    cards, _ = read_cards(game)
    return {c.id: c for c in cards}


def check_deck_file(game: "GameDefinition", path: Path, cards: "dict[str, Card] | None" = None
                    ) -> "tuple[Deck, list[Problem]]":
    """Read a deck file and check it against ``game``'s construction rules: (deck, problems)."""
    from ..decks import check_deck, read_deck

    deck = read_deck(Path(path))
    return deck, check_deck(game, cards if cards is not None else cards_by_id(game), deck)


__all__ = ["rulesets", "numbers_models", "game_module", "load_all", "rules_for", "cards_by_id", "check_deck_file"]
