"""Chinese text on paper: line breaking (禁则), shrink-to-fit, and the glyph check.

ReportLab's CJK wrapper is Japanese-oriented: its "cannot start a line" table lacks ，；：？！
》〉”’… (a full-width comma can start a line), it never keeps an opening bracket off a line
end, and it lets a forbidden character *hang* past the right edge. We replace its two
line-splitting functions (``cjkFragSplit`` for mixed styles, ``wordSplit`` for single-style
paragraphs) with one greedy breaker that

* never starts a line with a character of ``CANNOT_START`` nor ends one with ``CANNOT_END``
  (it moves the break point back: 推入 is never used, so nothing leaves the box);
* never splits a run of ASCII letters/digits ("G.O.I", "Level-0", "+3") or a ——/…… pair;
* never lets a line exceed its width (a single glyph wider than the line is the only exception).

The replacement is installed once, on import of this module, and keeps ReportLab's own data
structures (``makeCJKParaLine``), so every Paragraph feature keeps working.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from reportlab.lib import textsplit
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import paragraph as rl_paragraph
from reportlab.platypus.paragraph import Paragraph
from reportlab.rl_config import _FUZZ

from engine.errors import CardpressError

#: No line may start with these (closing punctuation, stops, iteration marks, small kana, units).
CANNOT_START = frozenset(
    "，。、；：？！）」』》〉】〕〗〙〛］｝”’…‥·・—～%‰℃°′″!),.:;?]}>"
    "ゝゞヽヾ々〻ーぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ"
    "\uff05\uff0e\uff1e\u3001\u3002"
)
#: No line may end with these (opening brackets and quotes, prefixes).
CANNOT_END = frozenset("（「『《〈【〔〖〘〚［｛“‘([{<$￥＄£#＃@＠§")
#: Pairs that are one mark in Chinese and must stay on one line.
_UNSPLITTABLE_PAIRS = frozenset({"——", "……", "⋯⋯"})


def _is_word(ch: str) -> bool:
    return ch.isascii() and not ch.isspace() and ch != ""


def can_break(before: str, after: str) -> bool:
    """May a line end with ``before`` and the next start with ``after``?"""
    if not before or not after:
        return True
    if after in CANNOT_START or before in CANNOT_END:
        return False
    if _is_word(before) and _is_word(after):
        return False
    return before + after not in _UNSPLITTABLE_PAIRS


def break_lines(chars: Sequence[str], widths: Sequence[float], max_widths: Sequence[float],
                hard: Callable[[int], bool] = lambda i: False) -> list[tuple[int, int, float, bool]]:
    """Greedy line breaking with Chinese rules.

    Returns ``(start, end, width, hard_break)`` per line; ``chars[start:end]`` is the line.
    ``hard(i)`` says element ``i`` is a forced line break (it ends its line, included in it).
    """
    n = len(chars)
    lines: list[tuple[int, int, float, bool]] = []
    start = 0
    while start < n:
        max_w = max_widths[min(len(lines), len(max_widths) - 1)]
        used = 0.0
        i = start
        end = None
        forced = False
        while i < n:
            if hard(i):
                end, forced = i + 1, True
                used += widths[i]
                break
            if used + widths[i] > max_w + _FUZZ and i > start:
                # chars[i] does not fit: find the last legal break at or before i.
                k = i
                while k > start + 1 and not can_break(chars[k - 1], chars[k]):
                    k -= 1
                if k == start + 1 and not can_break(chars[k - 1], chars[k]):
                    k = i  # no legal point at all (absurdly narrow box): break where it overflows
                end = k
                used = sum(widths[start:end])
                break
            used += widths[i]
            i += 1
        if end is None:
            end = n
        # Trailing spaces take no room at the line end.
        trail = end
        while trail > start + 1 and chars[trail - 1] == " ":
            trail -= 1
            used -= widths[trail]
        lines.append((start, end, used, forced))
        start = end
    return lines


def _cjk_frag_split(frags, maxWidths, calcBounds, encoding="utf8"):
    """Drop-in for ``reportlab.platypus.paragraph.cjkFragSplit`` with our breaking rules."""
    U = []
    for f in frags:
        text = f.text
        if isinstance(text, bytes):
            text = text.decode(encoding)
        if text:
            U.extend(rl_paragraph.cjkU(t, f, encoding) for t in text)
        else:
            U.append(rl_paragraph.cjkU(text, f, encoding))
    widths = []
    for u in U:
        w = u.width
        if hasattr(w, "normalizedValue"):
            w._normalizer = maxWidths[0]
            w = w.normalizedValue(maxWidths[0])
        widths.append(w)
    spans = break_lines([str(u) for u in U], widths, list(maxWidths), hard=lambda i: hasattr(U[i].frag, "lineBreak"))
    lines = []
    for n, (s, e, used, forced) in enumerate(spans):
        max_w = maxWidths[min(n, len(maxWidths) - 1)]
        lines.append(rl_paragraph.makeCJKParaLine(U[s:e], max_w, used, max_w - used, forced, calcBounds))
    return rl_paragraph.ParaLines(kind=1, lines=lines)


def _word_split(word, maxWidths, fontName, fontSize, encoding="utf8"):
    """Drop-in for ``reportlab.lib.textsplit.wordSplit`` (the single-style CJK path)."""
    if isinstance(word, bytes):
        word = word.decode(encoding)
    if not isinstance(maxWidths, (list, tuple)):
        maxWidths = [maxWidths]
    chars = list(word)
    widths = [stringWidth(c, fontName, fontSize) for c in chars]
    out = []
    for n, (s, e, used, _) in enumerate(break_lines(chars, widths, list(maxWidths))):
        max_w = maxWidths[min(n, len(maxWidths) - 1)]
        out.append([max_w - used, "".join(chars[s:e])])
    return out


def install() -> None:
    """Install our breaker into ReportLab (idempotent)."""
    rl_paragraph.cjkFragSplit = _cjk_frag_split
    rl_paragraph.wordSplit = _word_split
    textsplit.wordSplit = _word_split
    extra = "".join(sorted(CANNOT_START))
    rl_paragraph.ALL_CANNOT_START = textsplit.ALL_CANNOT_START + extra
    textsplit.ALL_CANNOT_START = textsplit.ALL_CANNOT_START + extra


install()


# ---------------------------------------------------------------------------- rich text

_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def escape(text: str) -> str:
    """Escape text for ReportLab paragraph markup."""
    return re.sub(r"[&<>]", lambda m: _ESCAPES[m.group()], text)


_NUMERIC_ENTITY = re.compile(r"&#(?:(\d{1,7})|[xX]([0-9a-fA-F]{1,6}));")


def _numeric(m: re.Match) -> str:
    code = int(m.group(1)) if m.group(1) else int(m.group(2), 16)
    return chr(code) if code <= 0x10FFFF else ""


def plain_text(markup: str) -> str:
    """The characters a markup string puts on paper (tags removed, entities decoded — numeric
    ones too, so ``&#x13000;`` is glyph-checked like the character itself)."""
    text = re.sub(r"<br\s*/?>", "\n", markup)
    text = re.sub(r"<[^>]+>", "", text)
    if "&#" in text:
        text = _NUMERIC_ENTITY.sub(_numeric, text)
    return (text.replace("&lt;", "<").replace("&gt;", ">").replace("&nbsp;", "\u00a0").replace("&quot;", '"')
            .replace("&apos;", "'").replace("&amp;", "&"))


def paragraph_lines(para: Paragraph) -> list[str]:
    """The text of each laid-out line of a wrapped Paragraph (for checks and tests)."""
    bl = para.blPara
    out = []
    for line in bl.lines:
        if bl.kind == 0:
            out.append("".join(line[1]))
        else:
            out.append("".join(getattr(w, "text", "") for w in line.words))
    return out


# ---------------------------------------------------------------------------- fitting


class TextOverflow(CardpressError):
    """Text does not fit its box even at the smallest allowed size."""


@dataclass(frozen=True)
class Fitted:
    paragraph: Paragraph
    size: float
    height: float


def fit_paragraph(markup: str, style: ParagraphStyle, width: float, height: float,
                  max_size: float, min_size: float, step: float = 0.25) -> Fitted:
    """The largest font size in [min_size, max_size] (multiples of ``step``) at which ``markup``
    fits ``width`` × ``height`` points; binary search over ``Paragraph.wrap``.

    Leading scales with the size (``style.leading / style.fontSize``). Raises ``TextOverflow``
    when it does not fit at ``min_size``.
    """
    ratio = style.leading / style.fontSize

    def attempt(size: float) -> tuple[Paragraph, float]:
        st = ParagraphStyle("fit", parent=style, fontSize=size, leading=size * ratio)
        para = Paragraph(markup, st)
        _, h = para.wrap(width, height)
        return para, h

    lo, hi = round(min_size / step), round(max_size / step)
    best = None
    para, h = attempt(hi * step)
    if h <= height + 0.01:
        return Fitted(para, hi * step, h)
    while lo <= hi:
        mid = (lo + hi) // 2
        para, h = attempt(mid * step)
        if h <= height + 0.01:
            best = Fitted(para, mid * step, h)
            lo = mid + 1
        else:
            hi = mid - 1
    if best is None:
        raise TextOverflow(f"text needs {h:.0f} pt of height at {min_size} pt; the box has {height:.0f} pt")
    return best
