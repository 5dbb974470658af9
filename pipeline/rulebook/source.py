"""Render a game's rulebook source: Jinja over ``templates/<game>/rulebook.md.j2`` → Markdown.

The template sees the game definition and nothing else typed by hand: ``game``, ``rules``,
``deck``, ``card_types``, ``zones``, ``phases``, ``keywords``, plus small filters that turn
definition values into Chinese (``face``, ``owner``, ``capacity``, ``kind``, ``value_range``).
``StrictUndefined`` makes a misspelt name an error instead of an empty string.

A game folder may carry its own ``templates/rulebook.md.j2`` / ``templates/glossary.yaml`` (the
same ``templates/`` its card layouts use); otherwise the shipped ones for the game's id are used.

Example::

    >>> src = render_source("ridm")
    >>> "理智" in src.markdown
    True
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
import yaml

from engine.definitions import FieldSpec, GameDefinition, Zone, load_game
from engine.paths import templates_root

from .errors import RulebookTemplateError

RULEBOOK_TEMPLATE = "rulebook.md.j2"
GLOSSARY_FILE = "glossary.yaml"

_FACE = {"up": "正面朝上", "down": "背面朝上", "hidden": "仅持有者可见", "mixed": "正反面皆有"}
_KIND = {"int": "数值", "str": "文字", "text": "规则文本", "enum": "选项", "bool": "是/否"}


@dataclass(frozen=True)
class GlossaryEntry:
    """One glossary term: its definition (already rendered), aliases and related terms."""

    term: str
    definition: str
    see: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        return (self.term, *self.aliases)


@dataclass(frozen=True)
class RulebookSource:
    """A rendered rulebook: the Markdown text and the glossary, for one game definition."""

    game: GameDefinition
    markdown: str
    glossary: tuple[GlossaryEntry, ...]
    template_path: Path


# ---------------------------------------------------------------------------- filters


def _face(face: str) -> str:
    return _FACE.get(face, face)


def _owner(zone: Zone) -> str:
    return "双方共用" if zone.shared else "每位玩家各一"


def _capacity(n: int | None) -> str:
    return "不限" if n is None else f"{n}张"


def _limit(n: int | None) -> str:
    return "不限" if n is None else str(n)


def _kind(spec: FieldSpec) -> str:
    return _KIND.get(spec.kind, spec.kind)


def _value_range(spec: FieldSpec) -> str:
    if spec.kind == "enum":
        return "、".join(spec.label_of(v) for v in spec.values)
    if spec.kind == "int":
        if spec.min is not None and spec.max is not None:
            return f"{spec.min}–{spec.max}"
        if spec.max is not None:
            return f"≤{spec.max}"
        if spec.min is not None:
            return f"≥{spec.min}"
        return "整数"
    if spec.kind == "str" and spec.max_len:
        return f"至多{spec.max_len}字"
    return "—"


# ---------------------------------------------------------------------------- rendering


def _template_dirs(game: GameDefinition) -> tuple[list[str], str, Path]:
    """Search path, template name and the template's path for a game."""
    root = templates_root()
    own = _own_dir(game)
    if own is not None and (own / RULEBOOK_TEMPLATE).is_file():
        return [str(own), str(root)], RULEBOOK_TEMPLATE, own / RULEBOOK_TEMPLATE
    path = root / game.id / RULEBOOK_TEMPLATE
    if not path.is_file():
        raise RulebookTemplateError(f"no rulebook for game {game.id!r}: {path} does not exist")
    return [str(root)], f"{game.id}/{RULEBOOK_TEMPLATE}", path


def _environment(search_path: list[str]) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(search_path),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.do"],
        autoescape=False,  # Markdown, not HTML: the Markdown stage escapes on output.
    )
    env.filters.update(
        face=_face, owner=_owner, capacity=_capacity, limit=_limit, kind=_kind, value_range=_value_range
    )
    return env


def template_context(game: GameDefinition) -> dict[str, Any]:
    """What every rulebook template and glossary definition can use."""
    return {
        "game": game,
        "rules": game.rules,
        "deck": game.deck,
        "card_types": game.card_types,
        "zones": game.zones,
        "phases": game.phases,
        "keywords": game.keywords,
    }


def _where(exc: BaseException, fallback: Path) -> str:
    """'file, line N' of the template frame an exception came from (Jinja rewrites tracebacks)."""
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return f"{exc.filename or fallback}, line {exc.lineno}"
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename.endswith((".j2", ".yaml")):
            return f"{frame.filename}, line {frame.lineno}"
    return str(fallback)


def _render(env: jinja2.Environment, name: str, ctx: dict[str, Any], path: Path) -> str:
    try:
        return env.get_template(name).render(ctx)
    except jinja2.TemplateError as exc:
        raise RulebookTemplateError(f"{_where(exc, path)}: {exc.message or exc}") from None
    except (AttributeError, KeyError, TypeError, ValueError) as exc:
        raise RulebookTemplateError(f"{_where(exc, path)}: {type(exc).__name__}: {exc}") from None


def _own_dir(game: GameDefinition) -> Path | None:
    """A game folder's own ``templates/`` (as for card layouts), if it has one."""
    if game.folder is None:
        return None
    own = game.folder / "templates"
    return own if own.is_dir() else None


def glossary_path(game: GameDefinition) -> Path:
    own = _own_dir(game)
    if own is not None and (own / GLOSSARY_FILE).is_file():
        return own / GLOSSARY_FILE
    return templates_root() / game.id / GLOSSARY_FILE


def load_glossary(game: GameDefinition, env: jinja2.Environment | None = None) -> tuple[GlossaryEntry, ...]:
    """Read ``glossary.yaml`` (a list of {term, definition, see, aliases}); render each definition.

    Definitions are Jinja too, so ``{{ rules.outpost_hp }}`` works there as in the rulebook.
    A game without a glossary file gets its keywords' summaries.
    """
    path = glossary_path(game)
    env = env or _environment([str(templates_root())])
    ctx = template_context(game)
    if not path.is_file():
        return tuple(GlossaryEntry(k.term, k.summary) for k in game.keywords)
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    except yaml.YAMLError as exc:
        raise RulebookTemplateError(f"{path}: not valid YAML: {exc}") from None
    if not isinstance(raw, list):
        raise RulebookTemplateError(f"{path}: expected a list of entries with 'term' and 'definition'")
    entries, seen = [], set()
    for i, item in enumerate(raw, 1):
        if not isinstance(item, dict) or not item.get("term") or not item.get("definition"):
            raise RulebookTemplateError(f"{path}: entry {i} needs 'term' and 'definition'")
        term = str(item["term"])
        if term in seen:
            raise RulebookTemplateError(f"{path}: term {term!r} is defined twice")
        seen.add(term)
        try:
            definition = env.from_string(str(item["definition"])).render(ctx).strip()
        except (jinja2.TemplateError, AttributeError, KeyError, TypeError) as exc:
            raise RulebookTemplateError(f"{path}: entry {term!r}: {exc}") from None
        entries.append(GlossaryEntry(
            term, definition,
            tuple(str(s) for s in item.get("see") or ()),
            tuple(str(a) for a in item.get("aliases") or ()),
        ))
    known = {n for e in entries for n in e.names}
    for e in entries:
        for s in e.see:
            if s not in known:
                raise RulebookTemplateError(f"{path}: entry {e.term!r} refers to unknown term {s!r} in 'see'")
    return tuple(entries)


def render_source(game: GameDefinition | str | Path) -> RulebookSource:
    """Render the rulebook Markdown and glossary of ``game`` (a definition, shipped id or folder)."""
    definition = game if isinstance(game, GameDefinition) else load_game(game)
    search, name, path = _template_dirs(definition)
    env = _environment(search)
    text = _render(env, name, template_context(definition), path)
    return RulebookSource(definition, text, load_glossary(definition, env), path)
