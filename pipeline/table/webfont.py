"""The table page's font: WOFF2 subsets of the printing font, served by the tool (no external URL).

A phone may have no font with our glyphs, and a page that falls back to one does not look like
the cards. The full font as WOFF2 is 4.2 MB and takes 70 s to compress, so the page gets:

- a **base** subset of every character the game can show that is known before play: the page's
  own words, the command forms, the game's definition and cards, the glossary and rules text,
  and the Chinese the rules modules write into the board and the log;
- an **extra** subset of what only play brings (player names, notes, reasons typed at the
  table): the characters of a board the base lacks, cut on demand (one small subset each time
  the set grows).

Both are cached by content (the SHA-256 of the font file's identity and the characters) under
the cache directory, so a second start is instant. Characters the printing font itself lacks are
reported (``missing``) and shown by the page as a notice: they would print as boxes on paper too.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from pipeline.render.fonts import build_fonts, subset_woff2

#: Always in the base subset: ASCII and the punctuation and symbols the page itself draws.
ALWAYS = "".join(chr(c) for c in range(0x20, 0x7F)) + "　、。，：；！？（）「」《》【】—…·→←↑↓✕−＋⚠▶•／％"
#: Extra subsets a server keeps cut, by key (a table sees a handful in a whole evening).
_MAX_EXTRA = 64


def _subset(font: Path, chars: str) -> bytes:
    """The WOFF2 subset (cached by content, shared with the rulebook's HTML: ``subset_woff2``)."""
    return subset_woff2(font, chars, keep_names=True, notdef_outline=True)


class WebFont:
    """The base subset for ``base_text`` and extra subsets on demand, for one font file."""

    def __init__(self, base_text: str, font: Path | None = None):
        self.font = Path(font) if font else build_fonts()[0]
        self._cmap: frozenset[int] | None = None
        self._lock = threading.Lock()
        self._extra: dict[str, str] = {}
        self.base_chars = self._printable(base_text + ALWAYS)
        self.base_key = self._key(self.base_chars)
        self._base_set = frozenset(self.base_chars) | frozenset("\n\t")

    @property
    def cmap(self) -> frozenset[int]:
        if self._cmap is None:
            from fontTools.ttLib import TTFont

            with TTFont(str(self.font), lazy=True) as ft:
                self._cmap = frozenset(ft.getBestCmap())
        return self._cmap

    def _printable(self, text: str) -> str:
        """The distinct characters of ``text`` the font has, sorted (control characters dropped)."""
        return "".join(sorted({ch for ch in text if ch >= " " and ord(ch) in self.cmap}))

    def _key(self, chars: str) -> str:
        stat = self.font.stat()
        ident = f"{self.font.name}:{stat.st_size}:{chars}"
        return hashlib.sha256(ident.encode("utf-8")).hexdigest()[:20]

    def missing(self, text: str) -> str:
        """Characters of ``text`` the font has no glyph for (they would show as boxes)."""
        return "".join(sorted(ch for ch in set(text) if ch > " " and not ch.isspace() and ord(ch) not in self.cmap
                              and not 0xFE00 <= ord(ch) <= 0xFE0F and ch not in "\u200b\u200c\u200d\u2060\ufeff"))

    def extra_key(self, text: str) -> str | None:
        """The key of the extra subset covering what of ``text`` the base lacks (``None``: nothing)."""
        chars = "".join(sorted(ch for ch in set(text) - self._base_set if ch >= " " and ord(ch) in self.cmap))
        if not chars:
            return None
        key = self._key(chars)
        with self._lock:
            if key not in self._extra:
                if len(self._extra) >= _MAX_EXTRA:
                    self._extra.pop(next(iter(self._extra)))
                self._extra[key] = chars
        return key

    def coverage(self, text: str) -> tuple[str | None, str]:
        """``(extra_key(text), missing(text))``, fast for the common case of nothing new: a
        board is checked on every change, and almost every board has only known characters."""
        if set(text) <= self._base_set:
            return None, ""
        return self.extra_key(text), self.missing(text)

    def woff2(self, key: str) -> bytes | None:
        """The subset for ``key`` (the base's or an extra's), cut once and kept in the cache."""
        if key == self.base_key:
            chars = self.base_chars
        else:
            with self._lock:
                chars = self._extra.get(key)
        if chars is None:
            return None
        return _subset(self.font, chars)
