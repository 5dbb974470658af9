"""Box checks on a laid-out card (``cardpress check --render``, issue 10 §2).

A template may lay out elements that never reach the paper (beyond the bleed, cut off by the
form's clip), text that a cutter's tolerance trims off (outside the safe zone) or two texts
printed over each other. The painter would draw all of them without complaint; these checks
find them on the element list, before anything is drawn:

- every element's box stays inside the trim + bleed;
- every text box (``text``, ``para``) stays inside the safe zone, ``safe_mm`` inside the trim
  (3 mm by default: the "safe area" print shops ask for — e.g. MakePlayingCards' and
  DriveThruCards' templates keep text 1/8 in ≈ 3.2 mm inside the cut line);
- no two text boxes overlap.

Each problem names the template and element, the card, the field and by how much.
"""

from __future__ import annotations

from typing import Sequence

from engine.errors import CardpressError
from engine.i18n import N_, _
from engine.i18n import _ as tr

from .elements import Element

#: Default distance of text from the trim, in millimetres (game.yaml ``safe_zone_mm`` overrides).
SAFE_ZONE_MM = 3.0
#: What a box may stray by before it counts (rounding of templates' arithmetic).
TOLERANCE_MM = 0.05

_SIDES = {"left": N_("left"), "top": N_("top"), "right": N_("right"), "bottom": N_("bottom")}
TEXT_KINDS = ("text", "para")


class BoundsError(CardpressError):
    """An element of a laid-out card is off the paper, in the cut's way or over other text."""

    def __init__(self, where: str, what: str, field: str | None, message: str):
        self.where, self.what, self.field, self.message = where, what, field, message
        if field:
            text = _("{what}, field {field!r}: {error}").format(what=what, field=field, error=message)
        else:
            text = _("{what}: {error}").format(what=what, error=message)
        super().__init__(_("{where}: {message}").format(where=where, message=text) if where else text)


def element_box(e: Element) -> tuple[float, float, float, float] | None:
    """(left, top, right, bottom) in millimetres from the trim's top-left, y downwards; None for
    an element with no extent."""
    if e.kind == "circle":
        cx, cy, r = float(e["cx"]), float(e["cy"]), float(e["r"])
        return cx - r, cy - r, cx + r, cy + r
    if e.kind == "line":
        xs, ys = (float(e["x1"]), float(e["x2"])), (float(e["y1"]), float(e["y2"]))
        return min(xs), min(ys), max(xs), max(ys)
    if e.kind == "polygon":
        xs = [float(p[0]) for p in e["points"]]
        ys = [float(p[1]) for p in e["points"]]
        return min(xs), min(ys), max(xs), max(ys)
    if all(k in e.props for k in ("x", "y", "w", "h")):
        x, y = float(e["x"]), float(e["y"])
        return x, y, x + float(e["w"]), y + float(e["h"])
    return None


def _outside(box: tuple[float, float, float, float], limit: tuple[float, float, float, float]) -> tuple[str, float] | None:
    """The side a box leaves ``limit`` most by, and by how much (None: inside)."""
    over = {"left": limit[0] - box[0], "top": limit[1] - box[1],
            "right": box[2] - limit[2], "bottom": box[3] - limit[3]}
    side = max(over, key=over.get)
    return (side, over[side]) if over[side] > TOLERANCE_MM else None


def _is_text(e: Element) -> bool:
    return e.kind in TEXT_KINDS and bool(str(e.get("text", "")).strip())


def check_bounds(elements: Sequence[Element], width_mm: float, height_mm: float, bleed_mm: float,
                 what: str, safe_mm: float = SAFE_ZONE_MM) -> list[BoundsError]:
    """Every box problem of one laid-out face or back (empty: all on the card, text safe and
    apart). ``what`` is how messages name it (``card 'scout'``, ``back 'level'``)."""
    problems: list[BoundsError] = []
    bleed = (-bleed_mm, -bleed_mm, width_mm + bleed_mm, height_mm + bleed_mm)
    safe = (safe_mm, safe_mm, width_mm - safe_mm, height_mm - safe_mm)
    texts: list[tuple[Element, tuple[float, float, float, float]]] = []
    for e in elements:
        box = element_box(e)
        if box is None:
            continue
        field = e.get("field")
        out = _outside(box, bleed)
        if out is not None:
            problems.append(BoundsError(e.source, what, field, _(
                "{kind} element leaves the card and its {bleed:g} mm bleed by {by:.1f} mm at the {side}"
            ).format(kind=e.kind, bleed=bleed_mm, by=out[1], side=tr(_SIDES[out[0]]))))
            continue
        if not _is_text(e):
            continue
        texts.append((e, box))
        out = _outside(box, safe)
        if out is not None:
            problems.append(BoundsError(e.source, what, field, _(
                "text box leaves the safe zone ({safe:g} mm inside the trim) by {by:.1f} mm at the {side}"
            ).format(safe=safe_mm, by=out[1], side=tr(_SIDES[out[0]]))))
    for n, (a, box_a) in enumerate(texts):
        for b, box_b in texts[n + 1:]:
            w = min(box_a[2], box_b[2]) - max(box_a[0], box_b[0])
            h = min(box_a[3], box_b[3]) - max(box_a[1], box_b[1])
            if w > TOLERANCE_MM and h > TOLERANCE_MM:
                problems.append(BoundsError(a.source, what, a.get("field"), _(
                    "text box overlaps that of field {other!r} ({where}) by {w:.1f} × {h:.1f} mm"
                ).format(other=b.get("field", b.kind), where=b.source, w=w, h=h)))
    return problems


