"""Helpers for the tracker tests: a fresh store per test, games set up in one line, phase stepping."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.tracker import Store

from engine.live import LiveGame

LEVELS = ("Level 0", "Level 1", "Level 2")


def new_game(tmp_path: Path, game: str = "backrooms", players=("A", "B"), **kwargs) -> LiveGame:
    store = Store(tmp_path / "games.sqlite")
    if game == "backrooms" and "levels" not in kwargs and "decks" not in kwargs:
        kwargs["levels"] = LEVELS
    kwargs.setdefault("cards", {} if "decks" not in kwargs else None)
    return LiveGame.new(store, game, players, **kwargs)


def advance_to(live: LiveGame, turn: int, phase: str, limit: int = 2000) -> None:
    """Press ``next`` until it is ``turn`` in ``phase`` (placing outposts after cuts on the way)."""
    for _ in range(limit):
        s = live.state
        if s.turn == turn and s.phase == phase:
            return
        if s.over:
            raise AssertionError(f"game ended before turn {turn} {phase}: {s.end_reason}")
        if s.ruleset == "backrooms" and s.phase == "end":
            for i, p in enumerate(s.players):
                if p.must_place_outpost:
                    live.do("place", player=p.name)
        live.do("next")
    raise AssertionError(f"never reached turn {turn} {phase}")


def status(live) -> dict:
    """The board as ``status --json`` shows it, for a stored game or an inline one."""
    from engine.live.view import live_status, status_json

    return live_status(live) if hasattr(live, "replay") else status_json(live.state, live.ctx)


def event_types(outcome) -> list[str]:
    return [type(e).__name__ for e in outcome.events]


def write_backrooms_game(folder: Path) -> Path:
    """A backrooms game folder (shipped game.yaml) with small legal decks for A and B."""
    from engine.paths import card_data_root

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.yaml").write_text((card_data_root() / "backrooms" / "game.yaml").read_text(encoding="utf-8"),
                                      encoding="utf-8")
    cards = folder / "cards"
    cards.mkdir()
    lines = ["- {id: goi-x, type: goi, name: 组织X, number: G1, affiliation: X}"]
    for k in range(6):
        lines.append(f"- {{id: lv-{k}, type: level, name: 层级{k}, number: L{k}, affiliation: X, scope: public}}")
    for k in range(6):
        lines.append(f"- {{id: op-{k}, type: outpost, name: 前哨{k}, number: O{k}, affiliation: X}}")
    for k in range(10):
        lines.append(f"- {{id: it-{k}, type: item, name: 道具{k}, number: I{k}, affiliation: X, cost: 1}}")
    (cards / "all.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    decks = folder / "decks"
    decks.mkdir()
    for player, lv in (("a", (0, 1, 2)), ("b", (3, 4, 5))):
        body = ["name: " + player, "cards:", "  goi-x: 1"]
        body += [f"  lv-{k}: 1" for k in lv]
        body += [f"  op-{k}: 1" for k in range(6)]
        body += [f"  it-{k}: 3" for k in range(10)]
        (decks / f"{player}.yaml").write_text("\n".join(body) + "\n", encoding="utf-8")
    return folder


class InlineGame:
    """A game on the pure decider, no store: set up inline, commands in, state out.

    Rule tests use it (the store has its own tests on real files)::

        g = InlineGame("duel", decks={"A": {"knight": 3}, "B": {"knight": 3}})
        g.do("descend", player="A", card="knight")
        assert g.state.pieces[0].id == "A1"

    ``decks`` maps a player to ``{card id: copies}``; ``cards`` replaces the game's card data
    (``{id: Card}``; None: the game's own); ``do`` reads its arguments as the table line and the
    page do (text or values), refusals raise ``IllegalCommand``; ``undo``/``redo`` step exactly;
    ``entries()`` lists the commands in effect (``.command``, ``.events``), as a store's would.
    """

    def __init__(self, game: str = "backrooms", players=("A", "B"), first: int = 0, decks=None, cards=None, **options):
        from engine.decks import Deck
        from engine.definitions import load_game
        from engine.tracker.core import start_game
        from engine.live.session import make_context
        from engine.tracker.state import fold

        self.ctx = make_context(load_game(game), cards)
        self.defn = self.ctx.defn
        loaded = {}
        for player, counts in (decks or {}).items():
            seat = list(players).index(player)
            loaded[seat] = Deck(name=str(player), entries=tuple(counts.items()))
        if self.ctx.rules.RULESET == "backrooms" and "levels" not in options and not loaded:
            options["levels"] = LEVELS
        start = list(start_game(self.ctx, tuple(players), first, decks=loaded, **options))
        self.log: list[InlineEntry] = [InlineEntry("new", tuple(start))]
        self.redone: list[InlineEntry] = []
        self.states = [fold(start)]

    @property
    def state(self):
        return self.states[-1]

    @state.setter
    def state(self, state) -> None:
        """Put a board in place (a test's state folded from older records, say)."""
        self.states[-1] = state

    @property
    def events(self) -> list:
        return [e for entry in self.log for e in entry.events]

    def do(self, name: str, /, **args):
        """Run command ``name`` (table spelling: ``chain_push``), return its events."""
        from engine.tracker.core import commands_of, run_command
        from engine.tracker.state import fold

        spec = commands_of(self.ctx)[name]
        events = run_command(self.state, self.ctx, name, spec.parse_args(args))
        self.states.append(fold(events, self.state))
        self.log.append(InlineEntry(name, tuple(events)))
        self.redone.clear()
        return Done(events)

    def query(self, name: str, /, **args):
        """Ask the rules a question that changes nothing: ``(ok, text)``."""
        from engine.tracker.core import commands_of

        spec = commands_of(self.ctx)[name]
        return spec.run(self.state, self.ctx, **spec.parse_args(args))

    def undo(self) -> None:
        if len(self.log) == 1:
            raise AssertionError("nothing to undo")
        self.states.pop()
        self.redone.append(self.log.pop())

    def redo(self) -> None:
        from engine.tracker.state import fold

        entry = self.redone.pop()
        self.states.append(fold(entry.events, self.state))
        self.log.append(entry)

    def entries(self) -> list:
        return list(self.log)

    def next_to(self, turn: int, phase: str, limit: int = 500) -> None:
        """Press ``next`` until it is ``turn`` in ``phase``."""
        advance_to(self, turn, phase, limit)


class Done(list):
    """The events a command produced (``.events`` too, as a store's outcome has)."""

    @property
    def events(self) -> list:
        return self


@dataclass(frozen=True)
class InlineEntry:
    command: str
    events: tuple


def inline_game(game: str = "backrooms", players=("A", "B"), **kwargs) -> InlineGame:
    """``new_game`` on the pure decider: no card data unless ``cards`` is given."""
    kwargs.setdefault("cards", {})
    return InlineGame(game, players, **kwargs)


def try_checked(machine, name: str, /, **args):
    """A state machine's command step on ``machine.g`` (an ``InlineGame``): the events, or None
    when the rules refused it — and then the state must be exactly what it was."""
    from engine.tracker import IllegalCommand

    before = machine.g.state
    try:
        return machine.g.do(name, **args)
    except IllegalCommand:
        assert machine.g.state == before, f"a refused {name} changed the state"
        return None


def undo_checked(machine) -> None:
    """A state machine's undo step: ``machine.g`` (an ``InlineGame``) steps back, and its state is
    exactly the one ``machine.done`` (states after each applied command) remembers."""
    if len(machine.done) == 1:
        return
    machine.g.undo()
    machine.done.pop()
    assert machine.g.state == machine.done[-1], "undo did not restore the exact earlier state"
