"""Errors the rulebook build reports. Each names what is wrong and where."""

from __future__ import annotations

from engine.errors import CardpressError
from engine.i18n import _


class RulebookError(CardpressError):
    """Base class of rulebook problems."""


class RulebookTemplateError(RulebookError):
    """The rulebook source (Markdown + Jinja) or the glossary could not be rendered."""


class MissingGlyphs(RulebookError):
    """Text that would be printed contains characters the embedded font cannot draw."""

    def __init__(self, section: str, chars: str):
        self.section, self.chars = section, chars
        shown = " ".join(f"{c!r} (U+{ord(c):04X})" for c in chars)
        super().__init__(_("section {section!r}: the font has no glyph for {chars}").format(section=section, chars=shown))


class UnknownTerm(RulebookError):
    """``cardpress rules`` found neither a glossary entry nor any section mentioning the term."""

    def __init__(self, game: str, term: str, suggestions: list[str], known: list[str] | None = None):
        self.term, self.suggestions = term, suggestions
        if suggestions:
            hint = _("; did you mean: {terms}?").format(terms="、".join(suggestions))
        elif known:
            hint = _("; glossary terms include: {terms}").format(terms="、".join(known))
        else:
            hint = ""
        super().__init__(_("{game}: no rule or glossary entry mentions {term!r}{hint}").format(game=game, term=term, hint=hint))
