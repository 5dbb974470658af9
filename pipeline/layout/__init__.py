"""Lay out: Jinja templates turn a card into a list of drawing elements in millimetres.

A card face template (``templates/<game>/<type>.yaml.j2``) renders to a YAML list such as::

    - {kind: rect, x: -3, y: -3, w: 69, h: 94, fill: "#20242c"}
    - {kind: text, field: name, x: 5, y: 4, w: 53, h: 7, text: "迫击炮！！！", size: 11, bold: true}
    - {kind: para, field: text, x: 5, y: 55, w: 53, h: 22, text: "…markup…", size: 8.5, min_size: 5.5}

Coordinates are millimetres from the card's trim top-left, y downwards (the bleed is at
negative coordinates and beyond the trim size). Templates are looked up, first match wins, in
the game folder's own ``templates/``, then ``templates/<game>/`` (shipped games), then
``templates/_common/``; per card: ``<type>.yaml.j2``, else ``card.yaml.j2``; per back:
``back-<name>.yaml.j2``, else ``back.yaml.j2``.

Card text in data is plain Chinese: 【关键词】 and ①②③/△ markers are styled by the ``rich``
filter through the ``keyword`` macro of ``macros.j2``, newlines become line breaks.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import jinja2
import yaml

from engine.cards import Card
from engine.definitions import GameDefinition
from engine.errors import CardpressError
from engine.paths import templates_root

from .text import escape

try:  # libyaml is ~10× faster on the element lists we parse per card
    _YAML_LOADER = yaml.CSafeLoader
except AttributeError:  # pragma: no cover - wheels without libyaml
    _YAML_LOADER = yaml.SafeLoader

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
    which dominated large builds; anything else is read as ordinary YAML."""
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


ELEMENT_KINDS = frozenset({"rect", "circle", "line", "text", "para", "art", "image", "polygon"})


class TemplateError(CardpressError):
    """A template is missing, fails to render, or renders something that is not an element list."""


@dataclass(frozen=True)
class Element:
    """One drawing instruction. ``field`` names the card field its text comes from (for errors)."""

    kind: str
    props: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.props[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.props.get(key, default)


@dataclass
class Style:
    """``style.yaml`` of a game: colours per card type, back design values, fonts sizes."""

    data: dict[str, Any] = field(default_factory=dict)

    def color(self, type_id: str) -> str:
        return self.data.get("type_colors", {}).get(type_id, self.data.get("accent", "#3a4a5c"))


def _template_dirs(game: GameDefinition) -> list[Path]:
    dirs = []
    own = game.card_data_dir / "templates"
    if own.is_dir():
        dirs.append(own)
    shipped = templates_root() / game.id
    if shipped.is_dir() and shipped.resolve() != own.resolve():
        dirs.append(shipped)
    dirs.append(templates_root() / "_common")
    return dirs


_KEYWORD = re.compile(r"【([^【】]{1,12})】")
_ICON = re.compile(r":([a-z][a-z0-9_]*):")
_MARKER = re.compile(r"(^|<br/>)([①②③④⑤⑥⑦⑧⑨⑩△]+[：:]?)")


class Layouts:
    """Renders the element lists of one game's cards and backs (templates compiled once)."""

    def __init__(self, game: GameDefinition):
        self.game = game
        self.dirs = _template_dirs(game)
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader([str(d) for d in self.dirs]),
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            autoescape=False,
        )
        self.env.filters["tojson"] = lambda v: json.dumps(v, ensure_ascii=False)
        self.env.filters["rich"] = self._rich
        self.env.filters["esc"] = escape
        self.env.globals["game"] = game
        self.env.globals["style"] = self.style.data
        self._cache: dict[str, jinja2.Template] = {}

    @cached_property
    def style(self) -> Style:
        for d in self.dirs:
            path = d / "style.yaml"
            if path.is_file():
                data = yaml.load(path.read_text(encoding="utf-8"), Loader=_YAML_LOADER) or {}
                base = templates_root() / "_common" / "style.yaml"
                if d != base.parent and base.is_file():
                    common = yaml.load(base.read_text(encoding="utf-8"), Loader=_YAML_LOADER) or {}
                    # One level deep: a game adding an icon keeps the shared ones.
                    data = {**common, **data, **{k: {**common[k], **data[k]} for k in data
                                                 if isinstance(data[k], dict) and isinstance(common.get(k), dict)}}
                return Style(data)
        return Style()

    @cached_property
    def _macros(self):
        return self.env.get_template("macros.j2").module

    def _rich(self, text: str | None, color: str | None = None) -> str:
        """Plain card text → paragraph markup: keywords and effect markers styled, lines kept."""
        if not text:
            return ""
        out = escape(text.strip()).replace("\r\n", "\n").replace("\n", "<br/>")
        out = _KEYWORD.sub(lambda m: str(self._macros.keyword(m.group(1), color)), out)
        out = _ICON.sub(self._icon, out)
        return _MARKER.sub(lambda m: m.group(1) + str(self._macros.marker(m.group(2), color)), out)

    def _icon(self, match: re.Match) -> str:
        icons = self.style.data.get("icons", {})
        name = match.group(1)
        if name not in icons:
            raise TemplateError(f"unknown icon :{name}: in rules text; style.yaml defines: "
                                f"{', '.join(':' + k + ':' for k in icons) or 'none'}")
        return str(self._macros.icon(name))

    def _template(self, names: list[str]) -> jinja2.Template:
        key = "|".join(names)
        tpl = self._cache.get(key)
        if tpl is None:
            try:
                tpl = self.env.select_template(names)
            except jinja2.TemplatesNotFound:
                raise TemplateError(f"no template {' or '.join(names)} in {', '.join(map(str, self.dirs))}") from None
            except jinja2.TemplateSyntaxError as exc:
                raise TemplateError(f"{exc.filename}:{exc.lineno}: {exc.message}") from None
            self._cache[key] = tpl
        return tpl

    def _render(self, tpl: jinja2.Template, what: str, **context: Any) -> list[Element]:
        size = self.game.card_size
        try:
            source = tpl.render(W=size.width_mm, H=size.height_mm, **context)
        except TemplateError as exc:  # raised by a filter (e.g. an unknown icon in card text)
            raise TemplateError(f"{what}: {exc}") from None
        except jinja2.UndefinedError as exc:
            raise TemplateError(f"{tpl.filename}: {what}: {exc.message}") from None
        except jinja2.TemplateError as exc:
            raise TemplateError(f"{tpl.filename}: {what}: {exc}") from None
        try:
            items = parse_elements(source) or []
        except yaml.YAMLError as exc:
            raise TemplateError(f"{tpl.filename} rendered invalid YAML for {what}: {exc}") from None
        if not isinstance(items, list):
            raise TemplateError(f"{tpl.filename} must render a YAML list of elements ({what})")
        out = []
        for n, item in enumerate(items):
            if not isinstance(item, dict) or item.get("kind") not in ELEMENT_KINDS:
                raise TemplateError(
                    f"{tpl.filename}: element {n + 1} for {what} needs 'kind' in {sorted(ELEMENT_KINDS)}, got {item!r}"
                )
            out.append(Element(item.pop("kind"), item))
        return out

    def face(self, card: Card, bleed_mm: float) -> list[Element]:
        """Element list of a card's face."""
        ctype = self.game.card_types[card.type]
        tpl = self._template([ctype.template or f"{card.type}.yaml.j2", "card.yaml.j2"])
        return self._render(
            tpl, f"card {card.id!r}", card=card, c=card.values, ctype=ctype, type_id=card.type,
            fields=self.game.fields_of(card.type), color=self.style.color(card.type),
            rules=self.game.rules, bleed=bleed_mm, has_art=card.art_path is not None,
        )

    def back(self, name: str, bleed_mm: float) -> list[Element]:
        """Element list of a card back design (``default``, ``level``, ``outpost``…)."""
        tpl = self._template([f"back-{name}.yaml.j2", "back.yaml.j2"])
        return self._render(tpl, f"back {name!r}", back=name, bleed=bleed_mm, rules=self.game.rules)
