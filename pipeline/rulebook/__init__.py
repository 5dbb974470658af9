"""Rulebooks: Markdown + Jinja sources rendered with the game definition, typeset as PDF or HTML.

Flow: ``source`` (Jinja → Markdown text + glossary) → ``markdown`` (Markdown → a small block
model) → ``pdf`` (blocks → platypus story → PDF) / ``html`` (blocks → one self-contained page);
``booklet`` imposes a finished PDF; ``lookup`` answers ``cardpress rules GAME TERM``.
"""

from .errors import MissingGlyphs, RulebookError, RulebookTemplateError, UnknownTerm

__all__ = ["MissingGlyphs", "RulebookError", "RulebookTemplateError", "UnknownTerm"]
