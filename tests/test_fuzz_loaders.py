"""Fuzzing the card and deck loaders: whatever a file holds, the only exceptions that may come out
are cardpress's own (``CardpressError``), which the CLI prints as a located message."""

from __future__ import annotations

import io
import math
from pathlib import Path

import openpyxl
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cards import read_cards
from engine.decks import check_deck, read_deck
from engine.definitions import load_game
from engine.errors import CardpressError
from engine.yamlio import parse_yaml
from pipeline.scaffold import scaffold

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
#: Characters that make YAML interesting: structure, anchors, tags, quotes, digits, CJK.
YAML_CHARS = st.sampled_from(list(":-?[]{},&*!|>'\"#%@`\n\t ") + list("abcxyz019") + ["名", "：", "\x00", "\ufeff"])


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    folder = scaffold(tmp_path_factory.mktemp("fuzz") / "g", "模糊")
    return load_game(folder)


def _only_our_errors(call) -> None:
    try:
        call()
    except CardpressError:
        pass


def _load(game, path: Path, data: bytes) -> None:
    path.write_bytes(data)
    cards, problems = read_cards(game, [path])
    assert all(p.where.file == path for p in problems)
    for card in cards:  # a card that loads is a proper card, never one holding "None"
        assert isinstance(card.name, str) and card.name.strip() and card.name != "None"


# Values a card mapping may hold: scalars YAML can write, nested a little.
_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                     st.text(max_size=30))
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
                       max_leaves=8)
_field_names = st.sampled_from(["id", "type", "name", "text", "flavor", "art", "cost", "attack", "hp", "x"]) | st.text(max_size=6)
_cards = st.lists(st.dictionaries(_field_names, _values, max_size=8), max_size=4)


@FUZZ
@given(text=st.text(YAML_CHARS, max_size=200))
def test_yaml_text_parses_or_raises_our_error(text):
    _only_our_errors(lambda: parse_yaml(text))


@FUZZ
@given(text=st.text(YAML_CHARS, max_size=200))
def test_yaml_card_files_load_or_report(game, tmp_path, text):
    _only_our_errors(lambda: _load(game, tmp_path / "cards.yaml", text.encode("utf-8", "surrogatepass")))


@FUZZ
@given(cards=_cards)
def test_structured_yaml_cards_load_or_report(game, tmp_path, cards):
    text = yaml.safe_dump(cards, allow_unicode=True)
    _only_our_errors(lambda: _load(game, tmp_path / "cards.yaml", text.encode("utf-8")))


@FUZZ
@given(data=st.binary(max_size=300) | st.text(st.sampled_from(list(',"\n\r\x00 =\'abc1名')), max_size=200).map(
    lambda t: ("id,type,name,cost,text\n" + t).encode("utf-8")))
def test_csv_card_files_load_or_report(game, tmp_path, data):
    _only_our_errors(lambda: _load(game, tmp_path / "cards.csv", data))


_cells = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10**30, max_value=10**30),
                   st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
                   st.sampled_from(["scout", "unit", "spell", "名", "=1+1", "9" * 40]))


@FUZZ
@given(rows=st.lists(st.lists(_cells, max_size=7), max_size=5),
       header=st.lists(st.sampled_from(["id", "type", "name", "cost", "attack", "hp", "text", None, "", "?"]),
                       max_size=7))
def test_xlsx_cells_load_or_report(game, tmp_path, rows, header):
    book = openpyxl.Workbook()
    try:
        book.active.append(header)
        for row in rows:
            book.active.append([v if not (isinstance(v, float) and not math.isfinite(v)) else str(v) for v in row])
    except Exception:  # openpyxl itself refuses some characters: not a file a designer can have
        return
    buf = io.BytesIO()
    book.save(buf)
    _only_our_errors(lambda: _load(game, tmp_path / "cards.xlsx", buf.getvalue()))


@FUZZ
@given(data=st.binary(max_size=400))
def test_arbitrary_bytes_as_xlsx_load_or_report(game, tmp_path, data):
    _only_our_errors(lambda: _load(game, tmp_path / "cards.xlsx", b"PK\x03\x04" + data))


@FUZZ
@given(deck=st.dictionaries(st.sampled_from(["name", "description", "cards", "x"]),
                            _values | st.dictionaries(_field_names, _values, max_size=4), max_size=4)
       | st.text(YAML_CHARS, max_size=120))
def test_deck_files_load_or_report(game, tmp_path, deck):
    path = tmp_path / "deck.yaml"
    text = deck if isinstance(deck, str) else yaml.safe_dump(deck, allow_unicode=True)
    path.write_bytes(text.encode("utf-8", "surrogatepass"))

    def run():
        loaded = read_deck(path)
        check_deck(game, [], loaded)

    _only_our_errors(run)
