"""``cardpress rules GAME TERM``: the glossary entry for a term and every section that mentions it.

Matching is on the rendered rulebook (so numbers are the definition's). A term matches a glossary
entry by its name or an alias; sections match when their heading or text contains the term.
When nothing matches, ``UnknownTerm`` carries the nearest terms (difflib over glossary terms,
aliases, keywords and headings).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from engine.definitions import GameDefinition, load_game

from . import markdown as md
from .errors import UnknownTerm
from .source import GlossaryEntry, render_source

#: Mentions shown per section; more are summarised as a count.
MAX_LINES_PER_SECTION = 4
#: Glossary terms listed when a term has no near miss at all.
KNOWN_SHOWN = 12


@dataclass(frozen=True)
class Mention:
    section: md.Section
    lines: tuple[str, ...]  # the paragraphs of the section that contain the term


@dataclass(frozen=True)
class LookupResult:
    game: GameDefinition
    term: str
    entries: tuple[GlossaryEntry, ...]
    mentions: tuple[Mention, ...]


def _norm(text: str) -> str:
    return text.strip().casefold()


def candidates(glossary, game: GameDefinition, sections: list[md.Section]) -> list[str]:
    names = [n for e in glossary for n in e.names] + [k.term for k in game.keywords]
    names += [s.title for s in sections]
    return list(dict.fromkeys(names))


def suggest(term: str, names: list[str], n: int = 5) -> list[str]:
    """Nearest names: containment first, then difflib's ratio (tuned low: CJK terms are short)."""
    t = _norm(term)
    contained = [x for x in names if t and (t in _norm(x) or _norm(x) in t) and _norm(x) != t]
    close = difflib.get_close_matches(term, names, n=n, cutoff=0.34)
    # Single characters in common (切出 ~ 切入) catch what difflib's ratio misses on 2-char terms.
    shared = [x for x in names if len(x) <= 6 and set(term) & set(x)]
    return list(dict.fromkeys(contained + close + shared))[:n]


def lookup(game: str | Path | GameDefinition, term: str) -> LookupResult:
    """Find ``term`` in a game's glossary and rulebook. Raises ``UnknownTerm`` when nothing matches."""
    definition = game if isinstance(game, GameDefinition) else load_game(game)
    src = render_source(definition)
    doc = md.parse_document(src.markdown)
    secs = md.sections(doc)
    t = _norm(term)
    if not t:
        raise UnknownTerm(definition.id, term, [])
    entries = tuple(e for e in src.glossary if t in (_norm(n) for n in e.names))
    names = (term, *(n for e in entries for n in e.names))
    mentions = []
    for s in secs:
        if s.title in ("术语表",):
            continue
        lines = tuple(p for p in s.paragraphs if any(_norm(n) in _norm(p) for n in names))
        if lines or any(_norm(n) in _norm(s.title) for n in names):
            mentions.append(Mention(s, lines))
    if not entries and not mentions:
        raise UnknownTerm(definition.id, term, suggest(term, candidates(src.glossary, definition, secs)),
                          [e.term for e in src.glossary][:KNOWN_SHOWN])
    return LookupResult(definition, term, entries, tuple(mentions))
