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

Templates from a game folder are untrusted: they render in the sandbox of ``env.py`` (no code,
no files outside the templates trees, bounded work) and their output is checked against the
element schema of ``elements.py`` (kinds, keys, types, paragraph markup) before anything draws.

Card text in data is plain Chinese: 【关键词】 and ①②③/△ markers are styled by the ``rich``
filter through the ``keyword`` macro of ``macros.j2``, newlines become line breaks.
"""

from __future__ import annotations

import json
import re
import time
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from engine import limits
from engine.cards import Card
from engine.definitions import GameDefinition
from engine.errors import CardpressError
from engine.i18n import _
from engine.paths import templates_root

from ..render.text import escape
from .elements import ELEMENT_KINDS, Element, ElementError, elements_from_source, parse_elements
from .env import TemplateFailure, load, make_environment, own_templates_dir, render, template_roots
from .style import Style, load_style

__all__ = ["ELEMENT_KINDS", "Element", "Layouts", "Style", "TemplateError", "parse_elements"]


class TemplateError(CardpressError):
    """A template is missing, fails to render, or renders something that is not a valid element list."""


def _template_dirs(game: GameDefinition) -> list[Path]:
    dirs = []
    own = own_templates_dir(game.folder)
    if own is not None:
        dirs.append(own)
    shipped = templates_root() / game.id
    if shipped.is_dir() and (own is None or shipped.resolve() != own.resolve()):
        dirs.append(shipped)
    dirs.append(templates_root() / "_common")
    return dirs


_KEYWORD = re.compile(r"【([^【】]{1,12})】")
_ICON = re.compile(r":([a-z][a-z0-9_]*):")
_MARKER = re.compile(r"(^|<br/>)([①②③④⑤⑥⑦⑧⑨⑩△]+[：:]?)")


def _field_of(source: str, number: int) -> str:
    """", field 'x'" of element ``number`` of a rendered list, when it names one (for messages)."""
    try:
        items = parse_elements(source)
        item = items[number - 1] if number else None
    except (yaml.YAMLError, ValueError, RecursionError, IndexError, TypeError, KeyError):
        return ""
    if isinstance(item, dict) and isinstance(item.get("field"), str):
        return _(", field {field!r}").format(field=item["field"])
    return ""


def _joined(*parts: object) -> str:
    """``file: what: message``, joined as the user's language writes it (Chinese: full-width colons)."""
    text = str(parts[0])
    for part in parts[1:]:
        text = _("{where}: {message}").format(where=text, message=part)
    return text


def _tojson(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


class Layouts:
    """Renders the element lists of one game's cards and backs (templates compiled once)."""

    def __init__(self, game: GameDefinition):
        self.game = game
        self.dirs = _template_dirs(game)
        self.roots = template_roots(game.folder)
        self.env = make_environment(
            self.dirs, self.roots, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
            filters={"tojson": _tojson, "rich": self._rich, "esc": escape},
            globals={"game": game, "style": self.style.data},
        )
        self._cache: dict[str, Any] = {}
        # Templates that ran out of time, and the message: a slow template would otherwise
        # cost MAX_TEMPLATE_SECONDS for each of hundreds of cards before the build can fail.
        self._timed_out: dict[str, str] = {}
        #: Seconds spent rendering so far, against ``MAX_BUILD_TEMPLATE_SECONDS``.
        self._spent = 0.0

    @cached_property
    def style(self) -> Style:
        return load_style(self.dirs, templates_root() / "_common", self.roots, self.game.card_types)

    @cached_property
    def _macros(self):
        return load(self.env, ["macros.j2"]).module

    def _rich(self, text: str | None, color: str | None = None) -> str:
        """Plain card text → paragraph markup: keywords and effect markers styled, lines kept."""
        if not text:
            return ""
        out = escape(str(text).strip()).replace("\r\n", "\n").replace("\n", "<br/>")
        out = _KEYWORD.sub(lambda m: str(self._macros.keyword(m.group(1), color)), out)
        out = _ICON.sub(self._icon, out)
        return _MARKER.sub(lambda m: m.group(1) + str(self._macros.marker(m.group(2), color)), out)

    def _icon(self, match: re.Match) -> str:
        icons = self.style.data.get("icons", {})
        name = match.group(1)
        if name not in icons:
            raise TemplateError(_("unknown icon :{name}: in rules text; style.yaml defines: {icons}")
                                .format(name=name, icons=", ".join(":" + k + ":" for k in icons) or _("none")))
        return str(self._macros.icon(name))

    def _template(self, names: list[str], what: str | None = None):
        what = what or _("template")
        key = "|".join(names)
        tpl = self._cache.get(key)
        if tpl is None:
            try:
                tpl = load(self.env, names)
            except TemplateFailure as exc:
                if exc.file:
                    raise TemplateError(_joined(exc.where, what, exc.message)) from None
                raise TemplateError(_("{what}: {error} (looked in {folders})")
                                    .format(what=what, error=exc.message, folders=", ".join(map(str, self.dirs)))) from None
            self._cache[key] = tpl
        return tpl

    def _render(self, tpl, what: str, size, **context: Any) -> list[Element]:
        if tpl.filename in self._timed_out:
            raise TemplateError(_("{file}: {what}: not rendered, {why}")
                                .format(file=tpl.filename, what=what, why=self._timed_out[tpl.filename]))
        if self._spent > limits.MAX_BUILD_TEMPLATE_SECONDS:
            raise TemplateError(_("{file}: {what}: not rendered, the templates have taken more than "
                                  "{seconds:g} s in all for this build "
                                  "(far beyond any real card design); cardpress stops here")
                                .format(file=tpl.filename, what=what, seconds=limits.MAX_BUILD_TEMPLATE_SECONDS))
        started = time.monotonic()
        try:
            source = render(tpl, {"W": size.width_mm, "H": size.height_mm, **context})
        except TemplateFailure as exc:
            if exc.timed_out:
                self._timed_out[tpl.filename] = _("the template ran out of time for {what}").format(what=what)
            raise TemplateError(_joined(exc.where or tpl.filename, what, exc.message)) from None
        finally:
            self._spent += time.monotonic() - started
        try:
            return elements_from_source(source, tpl.filename)
        except ElementError as exc:
            raise TemplateError(_joined(tpl.filename, what + _field_of(source, exc.number), exc)) from None
        except (yaml.YAMLError, ValueError, RecursionError) as exc:
            raise TemplateError(_("{file}: {what}: the template renders invalid YAML: {error}")
                                .format(file=tpl.filename, what=what, error=exc)) from None

    def face(self, card: Card, bleed_mm: float) -> list[Element]:
        """Element list of a card's face."""
        ctype = self.game.card_types[card.type]
        tpl = self._template([ctype.template or f"{card.type}.yaml.j2", "card.yaml.j2"],
                             _("card {card!r} (card type {type!r} in game.yaml)").format(card=card.id, type=card.type))
        return self._render(
            tpl, _("card {card!r}").format(card=card.id), self.game.card_size_of(card.type), card=card, c=card.values, ctype=ctype, type_id=card.type,
            fields=self.game.fields_of(card.type), color=self.style.color(card.type),
            rules=self.game.rules, bleed=bleed_mm, has_art=card.art_path is not None,
        )

    def back(self, name: str, bleed_mm: float) -> list[Element]:
        """Element list of a card back design (``default``, ``level``, ``outpost``…)."""
        what = _("back {back!r}").format(back=name)
        tpl = self._template([f"back-{name}.yaml.j2", "back.yaml.j2"], what)
        return self._render(tpl, what, self.game.back_size(name), back=name, bleed=bleed_mm, rules=self.game.rules)
