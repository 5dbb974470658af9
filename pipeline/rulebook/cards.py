"""The cards a rulebook shows: the example card of a type and the gallery, drawn by the card renderer.

Uses the same ``Layouts`` (templates) and ``CardPainter`` as the card sheets, so a card in the
rulebook is exactly the card on the sheet, just scaled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Any

from engine.cards import Card, load_cards
from engine.definitions import GameDefinition

from pipeline.draw import CardFlowable, CardPainter
from pipeline.fonts import FontSet
from pipeline.layout import Element, Layouts

#: Fields whose element only decorates (no annotation number for them).
_UNLABELLED = {"art"}
_FALLBACK_LABELS = {"number": "编号", "type": "类型", "name": "名称"}
_TAGS = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class Annotation:
    """One numbered call-out on the example card: the field, its label, its value and where it is."""

    number: int
    field: str
    label: str
    value: str
    x_mm: float  # centre of the element, from the card's left
    y_mm: float  # centre of the element, from the card's top


def sample_card(game: GameDefinition, type_id: str) -> Card:
    """A stand-in card for a type that has no card yet: every field filled with a legal value."""
    values: dict[str, Any] = {"id": f"example-{type_id}", "type": type_id, "name": "示例卡", "text": "（卡牌效果）"}
    for fid, spec in game.card_types[type_id].fields.items():
        if spec.kind == "int":
            values[fid] = max(spec.min or 0, 0) if spec.max is None else min(max(spec.min or 0, 1), spec.max)
        elif spec.kind == "enum":
            values[fid] = spec.values[0]
        elif spec.kind == "bool":
            values[fid] = False
        elif spec.kind == "text":
            values[fid] = "（效果）"
        else:
            values[fid] = "示例"
    return Card(values["id"], type_id, values["name"], MappingProxyType(values))


class RulebookCards:
    """A game's cards, in gallery order (card type order of game.yaml, then file order)."""

    def __init__(self, game: GameDefinition, fonts: FontSet):
        self.game = game
        self.fonts = fonts
        order = {t: n for n, t in enumerate(game.card_types)}
        self.cards: list[Card] = sorted(load_cards(game), key=lambda c: order.get(c.type, len(order)))
        self._faces: dict[str, list[Element]] = {}

    @cached_property
    def layouts(self) -> Layouts:
        return Layouts(self.game)

    @cached_property
    def painter(self) -> CardPainter:
        size = self.game.card_size
        return CardPainter(self.fonts, size.width_mm, size.height_mm, self.game.folder)

    def of_type(self, type_id: str) -> list[Card]:
        return [c for c in self.cards if c.type == type_id]

    def example(self, type_id: str) -> Card:
        """The card shown in 'card anatomy': the first card of the type with the most fields filled."""
        cards = self.of_type(type_id)
        if not cards:
            return sample_card(self.game, type_id)
        return max(cards, key=lambda c: (sum(v not in (None, "") for v in c.values.values()), -cards.index(c)))

    def face(self, card: Card) -> list[Element]:
        if card.id not in self._faces:
            self._faces[card.id] = self.layouts.face(card, 0)
        return self._faces[card.id]

    def flowable(self, card: Card, width_mm: float) -> CardFlowable:
        return CardFlowable(self.painter, self.face(card), card, width_mm)

    def annotations(self, card: Card) -> list[Annotation]:
        """Numbered call-outs for every field the card face shows, top to bottom."""
        fields = self.game.fields_of(card.type)
        by_label = {spec.label: fid for fid, spec in fields.items()}
        groups: dict[str, list[Element]] = {}
        for e in self.face(card):
            field = e.get("field")
            if not field or field in _UNLABELLED or "x" not in e.props:
                continue
            fid = field if field in fields else by_label.get(field, field)
            groups.setdefault(fid, []).append(e)
        seen: dict[str, Annotation] = {}
        for fid, elements in groups.items():
            if fid in fields and fid != "type":
                label, value = fields[fid].label, card.get(fid)
            elif fid == "type" or not fid.isascii():
                texts = [_TAGS.sub("", str(e.get("text"))) for e in elements if e.kind == "text" and e.get("text")]
                label, value = ("类型" if fid == "type" else fid), (texts[-1] if texts else None)
            else:
                continue  # a template-private field with no rule meaning
            if value in (None, "", "—"):
                continue
            x0 = min(float(e["x"]) for e in elements)
            x1 = max(float(e["x"]) + float(e.get("w", 0)) for e in elements)
            y0 = min(float(e["y"]) for e in elements)
            y1 = max(float(e["y"]) + float(e.get("h", 0)) for e in elements)
            seen[fid] = Annotation(0, fid, label, str(value), (x0 + x1) / 2, (y0 + y1) / 2)
        ordered = sorted(seen.values(), key=lambda a: (round(a.y_mm), a.x_mm))
        return [Annotation(n, a.field, a.label, a.value, a.x_mm, a.y_mm) for n, a in enumerate(ordered, 1)]
