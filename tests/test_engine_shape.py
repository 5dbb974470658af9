"""The engine's shape: the kernel knows no game, each game is one folder, names are read one way."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.cards import Card
from engine.games import game_module, rulesets
from engine.tracker import events as ev
from engine.tracker.errors import IllegalCommand
from engine.tracker.pieces import find_card, find_piece, pick
from engine.tracker.state import Piece, State, add_piece, classes_of, fold, next_piece_id, remove_piece

ROOT = Path(__file__).resolve().parents[1]
KERNEL = [*sorted((ROOT / "engine" / "tracker").glob("*.py")), *sorted((ROOT / "engine" / "live").glob("*.py"))]


def _game_fields() -> set[str]:
    """Every field a game adds to the kernel's state classes."""
    words: set[str] = set()
    base = set(State.__dataclass_fields__)
    for ruleset in rulesets():
        state_cls, player_cls = classes_of(ruleset)
        words |= set(state_cls.__dataclass_fields__) - base
        words |= set(player_cls.__dataclass_fields__) - {"name"}
    # duel's count of cards on its field shares its word with the field of an error message.
    return words - {"field"}


def test_the_kernel_names_no_game_and_none_of_their_fields():
    """No attribute, keyword or string of the kernel's code names a game or a field only a game
    has (docstrings and comments may give examples)."""
    fields = _game_fields()
    assert {"outposts", "life", "sanity", "level_pile"} <= fields   # the test sees the games' fields
    games = set(rulesets())
    offenders = []
    for path in KERNEL:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
        for node in ast.walk(tree):
            name = None
            if isinstance(node, ast.Attribute) and node.attr in fields:
                name = node.attr
            elif isinstance(node, ast.keyword) and node.arg in fields:
                name = node.arg
            elif isinstance(node, ast.Constant) and id(node) not in docstrings and node.value in games | fields:
                name = node.value
            if name is not None:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert not offenders, "\n".join(offenders)


def test_every_game_folder_has_the_parts_of_a_game():
    for ruleset in rulesets():
        folder = ROOT / "engine" / "games" / ruleset
        assert {"numbers.py", "events.py", "state.py", "sentences.py", "rules.py"} <= {p.name for p in folder.iterdir()}
        rules = game_module(ruleset)
        for hook in ("setup", "first_phase", "on_turn_begin", "on_enter", "on_exit", "losers", "player_json",
                     "state_json", "board_lines", "board_view", "COMMANDS"):
            assert hasattr(rules, hook), f"{ruleset} has no {hook}"
        assert rules.RULESET == ruleset


def test_an_older_game_started_record_is_read_with_its_game_setup():
    # As store schema 3 wrote it: the level pile and deck sizes inside GameStarted itself.
    old = {"type": "GameStarted", "game": "backrooms", "ruleset": "backrooms", "players": ["A", "B"], "first": 1,
           "starting": [["cost", 5]], "level_pile": ["L0", "L1"], "deck_sizes": [], "reason": ""}
    event = ev.from_record(old)
    assert type(event.setup).__name__ == "LevelPileLaid" and event.setup.level_pile == ("L0", "L1")
    state = fold([event])
    assert state.level_pile == ("L0", "L1") and state.players[1].cost == 5 and state.active == 1
    duel = dict(old, game="duel", ruleset="duel", starting=[["life", 20]], level_pile=[], deck_sizes=[35, 34])
    assert [p.deck for p in fold([ev.from_record(duel)]).players] == [35, 34]
    with pytest.raises(Exception, match="no field 'level_pile'"):
        ev.from_record(dict(old, game="ridm", ruleset="ridm"))


# ---------------------------------------------------------------------------- names and pieces


def _card(card_id: str, name: str, type_: str = "unit") -> Card:
    return Card(id=card_id, type=type_, name=name, values={})


class _Ctx:
    def __init__(self, *cards: Card):
        self.cards = {c.id: c for c in cards}


CARDS = (_card("smiler", "笑魇"), _card("smiler-2", "笑魇·二型"), _card("hound", "猎犬"),
         _card("almond", "杏仁水", "item"))


def _state(decks=()) -> State:
    state_cls, player_cls = classes_of("generic")
    return state_cls(players=(player_cls("甲"), player_cls("乙")), pieces_made=(0, 0), decks=decks)


@pytest.mark.parametrize("typed, card", [("hound", "hound"), ("猎犬", "hound"), ("猎", "hound"), ("HOUND", "hound"),
                                         ("笑魇", "smiler"), ("二型", "smiler-2"), ("杏仁", "almond")])
def test_a_card_is_found_by_id_name_or_part_of_its_name(typed, card):
    assert find_card(_state(), _Ctx(*CARDS), 0, typed).id == card


def test_an_ambiguous_or_unknown_card_names_the_candidates():
    with pytest.raises(IllegalCommand, match="could be any of: 笑魇、笑魇·二型"):
        find_card(_state(), _Ctx(*CARDS), 0, "笑")
    with pytest.raises(IllegalCommand, match="did you mean 猎犬"):
        find_card(_state(), _Ctx(*CARDS), 0, "houndd")
    with pytest.raises(IllegalCommand, match="did you mean"):
        find_card(_state(), _Ctx(*CARDS), 0, "smilr")


def test_a_card_comes_from_the_players_deck_list_and_its_types():
    decks = ((("hound", 2),), (("smiler", 1), ("almond", 3)))
    state = _state(decks)
    with pytest.raises(IllegalCommand, match="in 甲's deck"):
        find_card(state, _Ctx(*CARDS), 0, "笑魇")
    assert find_card(state, _Ctx(*CARDS), 1, "笑").id == "smiler"        # smiler-2 is not in 乙's deck
    with pytest.raises(IllegalCommand):
        find_card(state, _Ctx(*CARDS), 1, "杏仁", types=("unit",))


def test_piece_ids_are_the_seat_letter_and_a_number_never_reused():
    state = _state()
    for owner in (0, 0, 1, 0):
        piece_id = next_piece_id(state, owner)
        state = add_piece(state, Piece(id=piece_id, owner=owner, card="hound", name="猎犬"))
    assert [p.id for p in state.pieces] == ["A1", "A2", "B1", "A3"]
    state = remove_piece(state, "A2")
    assert next_piece_id(state, 0) == "A4" and next_piece_id(state, 1) == "B2"
    assert find_piece(state, "ａ３").id == "A3"                          # a phone's full-width keyboard
    assert find_piece(state, "b1").id == "B1"
    with pytest.raises(IllegalCommand, match="could be any of"):
        find_piece(state, "猎犬")
    assert find_piece(state, "猎犬", owner=1).id == "B1"
    with pytest.raises(IllegalCommand, match="no piece 'A2'"):
        find_piece(state, "A2")


def test_pick_refuses_nothing_typed():
    with pytest.raises(IllegalCommand, match="none given"):
        pick("  ", ["x"], lambda c: (c,), "thing")


def _attributes_read(folder: Path) -> set[str]:
    read: set[str] = set()
    for path in folder.glob("*.py"):
        if path.name != "numbers.py":
            read |= {node.attr for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                     if isinstance(node, ast.Attribute)}
    return read


@pytest.mark.parametrize("ruleset", rulesets())
def test_every_number_of_a_game_is_read_by_its_rules(ruleset):
    """A number in game.yaml that only the rulebook prints would let the tracker disagree with
    the book (``ridm.charge_per_card`` once changed the book but not the tracker)."""
    import importlib

    model = importlib.import_module(f"engine.games.{ruleset}.numbers").NUMBERS
    numbers = set(model.model_fields) - {"ruleset"}
    unread = numbers - _attributes_read(ROOT / "engine" / "games" / ruleset)
    assert not unread, f"{ruleset}: game.yaml numbers the tracker never reads: {sorted(unread)}"


def test_a_setup_option_a_game_does_not_take_is_refused_by_name():
    from track_helpers import InlineGame

    with pytest.raises(IllegalCommand, match="--levels is not an option of duel"):
        InlineGame("duel", levels=("L0",))
    assert InlineGame("backrooms", levels=("L0", "L1")).state.level_pile == ("L0", "L1")


def test_the_kernel_imports_nothing_of_the_live_game_on_top_of_it():
    """engine.live is built on the kernel, never the other way: the session, its read models and
    the table page's taps; the kernel works without them (it finds the games by folder only)."""
    offenders = []
    for path in sorted((ROOT / "engine" / "tracker").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                target = ("." * node.level) + (node.module or "")
                if target.startswith("..live") or target.startswith("engine.live"):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {target}")
    assert not offenders, "\n".join(offenders)
