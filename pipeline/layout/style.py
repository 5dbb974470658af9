"""``style.yaml``: a game's colours and rules-text icons, read with lines and checked by a schema.

Known keys::

    accent, paper, ink, keyword_color, section_color, flavor_color, typeline_fill, badge_fill,
    back_color, back_line          colours ("#rgb", "#rrggbb" or "#rrggbbaa")
    type_colors                    {card type id: colour}   (types of this game only)
    icons                          {name: {glyph: one or two characters, color: colour}}

A template of your own may use more colours by naming them ``<anything>_color``, ``_fill`` or
``_line`` (a colour) or ``<anything>_colors`` (a mapping of names to colours), as duel's
``grade_colors`` does. Anything else is an error naming the file, line and key: a typo would
otherwise silently fall back to a default colour.

A game's ``style.yaml`` is layered over ``templates/_common/style.yaml`` one level deep (a game
adding an icon keeps the shared ones).
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Collection

from engine.errors import DataError, Location, Problem
from engine.i18n import N_, _
from engine.paths import confine
from engine.yamlio import line_of, parse_yaml, read_text

from .elements import normal_color

COLOR_KEYS = frozenset({"accent", "paper", "ink", "keyword_color", "section_color", "flavor_color",
                        "typeline_fill", "badge_fill", "back_color", "back_line"})
_COLOR_SUFFIXES = ("_color", "_fill", "_line")
_COLOR_MAP_SUFFIX = "_colors"
_ICON_NAME = re.compile(r"[a-z][a-z0-9_]*")
#: An icon is one glyph (two for a glyph plus a variation selector or a pair like "⚔️").
MAX_ICON_CHARS = 2
#: Characters that would change the paragraph markup an icon is printed in.
_MARKUP_CHARS = frozenset("<>&\"'")


@dataclass
class Style:
    """A game's checked style: colours per card type, back design values, icons."""

    data: dict[str, Any] = field(default_factory=dict)

    def color(self, type_id: str) -> str:
        return self.data.get("type_colors", {}).get(type_id, self.data.get("accent", "#3a4a5c"))


class _StyleProblem(Exception):
    def __init__(self, message: str, container: Any, key: Any, name: str):
        self.message, self.line, self.name = message, line_of(container, key), name


def _color(value: Any, container: Any, key: Any, name: str) -> str:
    try:
        return normal_color(value)
    except ValueError as exc:
        raise _StyleProblem(str(exc), container, key, name) from None


def _mapping(value: Any, container: Any, key: Any, name: str) -> dict:
    if not isinstance(value, dict):
        raise _StyleProblem(_("must be a mapping, got {value!r:.60}").format(value=value), container, key, name)
    return value


def _glyph(value: Any, container: Any, key: Any, name: str) -> str:
    ok = isinstance(value, str) and 1 <= len(value) <= MAX_ICON_CHARS and not any(
        ch in _MARKUP_CHARS or ch.isspace() or unicodedata.category(ch).startswith("C") for ch in value)
    if not ok:
        raise _StyleProblem(_("an icon glyph is one or two printable characters (not < > & or quotes), "
                              "got {value!r:.40}").format(value=value), container, key, name)
    return value


def _icons(value: Any, container: Any, key: Any) -> dict[str, dict[str, str]]:
    icons = _mapping(value, container, key, "icons")
    out = {}
    for name, icon in icons.items():
        where = f"icons.{name}"
        if not isinstance(name, str) or not _ICON_NAME.fullmatch(name):
            raise _StyleProblem(_("an icon name is lower-case letters, digits and '_' (written :name: in card "
                                  "text)"), icons, name, where)
        icon = _mapping(icon, icons, name, where)
        unknown = set(icon) - {"glyph", "color"}
        if unknown:
            bad = sorted(map(str, unknown))[0]
            raise _StyleProblem(_("unknown key; an icon has glyph and color"), icon, bad, f"{where}.{bad}")
        for needed in ("glyph", "color"):
            if needed not in icon:
                raise _StyleProblem(_("missing {key!r}; an icon is {{glyph: \"◆\", color: \"#b8860b\"}}").format(key=needed),
                                    icons, name, where)
        out[name] = {"glyph": _glyph(icon["glyph"], icon, "glyph", f"{where}.glyph"),
                     "color": _color(icon["color"], icon, "color", f"{where}.color")}
    return out


def _check(raw: Any, card_types: Collection[str]) -> dict[str, Any]:
    if raw is None:
        return {}
    data = _mapping(raw, raw, None, "style")
    out: dict[str, Any] = {}
    for key, value in data.items():
        name = str(key)
        if name == "icons":
            out[name] = _icons(value, data, key)
        elif name == "type_colors":
            colors = _mapping(value, data, key, name)
            for type_id in colors:
                if type_id not in card_types:
                    raise _StyleProblem(_("no card type {type!r} in game.yaml (types: {types})")
                                        .format(type=type_id, types=", ".join(card_types)),
                                        colors, type_id, f"type_colors.{type_id}")
            out[name] = {t: _color(c, colors, t, f"type_colors.{t}") for t, c in colors.items()}
        elif name.endswith(_COLOR_MAP_SUFFIX):
            colors = _mapping(value, data, key, name)
            out[name] = {str(k): _color(c, colors, k, f"{name}.{k}") for k, c in colors.items()}
        elif name in COLOR_KEYS or name.endswith(_COLOR_SUFFIXES):
            out[name] = _color(value, data, key, name)
        else:
            raise _StyleProblem(_("unknown style key (known: {keys}, type_colors, icons, "
                                  "or a name ending in _color, _fill, _line or _colors)")
                                .format(keys=", ".join(sorted(COLOR_KEYS))), data, key, name)
    return out


def read_style(path: Path, roots: Collection[Path], card_types: Collection[str]) -> dict[str, Any]:
    """The checked contents of one ``style.yaml`` (plain dicts); ``DataError`` naming file, line
    and key otherwise."""
    real = confine(path, list(roots), N_("style file"))
    raw = parse_yaml(read_text(real, N_("style file")), path)
    try:
        return _check(raw, card_types)
    except _StyleProblem as exc:
        raise DataError(Problem(exc.message, Location(path, exc.line), field=exc.name)) from None


def load_style(dirs: list[Path], common_dir: Path, roots: Collection[Path], card_types: Collection[str]) -> Style:
    """The first ``style.yaml`` in ``dirs``, layered over the common one (see module doc)."""
    common_file = common_dir / "style.yaml"
    for d in dirs:
        path = d / "style.yaml"
        if os.path.lexists(path):  # a FIFO or a dangling link is refused by read_style, not skipped
            data = read_style(path, roots, card_types)
            if d != common_dir and common_file.is_file():
                common = read_style(common_file, roots, card_types)
                data = {**common, **data, **{k: {**common[k], **data[k]} for k in data
                                             if isinstance(data[k], dict) and isinstance(common.get(k), dict)}}
            return Style(data)
    return Style()
