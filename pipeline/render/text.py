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

import functools
import re
import struct
from dataclasses import dataclass
from typing import Callable, Sequence

from reportlab.lib import textsplit
from reportlab.lib.enums import TA_JUSTIFY
from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.platypus import paragraph as rl_paragraph
from reportlab.platypus.paragraph import Paragraph
from reportlab.rl_config import _FUZZ

from engine.errors import CardpressError
from engine.i18n import _

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


# ---------------------------------------------------------------------------- punctuation

#: Full-width marks that may give up half their em box (W3C clreq §6.3.2.1 "Punctuation
#: adjustment space", https://www.w3.org/TR/clreq/#h-punctuation_adjustment_space): stops and
#: closing brackets/quotes, opening brackets/quotes. Which half is blank is read from the font
#: (``blank_sides``), never assumed: a Traditional Chinese font centres ，。 and they stay whole.
ADJUSTABLE = frozenset("，。、；：？！）》」』】〉〕〗〙〛］｝”’（《「『【〈〔〖〘〚［｛“‘")
#: Largest space justification may add between two glyphs, in em of the line's font size. A line
#: that would need more (a long unbreakable word pushed to the next line) stays ragged.
MAX_JUSTIFY_GAP_EM = 0.25


@functools.cache
def blank_sides(font_name: str) -> dict[str, str]:
    """The blank half of each adjustable mark's em box in this font: ``{"，": "right", "「": "left"}``.

    Read from each glyph's bounding box (the ``glyf`` header's xMin/xMax against the advance):
    ink entirely in the left half means the right half is blank, and the reverse. A mark whose ink
    crosses the middle, a glyph that is not full width, or a font that is not TrueType: no entry.
    """
    try:
        face = pdfmetrics.getFont(font_name).face
        glyf, positions, to_glyph = face.table["glyf"]["offset"], face.glyphPos, face.charToGlyph
        widths, units, path = face.charWidths, face.unitsPerEm, face.filename
    except (KeyError, AttributeError):
        return {}
    sides = {}
    with open(path, "rb") as file:
        for ch in sorted(ADJUSTABLE):
            gid = to_glyph.get(ord(ch))
            advance = widths.get(ord(ch)) if isinstance(widths, dict) else None
            if gid is None or advance is None or abs(advance - 1000) > 1:
                continue
            file.seek(glyf + positions[gid])
            contours, x_min, _y_min, x_max, _y_max = struct.unpack(">hhhhh", file.read(10))
            if contours == 0:
                continue
            x_min, x_max = x_min * 1000 / units, x_max * 1000 / units
            if x_max <= advance / 2:
                sides[ch] = "right"
            elif x_min >= advance / 2:
                sides[ch] = "left"
    return sides


class Measure:
    """Widths of candidate lines over one paragraph's glyphs, with punctuation compression.

    ``left[i]``/``right[i]`` are the blank halves (points) glyph ``i`` may give up. Compression
    follows clreq §6.3.2 (https://www.w3.org/TR/clreq/#punctuation_width_adjustment):

    * §6.3.2.2 adjacent marks (#h-adjustment_of_adjacent_punctuation_marks): two adjacent marks
      that take 2 em take 1.5 em — ``。」`` ``！！`` ``》（`` ``，「`` — the blank between them
      goes, so brackets stay against the text they enclose: a mark blank on its right gives up
      that half, else an opening bracket after an opening bracket gives up its left half;
    * §6.3.2.3 line start and end (#h-compression_of_punctuation_marks_at_line_start): an opening
      bracket starts a line without its blank half; a mark ending a line is trimmed to half width
      (GB/T 15834—2011 §5.1.10), so a mark that would just overflow still fits.
    """

    def __init__(self, chars: Sequence[str], widths: Sequence[float],
                 left: Sequence[float] | None = None, right: Sequence[float] | None = None):
        n = len(chars)
        self.chars, self.widths = chars, widths
        self.left = left or [0.0] * n
        self.right = right or [0.0] * n
        #: pair[i]: what the gap between glyphs i and i+1 gives up when both are on one line.
        self.pair = [0.0] * n
        for i in range(n - 1):
            if (self.left[i] or self.right[i]) and (self.left[i + 1] or self.right[i + 1]):
                self.pair[i] = self.right[i] or self.left[i + 1]

    def last_ink(self, s: int, e: int) -> int:
        """Index of the line's last glyph that is not a space (``s`` if none)."""
        t = e - 1
        while t > s and (self.chars[t] == " " or not self.chars[t]):
            t -= 1
        return t

    def width(self, s: int, e: int) -> float:
        """Width of ``chars[s:e]`` set as one line: compressed, trailing spaces taking no room."""
        t = self.last_ink(s, e)
        return (sum(self.widths[s:t + 1]) - sum(self.pair[s:t]) - self.left[s] - self.right[t])


def _break(m: Measure, max_widths: Sequence[float], hard: Callable[[int], bool]) -> list[tuple[int, int, float, bool]]:
    chars, widths, pair, left, right = m.chars, m.widths, m.pair, m.left, m.right
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
                break
            cand = used + widths[i] - (pair[i - 1] if i > start else 0.0)
            if cand - left[start] - right[i] > max_w + _FUZZ and i > start:
                # chars[i] does not fit: find the last legal break at or before i.
                k = i
                while k > start + 1 and not can_break(chars[k - 1], chars[k]):
                    k -= 1
                if k == start + 1 and not can_break(chars[k - 1], chars[k]):
                    k = i  # no legal point at all (absurdly narrow box): break where it overflows
                end = k
                break
            used = cand
            i += 1
        if end is None:
            end = n
        # Spaces at a break stay at the end of the line (taking no room), never start the next.
        while end < n and chars[end] == " " and not hard(end):
            end += 1
        lines.append((start, end, m.width(start, end), forced))
        start = end
    _no_orphans(m, lines, max_widths)
    return lines


def _content(chars: Sequence[str]) -> int:
    """Glyphs of a line that are neither punctuation that cannot start a line nor space."""
    return sum(1 for c in chars if c and c != " " and c not in CANNOT_START)


#: At most this many glyphs come down from the line above to keep a last line from being one glyph.
_ORPHAN_PULL = 3


def _no_orphans(m: Measure, lines: list, max_widths: Sequence[float]) -> None:
    """A paragraph's (or a hard-broken segment's) last line of one glyph plus punctuation
    ("…摧 / 毁。") takes a glyph or two down from the line above, at a legal break."""
    chars = m.chars
    for idx in range(1, len(lines)):
        s, e, _used, forced = lines[idx]
        ps, pe, _pused, pforced = lines[idx - 1]
        if pforced or not (forced or idx == len(lines) - 1) or _content(chars[s:e]) != 1:
            continue
        max_w = max_widths[min(idx, len(max_widths) - 1)]
        for k in range(s - 1, max(ps + 2, s - _ORPHAN_PULL) - 1, -1):
            if chars[k] != " " and can_break(chars[k - 1], chars[k]) and m.width(k, e) <= max_w + _FUZZ:
                lines[idx - 1] = (ps, k, m.width(ps, k), False)
                lines[idx] = (k, e, m.width(k, e), forced)
                break


def break_lines(chars: Sequence[str], widths: Sequence[float], max_widths: Sequence[float],
                hard: Callable[[int], bool] = lambda i: False,
                left: Sequence[float] | None = None, right: Sequence[float] | None = None,
                ) -> list[tuple[int, int, float, bool]]:
    """Greedy line breaking with Chinese rules and punctuation compression (``Measure``).

    Returns ``(start, end, width, hard_break)`` per line; ``chars[start:end]`` is the line and
    ``width`` its compressed width. ``hard(i)`` says element ``i`` is a forced line break (it ends
    its line, included in it). A last line of one glyph plus punctuation is avoided.
    """
    return _break(Measure(chars, widths, left, right), max_widths, hard)


def _gap_adjustable(a: str, b: str) -> bool:
    """Justification may widen the gap between ``a`` and ``b``: not inside a Latin word or
    number ("Level-0"), not inside ——/……, and only after a glyph drawn as text."""
    return bool(a) and not (_is_word(a) and _is_word(b)) and a + b not in _UNSPLITTABLE_PAIRS


def set_line(m: Measure, s: int, e: int, max_w: float, justify: bool, em: float) -> tuple[float, list[float], float]:
    """How line ``chars[s:e]`` is set: ``(lead, after, extra)``.

    ``lead`` shifts the line's start (an opening bracket without its blank half), ``after[j]`` is
    added after glyph ``s + j`` (negative where punctuation is compressed), ``extra`` is the room
    left at the end. A justified line spreads its room over the gaps between glyphs (clreq
    §6.2.2 line adjustment, https://www.w3.org/TR/clreq/#line_adjustment: inter-character, never
    inside a Latin word), at most ``MAX_JUSTIFY_GAP_EM`` per gap; a line that would need more
    stays ragged.
    """
    chars = m.chars
    t = m.last_ink(s, e)
    after = [-m.pair[i] if i < t else 0.0 for i in range(s, e)]
    extra = max_w - m.width(s, e)
    if justify and extra > 1e-6:
        gaps = [i - s for i in range(s, t) if _gap_adjustable(chars[i], chars[i + 1])]
        if gaps and extra / len(gaps) <= MAX_JUSTIFY_GAP_EM * em + 1e-9:
            step = extra / len(gaps)
            for j in gaps:
                after[j] += step
            extra = 0.0
    return -m.left[s], after, extra


class _Spaced(str):
    """A run of text drawn with ``tc`` points after each glyph (PDF character spacing)."""

    __slots__ = ("tc",)

    def __new__(cls, text: str, tc: float):
        self = str.__new__(cls, text)
        self.tc = tc
        return self


def _make_line(U, after, lead, max_w, extra, forced, calcBounds):
    """``makeCJKParaLine`` with a word boundary wherever the spacing after a glyph changes, so
    each word is drawn with one character spacing (``_put_frag_line``)."""
    words = []
    run: list[str] = []
    f0 = tc0 = None
    max_size = max_ascent = min_descent = 0

    def flush():
        if run:
            word = f0.clone()
            text = "".join(run)
            word.text = _Spaced(text, tc0) if tc0 else text
            words.append(word)

    for u, tc in zip(U, after):
        f = u.frag
        font_size = f.fontSize
        cb = getattr(f, "cbDefn", None)
        if calcBounds and getattr(cb, "width", 0):
            descent, ascent = rl_paragraph.imgVRange(rl_paragraph.imgNormV(cb.height, font_size), cb.valign, font_size)
        else:
            ascent, descent = rl_paragraph.getAscentDescent(f.fontName, font_size)
        max_size = max(max_size, font_size)
        max_ascent = max(max_ascent, ascent)
        min_descent = min(min_descent, descent)
        if f0 is None or tc != tc0 or not rl_paragraph.sameFrag(f0, f):
            flush()
            run, f0, tc0 = [], f, tc
        run.append(u)
    flush()
    line = rl_paragraph.FragLine(kind=1, extraSpace=extra, wordCount=1, words=words, fontSize=max_size,
                                 ascent=max_ascent, descent=min_descent, maxWidth=max_w,
                                 currentWidth=max_w - extra, lineBreak=forced)
    line.cjk_lead = lead
    return line


def _cjk_frag_split(frags, maxWidths, calcBounds, encoding="utf8", justify=False):
    """``reportlab.platypus.paragraph.cjkFragSplit`` with our breaking, compression and justification."""
    U = []
    for f in frags:
        text = f.text
        if isinstance(text, bytes):
            text = text.decode(encoding)
        if text:
            U.extend(rl_paragraph.cjkU(t, f, encoding) for t in text)
        else:
            U.append(rl_paragraph.cjkU(text, f, encoding))
    n = len(U)
    widths, left, right = [0.0] * n, [0.0] * n, [0.0] * n
    for i, u in enumerate(U):
        w = u.width
        if hasattr(w, "normalizedValue"):
            w._normalizer = maxWidths[0]
            w = w.normalizedValue(maxWidths[0])
        widths[i] = w
        if u in ADJUSTABLE and not hasattr(u.frag, "cbDefn"):
            side = blank_sides(u.frag.fontName).get(u)
            if side == "left":
                left[i] = w / 2
            elif side == "right":
                right[i] = w / 2
    m = Measure([str(u) for u in U], widths, left, right)
    spans = _break(m, list(maxWidths), lambda i: hasattr(U[i].frag, "lineBreak"))
    lines = []
    for k, (s, e, _used, forced) in enumerate(spans):
        max_w = maxWidths[min(k, len(maxWidths) - 1)]
        em = max((U[i].frag.fontSize for i in range(s, e)), default=0)
        lead, after, extra = set_line(m, s, e, max_w, justify and not forced and k < len(spans) - 1, em)
        lines.append(_make_line(U[s:e], after, lead, max_w, extra, forced, calcBounds))
    return rl_paragraph.ParaLines(kind=1, lines=lines)


def _break_lines_cjk(self, maxWidths):
    """``Paragraph.breakLinesCJK``: every CJK paragraph, one style or many, goes through
    ``_cjk_frag_split`` (ReportLab's single-style shortcut could neither compress nor justify);
    ``alignment=TA_JUSTIFY`` justifies it."""
    if not isinstance(maxWidths, (list, tuple)):
        maxWidths = [maxWidths]
    style = self.style
    self.height = 0
    rl_paragraph._handleBulletWidth(self.bulletText, style, maxWidths)
    if hasattr(self, "blPara") and getattr(self, "_splitpara", 0):
        return self.blPara
    if not self.frags:
        return rl_paragraph.ParaLines(kind=0, fontSize=style.fontSize, fontName=style.fontName,
                                      textColor=style.textColor, lines=[], ascent=style.fontSize,
                                      descent=-0.2 * style.fontSize)
    auto_leading = getattr(self, "autoLeading", getattr(style, "autoLeading", ""))
    return _cjk_frag_split(self.frags, maxWidths, auto_leading not in ("", "off"),
                           justify=style.alignment == TA_JUSTIFY)


#: ReportLab's own line drawing (kept once: a second import of this module must not wrap our wrapper).
_rl_put_frag_line = getattr(rl_paragraph._putFragLine, "_rl_original", rl_paragraph._putFragLine)


def _put_frag_line(cur_x, tx, line, last, pKind):
    """ReportLab's ``_putFragLine`` for our lines: each word starts where our line model puts it
    and its glyphs are followed by its spacing (PDF ``Tc``); the line starts ``cjk_lead`` early;
    ReportLab's own x bookkeeping (links, underlines, background colours, inline images) counts
    the spacing too.

    Each word is placed with an explicit ``Td`` rather than by the previous word's advance:
    readers disagree on whether ``Tc`` follows a string's last glyph (pdfminer omits it), so
    nothing depends on it. ReportLab draws a line's words with consecutive text shows and
    measures them with the canvas's ``stringWidth``; both are wrapped for this one line.
    """
    lead = getattr(line, "cjk_lead", None)
    if lead is None:
        return _rl_put_frag_line(cur_x, tx, line, last, pKind)
    tx.setWordSpace(0)  # the spacing is ours; ReportLab's would stretch ASCII spaces only
    canvas = tx._canvas
    text_out, string_width = tx._textOut, canvas.stringWidth
    if lead:
        rl_paragraph.setXPos(tx, lead)
    at = [tx._x0, tx._x0]  # where the next word starts; where we left the line origin

    def spaced_out(text, TStar=0):
        if tx._x0 != at[1]:  # ReportLab moved on (past an inline image): follow it
            at[0] = tx._x0
        if text:
            rl_paragraph.setXPos(tx, at[0] - tx._x0)
            at[1] = tx._x0
            tc = getattr(text, "tc", 0.0)
            if tc != getattr(tx, "_charSpace", 0):
                tx.setCharSpace(tc)
            at[0] += string_width(text, tx._fontname, tx._fontsize) + len(text) * tc
        text_out(text, TStar)

    def spaced_width(text, fontName=None, fontSize=None):
        return string_width(text, fontName, fontSize) + len(text) * getattr(text, "tc", 0.0)

    tx._textOut, canvas.stringWidth = spaced_out, spaced_width
    try:
        _rl_put_frag_line(cur_x + lead, tx, line, last, pKind)
    finally:
        del tx._textOut, canvas.stringWidth
        if getattr(tx, "_charSpace", 0):
            tx.setCharSpace(0)
        if lead:
            rl_paragraph.setXPos(tx, -lead)


_put_frag_line._rl_original = _rl_put_frag_line


def _word_split(word, maxWidths, fontName, fontSize, encoding="utf8"):
    """Drop-in for ``reportlab.lib.textsplit.wordSplit`` (the single-style CJK path)."""
    if isinstance(word, bytes):
        word = word.decode(encoding)
    if not isinstance(maxWidths, (list, tuple)):
        maxWidths = [maxWidths]
    chars = list(word)
    widths = [stringWidth(c, fontName, fontSize) for c in chars]
    sides = blank_sides(fontName)
    left = [w / 2 if sides.get(c) == "left" else 0.0 for c, w in zip(chars, widths)]
    right = [w / 2 if sides.get(c) == "right" else 0.0 for c, w in zip(chars, widths)]
    out = []
    for n, (s, e, used, _forced) in enumerate(break_lines(chars, widths, list(maxWidths), left=left, right=right)):
        max_w = maxWidths[min(n, len(maxWidths) - 1)]
        out.append([max_w - used, "".join(chars[s:e])])
    return out


def install() -> None:
    """Install our breaker and line drawing into ReportLab (idempotent)."""
    rl_paragraph.cjkFragSplit = _cjk_frag_split
    rl_paragraph.wordSplit = _word_split
    textsplit.wordSplit = _word_split
    Paragraph.breakLinesCJK = _break_lines_cjk
    rl_paragraph._putFragLine = _put_frag_line
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
        _w, h = para.wrap(width, height)
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
        raise TextOverflow(_("text needs {needed:.0f} pt of height at {size} pt; the box has {height:.0f} pt")
                           .format(needed=h, size=min_size, height=height))
    return best
