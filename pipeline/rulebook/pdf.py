"""Typeset a rulebook as PDF with ReportLab platypus.

Cover → table of contents (``TableOfContents``, filled by ``afterFlowable`` notifications over
``multiBuild`` passes) → numbered chapters with a running header and page numbers → glossary →
appendix gallery. Every heading is also a PDF bookmark (outline). Every string is checked
against the embedded font before it is typeset (``MissingGlyphs`` names section and characters).

Page numbers are physical page numbers (the cover is page 1, unnumbered), so the numbers in the
TOC are the numbers a PDF viewer shows.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_JUSTIFY, TA_LEFT
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase.pdfmetrics import stringWidth
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    ActionFlowable, BaseDocTemplate, CondPageBreak, Flowable, Frame, KeepTogether, ListFlowable, ListItem,
    NextPageTemplate, PageBreak, PageTemplate, Spacer, Table, TableStyle,
)
from reportlab.platypus import Paragraph as RLParagraph
from reportlab.platypus.tableofcontents import TableOfContents

from pipeline.render.text import can_break  # importing pipeline.render.text installs the Chinese line-breaking rules
from engine.i18n import _
from engine.presets import paper as preset_paper
from pipeline.render.fonts import FontSet

from . import markdown as md
from .cards import RulebookCards
from .errors import MissingGlyphs, RulebookError
from .source import GLOSSARY_ORDER_NOTE, RulebookSource

Progress = Callable[[str, int, int], None]

def page_size(paper: str, booklet: bool = False) -> tuple[float, float]:
    """(width, height) in points of ``paper`` (``engine.presets``), or of its booklet page."""
    found = preset_paper(paper)
    w, h = found.booklet_page_mm if booklet else found.mm
    return tuple(round(v) if abs(v - round(v)) < 1e-6 else v for v in (w * mm, h * mm))  # Letter: 612 × 792 pt
#: Booklet pages: half the sheet, so two fit side by side on the landscape sheet.
GALLERY_CARD_MM = {"full": 40.0, "half": 33.0}
INK = colors.HexColor("#222222")
MUTED = colors.HexColor("#666666")
ACCENT = colors.HexColor("#8a3b12")
CALLOUT_COLORS = {
    "house": (colors.HexColor("#fff4e0"), colors.HexColor("#c77d00")),
    "note": (colors.HexColor("#eaf2fb"), colors.HexColor("#3b7bbf")),
    "example": (colors.HexColor("#edf7ed"), colors.HexColor("#3f8f4f")),
}
#: A chapter starts on a fresh page unless at least this share of the page is still free.
CHAPTER_MIN_ROOM = 0.4
#: Callout boxes taller than this share of the text block may split across pages.
CALLOUT_KEEP_MAX = 0.3
#: Left and right padding of a table cell, in points.
TABLE_PAD = 5
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"


#: ReportLab paragraph markup for inline Markdown styles.
_RL_TAGS = {"code": ('<font color="#8a3b12">', "</font>"), "em": ("<i>", "</i>"), "strong": ("<b>", "</b>")}


@dataclass(frozen=True)
class PageGeometry:
    size: tuple[float, float]
    margin: float
    base_size: float  # body text size in points
    mirrored: bool = False  # running heads swap sides on left (even) pages: a bound booklet

    @property
    def frame_width(self) -> float:
        return self.size[0] - 2 * self.margin

    @property
    def half(self) -> bool:
        return self.size[0] < 160 * mm


def geometry(paper: str, booklet: bool) -> PageGeometry:
    if booklet:
        # 9.5 pt: the smallest body size that still reads comfortably in a hand-held A5 book.
        return PageGeometry(page_size(paper, booklet=True), 14 * mm, 9.5, mirrored=True)
    return PageGeometry(page_size(paper), 20 * mm, 10.5)


# ---------------------------------------------------------------------------- flowables


class HeadingParagraph(RLParagraph):
    """A numbered heading: remembered by the doc template for TOC, outline and running header."""

    def __init__(self, text: str, style: ParagraphStyle, heading: md.Heading):
        super().__init__(text, style)
        self.heading = heading


class Bookmark(Flowable):
    """An invisible flowable that adds an outline entry (for unnumbered parts: cover, contents)."""

    def __init__(self, title: str, key: str):
        super().__init__()
        self.title, self.key = title, key

    def wrap(self, aw, ah):
        return 0, 0

    def draw(self):
        self.canv.bookmarkPage(self.key)
        self.canv.addOutlineEntry(self.title, self.key, level=0, closed=False)


class AnnotatedCard(Flowable):
    """The example card with numbered call-outs to the right, joined to each field by a leader line."""

    def __init__(self, card: Flowable, card_w_mm: float, card_h_mm: float, notes, font: str, bold: str):
        super().__init__()
        self.card, self.notes, self.font, self.bold = card, notes, font, bold
        self.scale = card.width / (card_w_mm * mm)
        self.card_h_mm = card_h_mm
        self.gutter = 14 * mm
        self.width = card.width + self.gutter
        self.height = card.height

    def wrap(self, aw, ah):
        return self.width, self.height

    def draw(self):
        c = self.canv
        self.card.drawOn(c, 0, 0)
        r = 2.6 * mm
        min_gap = 2 * r + 1
        k = mm * self.scale

        def pt(p):
            return p[0] * k, self.height - p[1] * k

        targets = sorted((((pt(n.route[-1])[1] if n.route else self.height - n.y_mm * k), n) for n in self.notes),
                         key=lambda t: -t[0])  # top first
        # Spread the markers so they never overlap, then shift the column back inside the card.
        ys, last = [], self.height - r - 0.5 + min_gap  # the top marker stays inside the picture
        for y, _target in targets:
            ly = min(y, last - min_gap)
            ys.append(ly)
            last = ly
        if ys and ys[-1] < r:
            shift = r - ys[-1]
            ys = [y + shift for y in ys]
            for j in range(len(ys) - 2, -1, -1):  # keep the order after the shift
                ys[j] = max(ys[j], ys[j + 1] + min_gap)
        x_label = self.card.width + self.gutter - r - 1
        elbow = self.card.width + 2 * mm
        for (y, note), ly in zip(targets, ys):
            # The leader runs as routed on the card (cards.route_leaders: it crosses no text),
            # then out to the numbered marker beside the card.
            points = [pt(p) for p in note.route] or [(note.x_mm * k, y), (self.card.width, y)]
            c.setStrokeColor(ACCENT, alpha=0.8)
            c.setLineWidth(0.5)
            path = c.beginPath()
            path.moveTo(*points[0])
            for p in points[1:]:
                path.lineTo(*p)
            path.lineTo(elbow, points[-1][1])
            path.lineTo(x_label - r, ly)
            c.drawPath(path, stroke=1, fill=0)
            c.setFillColor(ACCENT)
            c.circle(*points[0], 0.55 * mm * max(self.scale, 0.8), stroke=0, fill=1)
            c.circle(x_label, ly, r, stroke=0, fill=1)
            c.setFillColor(colors.white)
            c.setFont(self.bold, 8)
            c.drawCentredString(x_label, ly - 2.8, str(note.number))


def _han(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def unbreakable_units(text: str) -> list[str]:
    """The pieces a line may never be broken inside: a run of 2–4 Han glyphs between punctuation
    or spaces is taken for one word (容量, 不限, 规则文本), together with the marks the line
    breaker keeps attached to it (a following 、 or an opening 「); Latin words stay whole."""
    protected = [False] * len(text)  # protected[i]: no break between text[i-1] and text[i]
    i = 0
    while i < len(text):
        if _han(text[i]):
            j = i
            while j < len(text) and _han(text[j]):
                j += 1
            if j - i <= 4:
                for k in range(i + 1, j):
                    protected[k] = True
            i = j
        else:
            i += 1
    units, start = [], 0
    for i in range(1, len(text)):
        if text[i].isspace() or text[i - 1].isspace() or (not protected[i] and can_break(text[i - 1], text[i])):
            units.append(text[start:i].strip())
            start = i
    units.append(text[start:].strip())
    return [u for u in units if u]


class KeepWithFirst(CondPageBreak):
    """Before a heading (or a run of headings): break the page unless the headings *and the
    first piece* of the block after them fit — the first two lines of a paragraph, the first row
    of a table or gallery, a whole unsplittable box. Unlike ``keepWithNext`` it does not carry
    a whole table to the next page, leaving the page above it empty."""

    def __init__(self, headings: list[Flowable], following: Flowable | None, line: float):
        super().__init__(0)
        self.headings, self.following, self.line = headings, following, line

    def _first_piece(self, aw: float, ah: float) -> float:
        f = self.following
        if f is None:
            return 0.0
        if isinstance(f, Table):
            f.wrapOn(self.canv, aw, ah)
            rows = f._rowHeights
            if len(rows) == 1:  # a long callout box, which splits between its lines
                return min(rows[0], 3 * self.line + 12)
            return sum(rows[: 2 if getattr(f, "repeatRows", 0) else 1])
        _w, h = f.wrapOn(self.canv, aw, ah)
        if isinstance(f, (RLParagraph, ListFlowable)):
            return min(h, 2 * self.line + 1)
        return h

    def wrap(self, aw, ah):
        need = 0.0
        for n, h in enumerate(self.headings):
            need += h.wrapOn(self.canv, aw, ah)[1] + h.getSpaceAfter() + (h.getSpaceBefore() if n else 0)
        self.height = need + self._first_piece(aw, ah)
        return super().wrap(aw, ah)


def keep_headings_with_first_block(story: list[Flowable], line: float) -> list[Flowable]:
    """Put a ``KeepWithFirst`` before every run of headings in ``story``."""
    out: list[Flowable] = []
    i = 0
    while i < len(story):
        if isinstance(story[i], HeadingParagraph):
            j = i
            while j < len(story) and isinstance(story[j], HeadingParagraph):
                j += 1
            out.append(KeepWithFirst(story[i:j], story[j] if j < len(story) else None, line))
            out.extend(story[i:j])
            i = j
        else:
            out.append(story[i])
            i += 1
    return out


# ---------------------------------------------------------------------------- doc template


class RulebookDoc(BaseDocTemplate):
    """Cover and body page templates; headings feed the TOC, the outline and the running header."""

    def __init__(self, filename, geom: PageGeometry, fonts: FontSet, book_title: str, progress: Progress | None):
        self.geom, self.fonts, self.book_title, self.progress = geom, fonts, book_title, progress
        self.chapter = ""  # the chapter of the last heading typeset
        self.page_chapter = ""  # the chapter in force at the top of the current page
        self._page_empty = True
        self.last_page_count = 0
        super().__init__(
            str(filename) if isinstance(filename, Path) else filename, pagesize=geom.size, leftMargin=geom.margin, rightMargin=geom.margin,
            topMargin=geom.margin + 6 * mm, bottomMargin=geom.margin, title=book_title,
            author="cardpress", subject="规则书", creator="cardpress", lang="zh-CN",
            initialFontName=fonts.regular, initialFontSize=geom.base_size,
        )
        # No frame padding: the text block is exactly the area between the margins, so text,
        # tables and callout boxes share one right edge with the running head's rule.
        frame = Frame(self.leftMargin, self.bottomMargin, self.width, self.height, id="body",
                      leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
        self.addPageTemplates([
            PageTemplate("cover", [frame]),
            PageTemplate("body", [frame], onPageEnd=self._decorate),
        ])

    def beforeDocument(self):
        self.chapter = self.page_chapter = ""
        self.canv.showOutline()

    def beforePage(self):
        self.page_chapter, self._page_empty = self.chapter, True

    def afterPage(self):
        if self.progress:
            self.progress(_("typesetting"), self.page, max(self.last_page_count, self.page))

    def afterFlowable(self, flowable):
        if isinstance(flowable, Bookmark):
            self.chapter = flowable.title  # the running header of the contents pages says 目录
            if self._page_empty:
                self.page_chapter = self.chapter
            return
        if not isinstance(flowable, HeadingParagraph):
            if not isinstance(flowable, (Spacer, CondPageBreak, ActionFlowable)):
                self._page_empty = False
            return
        h = flowable.heading
        key = h.anchor
        self.canv.bookmarkPage(key)
        self.canv.addOutlineEntry(h.numbered_title, key, level=h.level - 1, closed=h.level > 1)
        if h.level <= 2:
            self.notify("TOCEntry", (h.level - 1, h.numbered_title, self.page, key))
        if h.level == 1:
            self.chapter = h.numbered_title
            if self._page_empty:  # the chapter opens the page: its head is the page's head
                self.page_chapter = self.chapter
        self._page_empty = False

    def _decorate(self, canv, doc):
        """Running head: the book title on the spine side, the chapter in force at the page top
        on the outer side (a page continuing chapter 3 where chapter 4 starts says 3). In a
        booklet the heads mirror: left (even) pages carry the chapter on the left."""
        g = self.geom
        w, h = g.size
        canv.saveState()
        canv.setFont(self.fonts.regular, 8)
        canv.setFillColor(MUTED)
        top = h - g.margin + 1 * mm
        left, right = self.book_title, self.page_chapter
        if g.mirrored and canv.getPageNumber() % 2 == 0:
            left, right = right, left
        canv.drawString(g.margin, top, left)
        canv.drawRightString(w - g.margin, top, right)
        canv.setStrokeColor(colors.HexColor("#bbbbbb"))
        canv.setLineWidth(0.4)
        canv.line(g.margin, top - 2 * mm, w - g.margin, top - 2 * mm)
        canv.drawCentredString(w / 2, g.margin / 2, f"— {canv.getPageNumber()} —")
        canv.restoreState()


# ---------------------------------------------------------------------------- typesetter


class Typesetter:
    """Turns the block model into platypus flowables, checking every glyph on the way."""

    def __init__(self, source: RulebookSource, fonts: FontSet, geom: PageGeometry, cards: RulebookCards):
        self.source, self.game, self.fonts, self.geom, self.cards = source, source.game, fonts, geom, cards
        self.section = "cover"
        s = geom.base_size
        base = ParagraphStyle(
            "body", fontName=fonts.regular, fontSize=s, leading=s * 1.6, textColor=INK,
            wordWrap="CJK", spaceAfter=s * 0.55, alignment=TA_LEFT,
        )
        # Running text is justified by inter-character spacing, its last line ragged
        # (pipeline.render.text, clreq §6.3); headings, table cells, captions and contents stay ragged.
        body = ParagraphStyle("body", base, alignment=TA_JUSTIFY)
        self.styles = {
            "body": body,
            # A chapter starting mid-page is set off by more space than a section (spaceBefore
            # is dropped at the top of a page, so a chapter opening a page starts flush).
            # Headings keep with their first block through KeepWithFirst, not keepWithNext,
            # which would carry a whole table or gallery to the next page.
            "h1": ParagraphStyle("h1", base, fontName=fonts.bold, fontSize=s * 1.9, leading=s * 2.5,
                                 spaceBefore=s * 3.2, spaceAfter=s * 1.2, textColor=ACCENT),
            "h2": ParagraphStyle("h2", base, fontName=fonts.bold, fontSize=s * 1.35, leading=s * 1.9,
                                 spaceBefore=s * 1.1, spaceAfter=s * 0.5),
            "h3": ParagraphStyle("h3", base, fontName=fonts.bold, fontSize=s * 1.1, leading=s * 1.6,
                                 spaceBefore=s * 0.7, spaceAfter=s * 0.3),
            "cell": ParagraphStyle("cell", base, fontSize=s * 0.88, leading=s * 1.3, spaceAfter=0),
            "cellhead": ParagraphStyle("cellhead", base, fontName=fonts.bold, fontSize=s * 0.88,
                                       leading=s * 1.3, spaceAfter=0, textColor=colors.white),
            "callout_title": ParagraphStyle("ct", base, fontName=fonts.bold, spaceAfter=s * 0.3),
            "note": ParagraphStyle("note", body, fontSize=s * 0.85, leading=s * 1.3, textColor=MUTED),
            "caption": ParagraphStyle("caption", base, fontSize=s * 0.72, leading=s * 0.95,
                                      alignment=TA_CENTER, spaceAfter=0),
            "glossary": ParagraphStyle("glossary", body, leftIndent=s * 1.5, firstLineIndent=-s * 1.5),
            "cover_title": ParagraphStyle("cover_title", base, fontName=fonts.bold, fontSize=s * 3.6,
                                          leading=s * 4.6, alignment=TA_CENTER, textColor=ACCENT),
            "cover_sub": ParagraphStyle("cover_sub", base, fontSize=s * 1.5, leading=s * 2.2,
                                        alignment=TA_CENTER, textColor=MUTED),
            "toc_title": ParagraphStyle("toc_title", base, fontName=fonts.bold, fontSize=s * 1.9,
                                        leading=s * 2.5, textColor=ACCENT, spaceAfter=s),
        }
        self.glossary_keys = {name: f"gl-{n}" for n, e in enumerate(source.glossary) for name in e.names}

    def _style(self, commands: list) -> TableStyle:
        """A TableStyle whose string cells use our font (ReportLab's default is a non-embedded Helvetica)."""
        return TableStyle([("FONTNAME", (0, 0), (-1, -1), self.fonts.regular), *commands])

    # ------------------------------------------------------------------ text helpers
    def check(self, text: str, section: str | None = None) -> None:
        missing = self.fonts.missing(text)
        if missing:
            raise MissingGlyphs(section or self.section, missing)

    def markup(self, inline: md.Inline) -> str:
        self.check(md.plain(inline))
        return md.render_spans(inline, escape, "<br/>", _RL_TAGS)

    def para(self, text_markup: str, style: str | ParagraphStyle) -> RLParagraph:
        st = self.styles[style] if isinstance(style, str) else style
        return RLParagraph(text_markup, st)

    def plain_para(self, text: str, style: str | ParagraphStyle) -> RLParagraph:
        self.check(text)
        return self.para(escape(text), style)

    # ------------------------------------------------------------------ front matter
    def cover(self) -> list[Flowable]:
        g = self.game
        story: list[Flowable] = [Bookmark("封面", "cover"), Spacer(1, self.geom.size[1] * 0.16)]
        story.append(self.plain_para(g.name, "cover_title"))
        if g.name_en:
            story.append(self.plain_para(g.name_en, "cover_sub"))
        story.append(Spacer(1, 6 * mm))
        story.append(self.plain_para("规则书", "cover_sub"))
        story.append(Spacer(1, 10 * mm))
        first_type = next(iter(g.card_types))
        sample = self.cards.of_type(first_type)
        card = self.cards.example(self._anatomy_type() or first_type) if not sample else sample[0]
        story.append(_Centered(self.cards.flowable(card, 48 if not self.geom.half else 38)))
        story.append(Spacer(1, 8 * mm))
        story.append(self.plain_para(f"版本 {g.version} · {g.players}人游戏", "cover_sub"))
        story += [NextPageTemplate("body"), PageBreak()]
        return story

    def _anatomy_type(self) -> str | None:
        for b in md.walk(self.doc.blocks):
            if isinstance(b, md.Directive) and b.name == "example-card":
                return b.arg
        return None

    def contents(self) -> list[Flowable]:
        toc = TableOfContents(dotsMinLevel=0)
        toc.tableStyle = self._style([
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("RIGHTPADDING", (0, 0), (-1, -1), 0),
            ("LEFTPADDING", (0, 0), (-1, -1), 0),
        ])
        s = self.geom.base_size
        toc.levelStyles = [
            ParagraphStyle("toc1", self.styles["body"], alignment=TA_LEFT, fontName=self.fonts.bold, fontSize=s * 1.05,
                           leading=s * 1.7, leftIndent=s * 1.2, firstLineIndent=-s * 1.2, spaceBefore=s * 0.4,
                           spaceAfter=0),
            ParagraphStyle("toc2", self.styles["body"], alignment=TA_LEFT, fontSize=s * 0.95, leading=s * 1.5,
                           leftIndent=s * 2.6, firstLineIndent=-s * 1.4, spaceAfter=0),
        ]
        return [Bookmark("目录", "contents"), self.plain_para("目录", "toc_title"), toc, PageBreak()]

    # ------------------------------------------------------------------ body
    def story(self, doc: md.Document) -> list[Flowable]:
        self.doc = doc
        story = self.cover() + self.contents()
        # Chapters start on a new page when less than this much of the page is left; the
        # glossary and the gallery always do, so they can be found by flicking through.
        room = (self.geom.size[1] - 2 * self.geom.margin) * CHAPTER_MIN_ROOM
        first = True
        for n, block in enumerate(doc.blocks):
            if isinstance(block, md.Heading) and block.level == 1:
                if not first:
                    story.append(PageBreak() if self._starts_reference(doc.blocks, n) else CondPageBreak(room))
                first = False
            story.extend(self.block(block))
        return keep_headings_with_first_block(story, self.styles["body"].leading)

    @staticmethod
    def _starts_reference(blocks: list[md.Block], index: int) -> bool:
        """Does the chapter starting at ``blocks[index]`` hold the glossary or the gallery?"""
        for b in blocks[index + 1:]:
            if isinstance(b, md.Heading) and b.level == 1:
                return False
            if isinstance(b, md.Directive) and b.name in ("glossary", "gallery"):
                return True
        return False

    def block(self, block: md.Block) -> list[Flowable]:
        if isinstance(block, md.Heading):
            self.section = block.numbered_title
            self.check(block.numbered_title)
            level = min(block.level, 3)
            number = f'<font color="#8a3b12">{escape(block.number)}</font>　' if block.number else ""
            return [HeadingParagraph(number + self.markup(block.inline), self.styles[f"h{level}"], block)]
        if isinstance(block, md.Paragraph):
            return [self.para(self.markup(block.inline), "body")]
        if isinstance(block, md.ListBlock):
            return [self.list_flowable(block)]
        if isinstance(block, md.Table):
            return [self.table(block), Spacer(1, self.geom.base_size * 0.6)]
        if isinstance(block, md.Callout):
            flow = self.callout(block)
            return flow if isinstance(flow, list) else [flow]
        if isinstance(block, md.Directive):
            if block.name == "example-card":
                return self.example_card(block.arg)
            if block.name == "glossary":
                return self.glossary()
            if block.name == "gallery":
                return self.gallery(block.arg)
            if block.name == "decks":
                return self.decks()
        raise RulebookError(_("section {section!r}: cannot typeset {block}").format(section=self.section, block=type(block).__name__))

    def list_flowable(self, block: md.ListBlock) -> Flowable:
        items = []
        for item in block.items:
            flows = [f for b in item for f in self.block(b)]
            items.append(ListItem(flows, spaceAfter=0))
        s = self.geom.base_size
        kw = dict(bulletFontName=self.fonts.regular, bulletFontSize=s, leftIndent=s * 1.8,
                  bulletColor=ACCENT, spaceAfter=s * 0.4)
        if block.ordered:
            return ListFlowable(items, bulletType="1", start=str(block.start), bulletFormat="%s.", **kw)
        return ListFlowable(items, bulletType="bullet", start="•", **kw)

    def _col_widths(self, rows: list[list[str]], avail: float) -> list[float]:
        """Column widths: every column first gets its longest unbreakable unit (a 2–4 glyph word
        such as 容量 or 规则文本 with the punctuation that may not leave it, or a Latin word), so
        no short word is set one glyph per line; the rest of the width is then shared, each
        column getting up to its natural (one-line) width, the wordy columns the remainder."""
        ncol = max(len(r) for r in rows)
        pad = TABLE_PAD * 2 + 0.5  # left + right cell padding, and rounding room
        size = self.styles["cell"].fontSize
        natural = [0.0] * ncol
        minimum = [0.0] * ncol
        for n, r in enumerate(rows):
            font = self.fonts.bold if n == 0 else self.fonts.regular
            for i, text in enumerate(r):
                natural[i] = max(natural[i], stringWidth(text, font, size) + pad)
                units = unbreakable_units(text) or [""]
                minimum[i] = max(minimum[i], max(stringWidth(u, font, size) for u in units) + pad)
        if sum(minimum) >= avail:  # cannot honour every word: shrink the minimums alike
            return [m * avail / sum(minimum) for m in minimum]
        widths = minimum[:]
        # Water-fill: give every column an equal share of what is left, capped at its natural width.
        open_cols = [i for i in range(ncol) if natural[i] > widths[i]]
        remaining = avail - sum(widths)
        while open_cols and remaining > 0.01:
            share = remaining / len(open_cols)
            for i in list(open_cols):
                grant = min(share, natural[i] - widths[i])
                widths[i] += grant
                remaining -= grant
                if natural[i] - widths[i] <= 0.01:
                    open_cols.remove(i)
        if remaining > 0.01:
            # Everything fits on one line: spare width goes to the wordy columns, so short ones
            # (顺序, 容量) stay narrow.
            total = sum(natural)
            widths = [w + remaining * n / total for w, n in zip(widths, natural)]
        return widths

    def table(self, block: md.Table) -> Flowable:
        texts = [[md.plain(c) for c in block.header]] + [[md.plain(c) for c in r] for r in block.rows]
        data = [[self.para(self.markup(c), "cellhead") for c in block.header]]
        data += [[self.para(self.markup(c), "cell") for c in row] for row in block.rows]
        widths = self._col_widths(texts, self.geom.frame_width)
        t = Table(data, colWidths=widths, repeatRows=1, hAlign="LEFT")
        t.setStyle(self._style([
            ("BACKGROUND", (0, 0), (-1, 0), ACCENT),
            ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f6f1ea")]),
            ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#d8cfc4")),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("TOPPADDING", (0, 0), (-1, -1), 3),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
            ("LEFTPADDING", (0, 0), (-1, -1), TABLE_PAD),
            ("RIGHTPADDING", (0, 0), (-1, -1), TABLE_PAD),
        ]))
        return t

    def callout(self, block: md.Callout) -> Flowable | list[Flowable]:
        inner: list[Flowable] = [self.plain_para(block.title, "callout_title")]
        for b in block.blocks:
            inner.extend(self.block(b))
        bg, line = CALLOUT_COLORS[block.kind]
        t = Table([[inner]], colWidths=[self.geom.frame_width], hAlign="LEFT", splitInRow=1)
        t.setStyle(self._style([
            ("BACKGROUND", (0, 0), (-1, -1), bg),
            ("LINEBEFORE", (0, 0), (0, -1), 2.5, line),
            ("LEFTPADDING", (0, 0), (-1, -1), 9),
            ("RIGHTPADDING", (0, 0), (-1, -1), 8),
            ("TOPPADDING", (0, 0), (-1, -1), 6),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 2),
        ]))
        gap = Spacer(1, self.geom.base_size * 0.8)
        # A short box stays in one piece; a long one may split (its row splits between
        # paragraphs) rather than leave most of a page empty.
        _width, height = t.wrap(self.geom.frame_width, self.geom.size[1])
        if height > (self.geom.size[1] - 2 * self.geom.margin) * CALLOUT_KEEP_MAX:
            return [t, gap]
        return KeepTogether([t, gap])

    def example_card(self, type_id: str) -> list[Flowable]:
        if type_id not in self.game.card_types:
            raise RulebookError(_("section {section!r}: example-card names unknown card type {type!r}")
                               .format(section=self.section, type=type_id))
        card = self.cards.example(type_id)
        notes = self.cards.annotations(card)
        width_mm = 46 if self.geom.half else 58
        art = AnnotatedCard(self.cards.flowable(card, width_mm), *self.cards.size_of(card), notes,
                            self.fonts.regular, self.fonts.bold)
        legend = []
        for n in notes:
            value = n.value if len(n.value) <= 16 else n.value[:15] + "…"
            self.check(n.label + value)
            legend.append(self.para(
                f'<font color="#8a3b12"><b>{CIRCLED[n.number - 1] if n.number <= len(CIRCLED) else n.number}</b></font> '
                f"<b>{escape(n.label)}</b>：{escape(value)}", "body"))
        legend_w = self.geom.frame_width - art.width - 4 * mm
        t = Table([[art, legend]], colWidths=[art.width + 4 * mm, legend_w], hAlign="LEFT")
        t.setStyle(self._style([("VALIGN", (0, 0), (-1, -1), "MIDDLE"), ("LEFTPADDING", (0, 0), (-1, -1), 0)]))
        caption = self.plain_para(f"示例：{card.name}（{self.game.card_types[type_id].name}）", "caption")
        return [KeepTogether([t, Spacer(1, 2 * mm), caption]), Spacer(1, self.geom.base_size)]

    def glossary(self) -> list[Flowable]:
        out: list[Flowable] = [self.plain_para(GLOSSARY_ORDER_NOTE, "note")]
        for n, e in enumerate(self.source.glossary):
            aliases = f"（{'、'.join(e.aliases)}）" if e.aliases else ""
            self.check(e.term + aliases + e.definition + "".join(e.see), f"术语表: {e.term}")
            text = f'<a name="gl-{n}"/><b><font color="#8a3b12">{escape(e.term)}</font></b>{escape(aliases)}　{escape(e.definition)}'
            if e.see:
                links = "、".join(
                    f'<a href="#{self.glossary_keys[s]}" color="#3b7bbf">{escape(s)}</a>' for s in e.see
                )
                text += f'　<font color="#666666">参见：</font>{links}'
            out.append(self.para(text, "glossary"))
        return out

    def gallery(self, type_id: str) -> list[Flowable]:
        cards = self.cards.of_type(type_id) if type_id else self.cards.cards
        if not cards:
            return [self.plain_para("（暂无此类卡牌）", "body")]
        per_row = 4
        gap = 3 * mm
        width_mm = (self.geom.frame_width - gap * (per_row - 1)) / per_row / mm
        width_mm = min(width_mm, GALLERY_CARD_MM["half" if self.geom.half else "full"])
        rows, row = [], []
        for card in cards:
            caption = f"{card.name}"
            number = card.get("number")
            if number:
                caption = f"{number} {caption}"
            self.check(caption, f"{self.section}: {card.id}")
            row.append([self.cards.flowable(card, width_mm), self.para(escape(caption), "caption")])
            if len(row) == per_row:
                rows.append(row)
                row = []
        if row:
            rows.append(row + [Spacer(1, 1)] * (per_row - len(row)))
        col = self.geom.frame_width / per_row
        t = Table(rows, colWidths=[col] * per_row, hAlign="CENTER")
        t.setStyle(self._style([
            ("ALIGN", (0, 0), (-1, -1), "CENTER"), ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 6), ("LEFTPADDING", (0, 0), (-1, -1), 0),
            ("RIGHTPADDING", (0, 0), (-1, -1), 0),
        ]))
        return [t]

    def decks(self) -> list[Flowable]:
        """Each of the game's own decks as ``cardpress deck`` draws it (the same ReportLab
        drawing), scaled to the text block, a deck to a page at most; its caption below."""
        from engine.data.stats import game_deck_stats
        from pipeline.render.charts import deck_drawing

        out: list[Flowable] = []
        room = (self.geom.size[1] - 2 * self.geom.margin) * 0.8
        for stats in game_deck_stats(self.game, self.cards.cards):
            drawing = deck_drawing(stats, self.fonts)  # glyph-checked, or DataError naming the label
            caption = f"{stats.deck.name}：{stats.deck.description}" if stats.deck.description else stats.deck.name
            self.check(caption, f"{self.section}: {stats.deck.name}")
            scale = min(1.0, self.geom.frame_width / drawing.width, room / drawing.height)
            out += [_Centered(_Scaled(drawing, scale)), self.para(escape(caption), "caption"),
                    Spacer(1, self.geom.base_size)]
        return out


class _Scaled(Flowable):
    """A ReportLab drawing drawn at ``scale``."""

    def __init__(self, drawing, scale: float):
        super().__init__()
        self.drawing, self.scale = drawing, scale
        self.width, self.height = drawing.width * scale, drawing.height * scale

    def wrap(self, aw, ah):
        return self.width, self.height

    def draw(self):
        from reportlab.graphics import renderPDF

        self.canv.saveState()
        self.canv.scale(self.scale, self.scale)
        renderPDF.draw(self.drawing, self.canv, 0, 0)
        self.canv.restoreState()


class _Centered(Flowable):
    def __init__(self, inner: Flowable):
        super().__init__()
        self.inner = inner

    def wrap(self, aw, ah):
        self._aw = aw
        w, h = self.inner.wrap(aw, ah)
        self._iw = w
        return aw, h

    def draw(self):
        self.inner.drawOn(self.canv, (self._aw - self._iw) / 2, 0)


def write_pdf(path: Path, source: RulebookSource, doc: md.Document, fonts: FontSet, geom: PageGeometry,
              cards: RulebookCards, progress: Progress | None = None) -> int:
    """Typeset ``doc`` into ``path``; return the page count."""
    setter = Typesetter(source, fonts, geom, cards)
    story = setter.story(doc)
    title = f"{source.game.name} 规则书"
    setter.check(title, _("running header"))
    pdf = RulebookDoc(path, geom, fonts, title, progress)
    pdf.multiBuild(story, maxPasses=6)
    return pdf.page


def cards_pdf(cards: RulebookCards, shown: list) -> bytes:
    """A PDF of the cards ``shown``, one per page at trim size, as the rulebook draws them (the
    HTML rulebook's pictures are rendered from it)."""
    buf = io.BytesIO()
    c = Canvas(buf, initialFontName=cards.fonts.regular)
    for card in shown:
        w, h = cards.size_of(card)  # each card at its own size (a card type may have one)
        c.setPageSize((w * mm, h * mm))
        f = cards.flowable(card, w)
        f.wrapOn(c, f.width, f.height)
        f.drawOn(c, 0, 0)
        c.showPage()
    c.save()
    return buf.getvalue()


def annotated_card_pdf(cards: RulebookCards, card) -> bytes:
    """A one-page PDF of the example card with its numbered leaders (``AnnotatedCard``)."""
    w, h = cards.size_of(card)
    art = AnnotatedCard(cards.flowable(card, w), w, h,
                        cards.annotations(card), cards.fonts.regular, cards.fonts.bold)
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(art.width, art.height), initialFontName=cards.fonts.regular)
    art.wrapOn(c, art.width, art.height)
    art.drawOn(c, 0, 0)
    c.showPage()
    c.save()
    return buf.getvalue()
