"""``cardpress schema GAME``: JSON Schemas an editor uses to complete and check a game's files.

The schemas must agree with the loaders: every shipped file passes, and a mutation the loader
refuses (unknown type, cost out of range, missing field, unknown deck card) fails both.
"""

from __future__ import annotations

import datetime
import json
import re
import tempfile
from pathlib import Path

import pytest
from jsonschema import Draft7Validator, Draft202012Validator
from typer.testing import CliRunner

from engine.cards import card_files, load_cards, read_cards
from engine.decks import check_deck, deck_files, read_deck
from engine.definitions import load_game, parse_game
from engine.errors import DataError
from engine.paths import shipped_games
from engine.yamlio import load_yaml, parse_yaml
from pipeline.cli.app import app
from pipeline.outputs.schema import FILES, SCHEMA_DIR, schemas
from pipeline.scaffold import scaffold

runner = CliRunner()
GAMES = shipped_games()


def plain(value):
    """Parsed YAML as JSON data, as an editor's YAML server sees it (dates as their text)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    return value


def _messages(error):
    yield f"{list(error.absolute_path)}: {error.message}"
    for sub in error.context or ():  # why each branch of an anyOf failed
        yield from _messages(sub)


def errors(schema, data):
    """Every message (with those of anyOf branches) of validating ``data`` against ``schema``."""
    return [m for e in Draft202012Validator(schema).iter_errors(plain(data)) for m in _messages(e)]


@pytest.fixture(scope="module")
def shipped():
    out = {}
    for game_id in GAMES:
        game = load_game(game_id)
        out[game_id] = (game, load_cards(game), schemas(game, load_cards(game)))
    return out


def test_all_three_games_are_shipped():
    assert {"backrooms", "duel", "ridm"} <= set(GAMES)


@pytest.mark.parametrize("game_id", GAMES)
def test_schemas_are_draft_2020_12_with_chinese_titles(shipped, game_id):
    game, _, made = shipped[game_id]
    assert set(made) == {"game", "cards", "deck"}
    for schema in made.values():
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)
        assert game.name in schema["title"]
    # the card types of *this* game, titled with their Chinese names
    card = made["cards"]["$defs"]["card"]
    assert card["properties"]["type"]["enum"] == list(game.card_types)
    for type_id, ctype in game.card_types.items():
        assert made["cards"]["$defs"][f"card-{type_id}"]["title"] == ctype.name
        for key, spec in ctype.fields.items():
            assert made["cards"]["$defs"][f"card-{type_id}"]["properties"][key]["title"] == spec.label


#: Keywords newer than draft-07. The YAML language server (VS Code's YAML extension) validates with
#: draft-07 semantics, so the schemas keep to what both drafts mean the same way.
NEWER_KEYWORDS = {"prefixItems", "unevaluatedProperties", "unevaluatedItems", "dependentRequired",
                  "dependentSchemas", "$dynamicRef", "$dynamicAnchor", "$anchor", "minContains", "maxContains"}


def _keys(node):
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            if key not in ("properties", "$defs"):  # their keys are names, not keywords
                yield from _keys(value)
            else:
                for sub in value.values():
                    yield from _keys(sub)
    elif isinstance(node, list):
        for value in node:
            yield from _keys(value)


@pytest.mark.parametrize("game_id", GAMES)
def test_schemas_mean_the_same_to_a_draft_07_editor(shipped, game_id):
    game, _, made = shipped[game_id]
    for kind, schema in made.items():
        assert not NEWER_KEYWORDS & set(_keys(schema)), kind
        Draft7Validator.check_schema(schema)
    files = [("game", game.card_data_dir / "game.yaml"), ("deck", deck_files(game)[0])]
    files += [("cards", p) for p in card_files(game) if p.suffix == ".yaml"]
    for kind, path in files:
        assert not list(Draft7Validator(made[kind]).iter_errors(plain(load_yaml(path)))), path
    bad_card = {"id": "x", "type": "no-such-type", "name": "坏"}
    assert list(Draft7Validator(made["cards"]).iter_errors([bad_card]))


@pytest.mark.parametrize("game_id", GAMES)
def test_every_shipped_file_validates(shipped, game_id):
    game, _, made = shipped[game_id]
    files = [("game", game.card_data_dir / "game.yaml")]
    files += [("cards", p) for p in card_files(game) if p.suffix in (".yaml", ".yml")]
    files += [("deck", p) for p in deck_files(game)]
    assert len(files) >= 3
    for kind, path in files:
        assert errors(made[kind], load_yaml(path)) == [], path


# ---------------------------------------------------------------------------- cards


def _loader_problems(game, card):
    """What cardpress says of ``card`` (a card file holding it alone, written as JSON: YAML too)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "card.yaml"
        path.write_text(json.dumps([card], ensure_ascii=False), encoding="utf-8")
        return read_cards(game, [path])[1]


def _smiler(shipped):
    game, cards, made = shipped["backrooms"]
    raw = next(c for c in load_yaml(game.card_data_dir / "cards" / "entities.yaml") if c["id"] == "smiler")
    return game, made["cards"], dict(raw)


@pytest.mark.parametrize("change, expected", [
    ({"type": "dragon"}, "'dragon' is not one of"),
    ({"type": "实体"}, "'实体' is not one of"),  # a type's name is for spreadsheets; YAML names the id
    ({"cost": 100}, "100 is greater than the maximum of 99"),
    ({"cost": -1}, "-1 is less than the minimum of 0"),
    ({"cost": "三"}, "'三' is not valid"),
    ({"hp": None}, "None is not valid"),
    ({"id": "Smiler"}, "does not match"),
    ({"speed": 3}, "Additional properties are not allowed ('speed' was unexpected)"),
    ({"number": "BR-028-TOO-LONG"}, "is not valid"),
    ({"text": ["a list"]}, "is not valid"),
])
def test_a_mutated_card_fails_the_schema_and_the_loader(shipped, change, expected):
    game, schema, card = _smiler(shipped)
    assert errors(schema, [card]) == [] and _loader_problems(game, card) == []
    card.update(change)
    found = errors(schema, [card])
    assert any(expected in e for e in found), found
    assert _loader_problems(game, card), "the loader accepts it: the schema would be stricter than cardpress"


@pytest.mark.parametrize("missing", ["id", "type", "name", "cost", "affiliation"])
def test_a_card_missing_a_required_field_fails(shipped, missing):
    game, schema, card = _smiler(shipped)
    del card[missing]
    assert any(f"'{missing}' is a required property" in e for e in errors(schema, [card]))
    assert _loader_problems(game, card)


def test_fields_of_another_type_are_unknown(shipped):
    game, schema, card = _smiler(shipped)
    card["type"] = "item"  # an item has no attack, hp or carry
    found = errors(schema, [card])
    assert any("'attack'" in e and "unexpected" in e for e in found), found
    assert _loader_problems(game, card)


@pytest.mark.parametrize("change", [
    {"cost": "3"},         # the loader reads a number written as text
    {"race": None},        # an optional field left blank
    {"race": "  "},
    {"race": 12},          # a short label YAML read as a number is its text
    {"text": "第一段。\n\n第二段。"},
])
def test_what_the_loader_accepts_passes(shipped, change):
    game, schema, card = _smiler(shipped)
    card.update(change)
    assert _loader_problems(game, card) == []
    assert errors(schema, [card]) == []


def test_enum_fields_list_their_values_and_labels(shipped):
    game, _, made = shipped["backrooms"]
    scope = made["cards"]["$defs"]["card-level"]["properties"]["scope"]
    assert scope["enum"] == ["public", "independent"]
    assert "公共层级" in scope["description"]
    level = {"id": "x", "type": "level", "name": "测试", "number": "L-1", "affiliation": "通用", "scope": "secret"}
    assert errors(made["cards"], [level]) and _loader_problems(game, level)
    level["scope"] = "public"
    assert errors(made["cards"], [level]) == [] and _loader_problems(game, level) == []


def test_a_card_file_may_hold_cards_under_a_key_or_be_empty(shipped):
    _, schema, card = _smiler(shipped)
    assert errors(schema, {"cards": [card]}) == []
    assert errors(schema, None) == []
    assert errors(schema, {"id": "smiler"})  # one card, not a list


# ---------------------------------------------------------------------------- decks


def _deck(shipped, game_id="duel"):
    game, cards, made = shipped[game_id]
    path = deck_files(game)[0]
    return game, cards, made["deck"], dict(load_yaml(path)), path


def test_a_deck_naming_an_unknown_card_fails(shipped, tmp_path):
    game, cards, schema, deck, _ = _deck(shipped)
    deck["cards"] = {**deck["cards"], "no-such-card": 1}
    assert any("'no-such-card' was unexpected" in e for e in errors(schema, deck))
    path = tmp_path / "d.yaml"
    path.write_text(json.dumps(deck, ensure_ascii=False), encoding="utf-8")
    assert any("unknown card" in p.message for p in check_deck(game, cards, read_deck(path)))


@pytest.mark.parametrize("count, expected", [(0, "less than the minimum of 1"), (4, "greater than the maximum of 3"),
                                             ("2", "is not of type 'integer'")])
def test_a_deck_count_out_of_range_fails(shipped, tmp_path, count, expected):
    game, cards, schema, deck, _ = _deck(shipped)
    first = next(iter(deck["cards"]))
    deck["cards"] = {**deck["cards"], first: count}
    assert any(expected in e for e in errors(schema, deck)), errors(schema, deck)
    path = tmp_path / "d.yaml"
    path.write_text(json.dumps(deck, ensure_ascii=False), encoding="utf-8")
    try:
        assert check_deck(game, cards, read_deck(path))
    except DataError:
        pass  # read_deck refuses it outright


def test_a_deck_with_an_unknown_key_or_no_cards_fails(shipped):
    _, _, schema, deck, _ = _deck(shipped)
    assert any("'owner' was unexpected" in e for e in errors(schema, {**deck, "owner": "我"}))
    assert any("'cards' is a required property" in e for e in errors(schema, {"name": "空"}))


def test_deck_card_entries_are_named_in_chinese(shipped):
    game, cards, schema, _, _ = _deck(shipped)
    entries = schema["properties"]["cards"]["properties"]
    assert set(entries) == {c.id for c in cards}
    some = cards[0]
    assert entries[some.id]["title"] == some.name
    assert game.card_types[some.type].name in entries[some.id]["description"]


# ---------------------------------------------------------------------------- game.yaml


@pytest.mark.parametrize("edit, expected", [
    (lambda g: g.update(colour="red"), "'colour' was unexpected"),
    (lambda g: g.pop("deck"), "'deck' is a required property"),
    (lambda g: g["card_size"].update(width_mm=5), "less than the minimum of 10"),
    (lambda g: next(iter(g["card_types"].values()))["fields"].update(kind={"label": "种类", "type": "enum"}),
     "'values' is a required property"),
    (lambda g: next(iter(g["card_types"].values()))["fields"].update(kind={"label": "种类", "type": "number"}),
     "is not one of"),
])
def test_a_mutated_game_yaml_fails_the_schema_and_the_loader(shipped, edit, expected):
    game, _, made = shipped["duel"]
    path = game.card_data_dir / "game.yaml"
    raw = plain(load_yaml(path))
    edit(raw)
    found = errors(made["game"], raw)
    assert any(expected in e for e in found), found
    with pytest.raises(DataError):
        parse_game(parse_yaml(json.dumps(raw, ensure_ascii=False), path), path)


# ---------------------------------------------------------------------------- cardpress new


def test_scaffolded_files_name_their_schemas_and_validate(tmp_path):
    folder = scaffold(tmp_path / "g", "测试")
    for rel, kind in {"game.yaml": "game", "cards/cards.yaml": "cards", "decks/starter.yaml": "deck"}.items():
        path = folder / rel
        first = path.read_text(encoding="utf-8").splitlines()[0]
        # what the YAML language server looks for (its isModeline and $schema patterns)
        match = re.fullmatch(r"#\s+yaml-language-server\s*: \$schema=(\S+)(?: .*)?", first)
        assert match, first
        schema_path = (path.parent / match.group(1)).resolve()
        assert schema_path == (folder / SCHEMA_DIR / FILES[kind]).resolve()
        schema = json.loads(schema_path.read_text(encoding="utf-8"))
        assert errors(schema, load_yaml(path)) == [], rel
    check = runner.invoke(app, ["check", str(folder), "--no-render"])
    assert check.exit_code == 0, check.output  # the line is a comment to cardpress


# ---------------------------------------------------------------------------- the CLI


def test_cli_writes_the_three_schemas(tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(app, ["schema", "ridm", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES.values())
    game = load_game("ridm")
    deck = json.loads((out / FILES["deck"]).read_text(encoding="utf-8"))
    assert errors(deck, load_yaml(deck_files(game)[0])) == []
    assert "deck.schema.json" in result.output


def test_cli_writes_into_the_game_folder_by_default(tmp_path):
    folder = tmp_path / "g"
    scaffold(folder, "测试")
    for f in (folder / SCHEMA_DIR).iterdir():
        f.unlink()
    result = runner.invoke(app, ["schema", str(folder)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (folder / SCHEMA_DIR).iterdir()) == sorted(FILES.values())


def test_cli_leaves_a_shipped_game_folder_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["schema", "duel"])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "dist" / "duel" / SCHEMA_DIR).iterdir()) == sorted(FILES.values())
    assert not (load_game("duel").card_data_dir / SCHEMA_DIR).exists()


def test_cli_bad_game_id_fails_cleanly(tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(app, ["schema", "no-such-game", "--out", str(out)])
    assert result.exit_code == 1
    assert "no game 'no-such-game'" in result.output
    assert "Traceback" not in result.output
    assert not out.exists()


def test_cli_broken_card_names_it_and_writes_nothing(tmp_path):
    folder = scaffold(tmp_path / "g", "测试")
    cards = folder / "cards" / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("cost: 3", "cost: 99", 1), encoding="utf-8")
    out = tmp_path / "out"
    result = runner.invoke(app, ["schema", str(folder), "--out", str(out)])
    assert result.exit_code == 1
    assert "cards.yaml" in result.output and "guardian" in result.output and "cost" in result.output
    assert not out.exists() or not any(out.iterdir())


def test_cli_help_has_examples():
    result = runner.invoke(app, ["schema", "--help"])
    assert result.exit_code == 0
    assert "Example" in result.output and "yaml-language-server" in result.output
