"""The cards a rulebook shows: the example card of a type and the gallery, drawn by the card renderer.

Uses the same ``Layouts`` (templates) and ``CardPainter`` as the card sheets, so a card in the
rulebook is exactly the card on the sheet, just scaled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any

from engine.cards import Card, load_cards
from engine.definitions import GameDefinition

from pipeline.render.painter import CardFlowable, CardPainter
from pipeline.render.fonts import FontSet
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
    #: The leader line from the field to the card's right edge, as (x, y) points in mm from the
    #: card's top left: it starts on the field's box and crosses no other text on the face.
    route: tuple[tuple[float, float], ...] = ()

    @property
    def exit_y_mm(self) -> float:
        return self.route[-1][1] if self.route else self.y_mm


Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in mm from the card's top left
#: Leader lines keep this far (mm) from any text box, and parallel runs this far from each other.
CLEARANCE_MM = 0.3
CHANNEL_GAP_MM = 1.1
#: The leader starts this far outside the field's box, so its dot sits beside the text, not on it.
DOT_OFFSET_MM = 0.9


def _segment_hits(a: tuple[float, float], b: tuple[float, float], box: Box, pad: float) -> bool:
    """Does the axis-parallel segment a–b come within ``pad`` of the inside of ``box``?"""
    x0, x1 = sorted((a[0], b[0]))
    y0, y1 = sorted((a[1], b[1]))
    return x0 < box[2] + pad and x1 > box[0] - pad and y0 < box[3] + pad and y1 > box[1] - pad


def route_leaders(boxes: list[Box], obstacles: list[Box], width: float, height: float) -> list[tuple]:
    """A leader for each field box, to the card's right edge, crossing no obstacle.

    Straight right from the box's right edge when that is clear; otherwise up or down from its
    top or bottom edge to the nearest free horizontal channel (a gap between rows of text, or the
    card's border), then right. Parallel runs keep ``CHANNEL_GAP_MM`` apart. A field with no
    free way out keeps the straight line (it is then reported by the anatomy test).
    """
    used: list[float] = []  # the heights of the horizontal runs already placed

    def inside(o: Box, own: Box) -> bool:
        return own[0] <= o[0] and own[1] <= o[1] and o[2] <= own[2] and o[3] <= own[3]

    def clear(a, b, own: Box) -> bool:
        return not any(_segment_hits(a, b, o, CLEARANCE_MM) for o in obstacles if not inside(o, own))

    def free_channel(y: float) -> bool:
        return all(abs(y - uy) >= CHANNEL_GAP_MM for uy in used)

    routes = []
    for box in boxes:
        x0, y0, x1, y1 = box
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        straight = ((min(x1 + DOT_OFFSET_MM, width), cy), (width, cy))
        if clear(*straight, box) and free_channel(cy):
            routes.append(straight)
            used.append(cy)
            continue
        best = None
        for edge, stop, step in ((y0, 0.0, -0.1), (y1, height, 0.1)):
            start = edge + (DOT_OFFSET_MM if step > 0 else -DOT_OFFSET_MM)
            y = start
            while (y > stop) if step < 0 else (y < stop):
                if not clear((cx, start), (cx, y), box):
                    break  # the way up (down) is blocked from here on
                if clear((cx, y), (width, y), box) and free_channel(y):
                    if best is None or abs(y - start) < abs(best[-1][1] - best[0][1]):
                        best = ((cx, start), (width, y)) if abs(y - start) < 1e-9 else ((cx, start), (cx, y), (width, y))
                    break
                y += step
        route = best or straight
        routes.append(route)
        used.append(route[-1][1])
    return routes


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
        """The card sheets' painter, with the same rules-text size per card type as the sheets
        (``share_text_sizes``), so a card in the book is the card as printed."""
        from pipeline.plan import share_text_sizes

        size = self.game.card_size
        painter = CardPainter(self.fonts, size.width_mm, size.height_mm, self.game.folder)
        keep: dict[str, list[Element] | None] = {c.id: None for c in self.cards if c.id not in self._faces}
        share_text_sizes(self.layouts, self.cards, painter, 0, keep=keep)
        self._faces.update({cid: faces for cid, faces in keep.items() if faces is not None})
        return painter

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

    def size_of(self, card: Card) -> tuple[float, float]:
        """The card's trim size, mm (a card type may have its own)."""
        return self.game.card_size_of(card.type).mm

    def flowable(self, card: Card, width_mm: float) -> CardFlowable:
        return CardFlowable(self.painter, self.face(card), card, width_mm, size_mm=self.size_of(card))

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
        seen: dict[str, tuple[Annotation, Box]] = {}
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
            seen[fid] = (Annotation(0, fid, label, str(value), (x0 + x1) / 2, (y0 + y1) / 2), (x0, y0, x1, y1))
        ordered = sorted(seen.values(), key=lambda ab: (round(ab[0].y_mm), ab[0].x_mm))
        width, height = self.size_of(card)
        obstacles = [_box(e) for e in self.face(card) if e.kind in ("text", "para", "art") and "x" in e.props]
        routes = route_leaders([b for _, b in ordered], obstacles, width, height)
        routed = [replace(a, route=tuple(r)) for (a, _), r in zip(ordered, routes)]
        # Numbered top to bottom by where the leaders leave the card, so no two leaders cross
        # on their way to the numbers beside it.
        routed.sort(key=lambda a: (a.exit_y_mm, a.x_mm))
        return [replace(a, number=n) for n, a in enumerate(routed, 1)]


def _box(e: Element) -> Box:
    x, y = float(e["x"]), float(e["y"])
    return (x, y, x + float(e.get("w", 0)), y + float(e.get("h", 0)))
