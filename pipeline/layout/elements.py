"""The element schema: what a template's element list may contain, checked once at render time so
drawing code never sees raw input.

Every kind has required keys, optional keys and a type per key; a missing key, an unknown key
or a bad value is an ``ElementError`` naming the element number and key (the caller adds the
template and the card). Values come out normalised: numbers as finite floats, colours as
``#rrggbb``/``#rrggbbaa`` (or None for ``none``), text as str.

Element lists are parsed by ``parse_elements``: one flow mapping per line (what every shipped
template writes) goes through ``json``; anything else through libyaml's safe loader.
"""

from __future__ import annotations

import json
import marshal
import math
import re
import zlib
from dataclasses import dataclass, field
from typing import Any, Callable

import yaml

from engine import limits
from engine.i18n import _

from .markup import MarkupError, check_markup

try:  # libyaml is ~10× faster on the element lists we parse per card
    _YAML_LOADER = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - wheels without libyaml
    _YAML_LOADER = yaml.SafeLoader

#: Coordinates may reach well into the bleed and beyond, but not to absurd values that only
#: confuse PDF viewers.
MAX_COORD_MM = 10 * limits.MAX_CARD_MM
#: Font sizes in points; a 400 mm card's title is far below this.
MAX_FONT_PT = 500.0
#: Line widths in points.
MAX_STROKE_PT = 100.0
#: Line spacing as a multiple of the font size.
MAX_LEADING = 10.0
#: Characters of one text or paragraph: a field's limit, with room for markup tags and sections.
MAX_TEXT_CHARS = 10 * limits.MAX_FIELD_CHARS
#: Points of one polygon and items of one dash pattern.
MAX_POINTS = 1000
MAX_DASH = 16

ELEMENT_KINDS = frozenset({"rect", "circle", "line", "text", "para", "art", "image", "polygon"})


class ElementError(ValueError):
    """One element breaks the schema. ``number`` is 1-based; ``key`` None for the whole element."""

    def __init__(self, number: int, key: str | None, message: str):
        self.number, self.key, self.message = number, key, message
        if key:
            text = _("element {n}, key {key!r}: {error}").format(n=number, key=key, error=message)
        else:
            text = _("element {n}: {error}").format(n=number, error=message)
        super().__init__(text)


@dataclass(frozen=True)
class Element:
    """One validated drawing instruction. ``field`` (in props) names the card field its text comes
    from; ``source`` says which template and element it is, for errors raised while drawing."""

    kind: str
    props: dict[str, Any]
    source: str = field(default="", compare=False)

    def __getitem__(self, key: str) -> Any:
        return self.props[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.props.get(key, default)


def pack(elements: list[Element]) -> bytes | None:
    """A laid-out face as compact bytes (zlib of ``marshal``: about 1 KB, a fifth of the objects),
    to keep many faces between laying out and drawing, or hand them to another process; None
    when a value is not a plain one (``unpack`` gives back equal elements)."""
    try:
        return zlib.compress(marshal.dumps([(e.kind, e.props, e.source) for e in elements]), 1)
    except ValueError:  # a str or number subclass (a template's Markup, say): keep the objects
        return None


def unpack(blob: bytes) -> list[Element]:
    return [Element(kind, props, source) for kind, props, source in marshal.loads(zlib.decompress(blob))]


# ---------------------------------------------------------------------------- value checks


class _Bad(Exception):
    """A value check failed (internal: becomes an ElementError with number and key)."""


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Bad(_("must be a number, got {value!r}").format(value=value))
    result = float(value)
    if not math.isfinite(result):
        raise _Bad(_("must be a finite number, got {value!r}").format(value=value))
    return result


def _coord(value: Any) -> float:
    v = _number(value)
    if abs(v) > MAX_COORD_MM:
        raise _Bad(_("{value:g} mm is far off the card (at most ±{limit:g})").format(value=v, limit=MAX_COORD_MM))
    return v


def _length(value: Any) -> float:
    v = _coord(value)
    if v < 0:
        raise _Bad(_("must be 0 or more, got {value:g}").format(value=v))
    return v


def _bounded_positive(limit: float, unit: str) -> Callable[[Any], float]:
    def check(value: Any) -> float:
        v = _number(value)
        if not 0 < v <= limit:
            raise _Bad(_("must be above 0 and at most {limit:g}{unit}, got {value:g}").format(limit=limit, unit=unit, value=v))
        return v
    return check


_font_size = _bounded_positive(MAX_FONT_PT, " pt")
_stroke = _bounded_positive(MAX_STROKE_PT, " pt")
_leading = _bounded_positive(MAX_LEADING, "")

_HEX = re.compile(r"#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")


def normal_color(value: Any) -> str:
    """``#rgb``/``#rrggbb``/``#rrggbbaa`` → lower-case ``#rrggbb[aa]``; raises ValueError."""
    if not isinstance(value, str) or not _HEX.fullmatch(value):
        raise ValueError(_("must be a colour like \"#1e1e1e\" (#rgb, #rrggbb or #rrggbbaa), got {value!r}").format(value=value))
    if len(value) == 4:
        value = "#" + "".join(ch * 2 for ch in value[1:])
    return value.lower()


def _color(value: Any) -> str:
    try:
        return normal_color(value)
    except ValueError as exc:
        raise _Bad(str(exc)) from None


def _color_or_none(value: Any) -> str | None:
    if value is None or value == "none":
        return None
    try:
        return normal_color(value)
    except ValueError as exc:
        raise _Bad(_("{error} or none").format(error=exc)) from None


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Bad(_("must be true or false, got {value!r}").format(value=value))
    return value


def _short_text(value: Any) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT_CHARS:
        raise _Bad(_("must be text (at most {limit:,} characters), got {value!r:.60}").format(limit=MAX_TEXT_CHARS, value=value))
    return value


def _text(value: Any) -> str:
    """A ``text`` element's text: a string or a number (templates often print a stat directly);
    null is empty — never the word "None" on a card."""
    if value is None:
        return ""
    if isinstance(value, bool):
        raise _Bad(_("must be text, got {value!r}").format(value=value))
    if isinstance(value, (int, float)):
        return str(value)
    return _short_text(value)


def _markup(value: Any) -> str:
    text = _text(value)
    try:
        check_markup(text)
    except MarkupError as exc:
        raise _Bad(str(exc)) from None
    return text


def _choice(*options: str) -> Callable[[Any], str]:
    def check(value: Any) -> str:
        if value not in options:
            raise _Bad(_("must be one of {options}, got {value!r}").format(options=", ".join(options), value=value))
        return value
    return check


def _points(value: Any) -> list[tuple[float, float]]:
    if not isinstance(value, list) or not 3 <= len(value) <= MAX_POINTS:
        raise _Bad(_("must be a list of 3 to {limit} [x, y] pairs, got {value!r:.60}").format(limit=MAX_POINTS, value=value))
    out = []
    for n, pair in enumerate(value, 1):
        if not isinstance(pair, list) or len(pair) != 2:
            raise _Bad(_("point {n} must be an [x, y] pair, got {value!r:.40}").format(n=n, value=pair))
        try:
            out.append((_coord(pair[0]), _coord(pair[1])))
        except _Bad as exc:
            raise _Bad(_("point {n}: {error}").format(n=n, error=exc)) from None
    return out


def _dash(value: Any) -> list[float]:
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_DASH:
        raise _Bad(_("must be a list of 1 to {limit} dash lengths in points, got {value!r:.60}").format(limit=MAX_DASH, value=value))
    out = [_number(v) for v in value]
    if any(v < 0 or v > MAX_COORD_MM for v in out) or not any(out):
        raise _Bad(_("dash lengths must be 0 to {limit:g}, not all 0, got {value!r}").format(limit=MAX_COORD_MM, value=value))
    return out


# ---------------------------------------------------------------------------- the schema

_BOX = {"x": _coord, "y": _coord, "w": _length, "h": _length}
_PAINT = {"fill": _color_or_none, "stroke": _color_or_none, "stroke_width": _stroke}

#: kind → (required keys, optional keys), each key → its check.
SCHEMA: dict[str, tuple[dict[str, Callable], dict[str, Callable]]] = {
    "rect": (_BOX, {**_PAINT, "radius": _length}),
    "circle": ({"cx": _coord, "cy": _coord, "r": _length}, _PAINT),
    "line": ({"x1": _coord, "y1": _coord, "x2": _coord, "y2": _coord},
             {"color": _color, "width": _stroke, "dash": _dash}),
    "polygon": ({"points": _points}, _PAINT),
    "text": (_BOX, {"text": _text, "field": _short_text, "size": _font_size, "min_size": _font_size,
                    "bold": _bool, "color": _color, "align": _choice("left", "center", "right")}),
    "para": (_BOX, {"text": _markup, "field": _short_text, "size": _font_size, "min_size": _font_size,
                    "leading": _leading, "color": _color,
                    "align": _choice("left", "center", "right", "justify"),
                    "valign": _choice("top", "middle", "bottom")}),
    "art": (_BOX, {"radius": _length, "color": _color, "label": _text}),
    "image": ({**_BOX, "src": _short_text}, {"keep_ratio": _bool}),
}
assert set(SCHEMA) == ELEMENT_KINDS

#: The size a text/para element is set at when it names none (render/painter.py uses the same).
DEFAULT_SIZE = {"text": 9.0, "para": 8.5}


def validate_element(number: int, item: Any) -> tuple[str, dict[str, Any]]:
    """``(kind, props)`` of one raw element, or ``ElementError``."""
    if not isinstance(item, dict):
        raise ElementError(number, None, _("must be a mapping like {{kind: rect, x: 0, …}}, got {value!r:.60}").format(value=item))
    kind = item.get("kind")
    if kind not in SCHEMA:
        raise ElementError(number, "kind", _("must be one of {options}, got {value!r}")
                           .format(options=", ".join(sorted(ELEMENT_KINDS)), value=kind))
    required, optional = SCHEMA[kind]
    props: dict[str, Any] = {}
    for key, value in item.items():
        if key == "kind":
            continue
        check = required.get(key) or optional.get(key)
        if check is None:
            allowed = ", ".join([*required, *optional])
            raise ElementError(number, str(key), _("unknown key for a {kind} element (allowed: {allowed})")
                               .format(kind=kind, allowed=allowed))
        try:
            props[key] = check(value)
        except _Bad as exc:
            raise ElementError(number, str(key), str(exc)) from None
    for key in required:
        if key not in props:
            raise ElementError(number, key, _("missing; a {kind} element needs {keys}").format(kind=kind, keys=", ".join(required)))
    if "min_size" in props:
        size = props.get("size", DEFAULT_SIZE[kind])
        if props["min_size"] > size:
            raise ElementError(number, "min_size", _("{min_size:g} pt is larger than the size {size:g} pt")
                               .format(min_size=props["min_size"], size=size))
    return kind, props


def validate_elements(items: Any, source: str) -> list[Element]:
    """Validated ``Element`` list of a parsed template output (``source`` names the template)."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise ElementError(0, None, _("the template must render a YAML list of elements"))
    out = []
    for n, item in enumerate(items, 1):
        kind, props = validate_element(n, item)
        out.append(Element(kind, props, _("{template}, element {n}").format(template=source, n=n)))
    return out


# ---------------------------------------------------------------------------- parsing

_BARE = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*")
_NUMBER = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_PUNCT = frozenset("{}[],: ")


def _flow_line_to_json(text: str) -> str | None:
    """One YAML flow mapping as our templates write it (``{kind: rect, x: -3, fill: "#fff"}``)
    → JSON text; None for anything outside that narrow grammar (the caller then uses YAML)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _PUNCT:
            out.append(ch)
            i += 1
        elif ch == '"':
            m = _STRING.match(text, i)
            if not m:
                return None
            out.append(m.group())
            i = m.end()
        elif ch == "-" or ch.isdigit() or ch == ".":
            m = _NUMBER.match(text, i)
            if not m or (m.end() < n and text[m.end()] not in _PUNCT):
                return None
            out.append(m.group())
            i = m.end()
        else:
            m = _BARE.match(text, i)
            if not m:
                return None
            word, i = m.group(), m.end()
            j = i
            while j < n and text[j] == " ":
                j += 1
            is_key = j < n and text[j] == ":"
            out.append(word if (not is_key and word in ("true", "false", "null")) else json.dumps(word))
    return "".join(out)


def parse_elements(source: str) -> Any:
    """Parse a template's output. Element lists written one flow mapping per line (as every
    shipped template does) are read through ``json`` — 10× faster than PyYAML's constructor,
    which dominated large builds; anything else is read by libyaml's safe loader (no tags that
    build objects; the text is already bounded by the render's output limit)."""
    items = []
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if not (stripped.startswith("- {") and stripped.endswith("}")):
            return yaml.load(source, Loader=_YAML_LOADER)
        converted = _flow_line_to_json(stripped[2:])
        if converted is None:
            return yaml.load(source, Loader=_YAML_LOADER)
        try:
            items.append(json.loads(converted))
        except ValueError:
            return yaml.load(source, Loader=_YAML_LOADER)
    return items


#: Validated (kind, props) per element line. Backgrounds, frames and plates repeat on every card
#: of a type (three lines in four, measured on backrooms), so most lines are parsed and checked
#: once per build. Only short lines are kept: rules text is unique per card anyway.
_LINE_CACHE: dict[str, tuple[str, dict[str, Any]]] = {}
_LINE_CACHE_MAX = 4096
_CACHED_LINE_CHARS = 400


def elements_from_source(source: str, template: str) -> list[Element]:
    """``validate_elements(parse_elements(source), template)``, with the per-line cache above.
    Raises ``ElementError``, or YAML/ValueError from the YAML fallback."""
    out: list[Element] = []
    for line in source.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        n = len(out) + 1
        hit = _LINE_CACHE.get(stripped)
        if hit is None:
            converted = None
            if stripped.startswith("- {") and stripped.endswith("}"):
                converted = _flow_line_to_json(stripped[2:])
            if converted is None:
                return validate_elements(parse_elements(source), template)
            try:
                item = json.loads(converted)
            except ValueError:
                return validate_elements(parse_elements(source), template)
            hit = validate_element(n, item)
            if len(stripped) <= _CACHED_LINE_CHARS:
                if len(_LINE_CACHE) >= _LINE_CACHE_MAX:
                    _LINE_CACHE.clear()
                _LINE_CACHE[stripped] = hit
        out.append(Element(hit[0], hit[1], _("{template}, element {n}").format(template=template, n=n)))
    return out
