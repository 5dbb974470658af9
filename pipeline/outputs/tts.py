"""Tabletop Simulator: which cards go on which deck sheet, and the saved object a user imports.

TTS's Custom Deck takes one face sheet (a grid of at most 10 × 7 cells, at most 4096 px a side,
the last cell the image TTS shows for a card hidden in another player's hand) and *one* back
image for every card of the deck. Cards with different back designs therefore cannot share a
sheet with a single back: they would all show the first card's back. Two ways out exist —
``UniqueBack`` (the back is a second sheet of the same grid, one back per cell) or one deck per
back design. We write **one sheet set per back design**: a back is one small image instead of a
second 4096 px sheet per face sheet, the hidden card of a sheet is simply its back, and it is how
the game is played (backrooms keeps its levels and outposts in decks of their own, apart from the
main deck), so each back design becomes its own deck on the table.

Files (in ``DIR/tts``): ``sheet-<back>-NN.jpg`` (face sheets of the cards with that back, print
order, copies repeated), ``back-<back>.jpg``, and ``<name>.json``: a TTS *Saved Object* holding
one ``DeckCustom`` per back design (a lone card is saved as a ``Card``).

Format (Tabletop Simulator's JSON save file, which Saved Objects share with empty outer fields):
  https://tabletopsimulator.fandom.com/wiki/Save_File_Format — ``ObjectStates`` of objects;
  a ``DeckCustom`` lists ``DeckIDs`` (one CardID per card, top to bottom), ``CustomDeck`` (sheets
  keyed "1", "2"…: ``FaceURL``, ``BackURL``, ``NumWidth``, ``NumHeight``, ``BackIsHidden``,
  ``UniqueBack``) and ``ContainedObjects`` (one ``Card`` each, ``CardID`` = sheet key × 100 +
  cell index, with its own ``CustomDeck`` entry). Saved-object outer fields are empty
  (https://git.ete.moe/argonui/TTSModManager/blob/main/saved-object-feature.md); field names as
  TTS writes them, e.g. https://raw.githubusercontent.com/1j01/systemocracy/gh-pages/data/export/Systemocracy.json
  and @typed-tabletop-simulator/lib's deck forge (``UniqueBack``: the back is a sheet itself).
  Limits: 69 different cards per sheet (10 × 7, the 70th cell hidden), sheets ≤ 4096 px.
Sheet keys are numbered across the whole object (TTS keys a sheet by its CardID's hundreds
everywhere in a save), so deck 2's first sheet is "2", never a second "1".

Images are named by ``file:///`` URLs of where they were written, so TTS on this computer loads
them as they are; to share the object, upload the images and replace the URLs.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from engine.cards import Card

from ..atomic import atomic_write, output_path

TTS_COLS, TTS_ROWS = 10, 7
#: TTS caps a sheet at 4096 px on each side (and loads faster below it).
TTS_MAX_PX = 4096
#: Cards on one sheet: every cell but the last, which holds the hidden-card image.
PER_SHEET = TTS_COLS * TTS_ROWS - 1


@dataclass
class TtsSheet:
    """One face sheet: its CustomDeck key (1, 2… across the saved object), file, and cards in
    cell order."""

    key: int
    path: Path
    cards: list[Card]


@dataclass
class TtsDeck:
    """The cards of one back design: their sheets and the back image."""

    back: str
    back_image: Path
    sheets: list[TtsSheet] = field(default_factory=list)

    @property
    def cards(self) -> list[Card]:
        return [card for sheet in self.sheets for card in sheet.cards]


def plan_decks(sequence: Iterable[Card], back_of: Callable[[Card], str], folder: Path) -> list[TtsDeck]:
    """One deck per back design (in the order the backs first appear in ``sequence``), each
    with its cards' sheets of ``PER_SHEET`` cells in print order."""
    by_back: dict[str, list[Card]] = {}
    for card in sequence:
        by_back.setdefault(back_of(card), []).append(card)
    decks, key = [], 0
    for back, cards in by_back.items():
        deck = TtsDeck(back, output_path(folder, f"back-{back}.jpg"))
        for n, i in enumerate(range(0, len(cards), PER_SHEET)):
            key += 1
            deck.sheets.append(TtsSheet(key, output_path(folder, f"sheet-{back}-{n + 1:02d}.jpg"),
                                        cards[i:i + PER_SHEET]))
        decks.append(deck)
    return decks


def _guid(*parts: object) -> str:
    """A stable 6-hex-digit GUID (TTS's form), so the same game writes the same file."""
    return hashlib.sha1("\x00".join(map(str, parts)).encode()).hexdigest()[:6]


def _transform(x: float, face_down: bool) -> dict:
    return {"posX": x, "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0 if face_down else 0.0,
            "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}


def _custom_deck(sheet: TtsSheet, back_url: str, url: Callable[[Path], str]) -> dict:
    return {"FaceURL": url(sheet.path), "BackURL": back_url, "NumWidth": TTS_COLS, "NumHeight": TTS_ROWS,
            # False: TTS shows the sheet's last cell (our back) for hidden cards, as drawn.
            "BackIsHidden": False, "UniqueBack": False, "Type": 0}


def _card(card: Card, card_id: int, custom: dict, x: float, guid: str) -> dict:
    return {"GUID": guid, "Name": "Card", "Transform": _transform(x, True), "Nickname": card.name,
            "Description": "", "GMNotes": "", "ColorDiffuse": {"r": 0.713235, "g": 0.713235, "b": 0.713235},
            "Locked": False, "Grid": True, "Snap": True, "Autoraise": True, "Sticky": True, "Tooltip": True,
            "Hands": True, "HideWhenFaceDown": True, "SidewaysCard": False, "CardID": card_id,
            "CustomDeck": custom, "LuaScript": "", "LuaScriptState": "", "XmlUI": ""}


def saved_object(decks: list[TtsDeck], nickname: Callable[[TtsDeck], str],
                 url: Callable[[Path], str] = lambda p: p.resolve().as_uri()) -> dict:
    """The Saved Object (a dict ready for ``json.dump``): one DeckCustom per deck side by side,
    face down; Nickname of each card = its name; CardID = sheet key × 100 + cell."""
    objects = []
    for d, deck in enumerate(decks):
        x = d * 3.0
        back_url = url(deck.back_image)
        customs = {str(s.key): _custom_deck(s, back_url, url) for s in deck.sheets}
        cards = [_card(card, sheet.key * 100 + i, {str(sheet.key): customs[str(sheet.key)]}, x,
                       _guid(deck.back, sheet.key, i, card.id))
                 for sheet in deck.sheets for i, card in enumerate(sheet.cards)]
        if len(cards) == 1:  # TTS saves a lone card as a Card, not a deck of one
            cards[0]["Nickname"] = cards[0]["Nickname"] or nickname(deck)
            objects.append(cards[0])
            continue
        deck_object = dict(_card(deck.cards[0], 0, customs, x, _guid(deck.back)), Name="DeckCustom",
                           Nickname=nickname(deck), Hands=False, DeckIDs=[c["CardID"] for c in cards],
                           ContainedObjects=cards)
        del deck_object["CardID"]
        objects.append(deck_object)
    return {"SaveName": "", "GameMode": "", "Date": "", "VersionNumber": "", "GameType": "", "GameComplexity": "",
            "Tags": [], "Gravity": 0.5, "PlayArea": 0.5, "Table": "", "Sky": "", "Note": "", "Rules": "",
            "TabStates": {}, "LuaScript": "", "LuaScriptState": "", "XmlUI": "", "ObjectStates": objects}


def write_saved_object(path: Path, decks: list[TtsDeck], nickname: Callable[[TtsDeck], str]) -> Path:
    """Write the Saved Object JSON (UTF-8, names unescaped) atomically."""
    text = json.dumps(saved_object(decks, nickname), ensure_ascii=False, indent=2)
    with atomic_write(path) as tmp:
        tmp.write_text(text + "\n", encoding="utf-8")
    return path
