"""Game rules, one module per game: setup, phase hooks, per-turn limits, end conditions.

Each module (``backrooms``, ``duel``, ``ridm``) provides the same small, pure interface the
tracker core calls:

- ``setup(ctx, players, first, levels=(), decks=None) -> [events]`` — GameStarted and setup;
- ``first_phase(state, ctx) -> phase id`` — where a turn starts (duel's first turn: main);
- ``on_turn_begin / on_enter / on_exit(state, ctx) -> [events]`` — hooks (``on_exit`` may refuse);
- ``losers(state, ctx) -> [(player, reason)]`` — end conditions;
- ``COMMANDS`` — the game's commands, each declared once (``engine.tracker.kit``): actions
  ``fn(state, ctx, **args) -> [events]`` and queries ``-> (ok, text)``;
- ``player_json / state_json`` — the game's resources for ``status --json``.

Deck construction is a rule too: ``check_deck_file`` checks a deck against a game.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from ..cards import Card, read_cards
from ..decks import Deck, check_deck, read_deck
from ..definitions import GameDefinition
from ..errors import DataError, Problem
from . import backrooms, duel, generic, ridm

RULESETS: dict[str, ModuleType] = {"backrooms": backrooms, "duel": duel, "ridm": ridm, "generic": generic}


def rules_for(game: GameDefinition) -> ModuleType:
    """The rules module of ``game`` (by its ``rules.ruleset``)."""
    if game.rules is None or game.rules.ruleset not in RULESETS:
        raise DataError(Problem(f"game {game.id!r} has no tracked ruleset (rules.ruleset in game.yaml)"))
    return RULESETS[game.rules.ruleset]


def cards_by_id(game: GameDefinition) -> dict[str, Card]:
    """The game's valid cards by id (cards with problems are left out; the tracker only looks names up)."""
    cards, _ = read_cards(game)
    return {c.id: c for c in cards}


def check_deck_file(game: GameDefinition, path: Path, cards: dict[str, Card] | None = None) -> tuple[Deck, list[Problem]]:
    """Read a deck file and check it against ``game``'s construction rules: (deck, problems)."""
    deck = read_deck(Path(path))
    return deck, check_deck(game, cards if cards is not None else cards_by_id(game), deck)


__all__ = ["RULESETS", "rules_for", "cards_by_id", "check_deck_file", "backrooms", "duel", "generic", "ridm"]
