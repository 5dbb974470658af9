"""Typeset a rulebook as PDF with ReportLab platypus.

Cover → table of contents (``TableOfContents``, filled by ``afterFlowable`` notifications over
``multiBuild`` passes) → numbered chapters with a running header and page numbers → glossary →
appendix gallery. Every heading is also a PDF bookmark (outline). Every string is checked
against the embedded font before it is typeset (``MissingGlyphs`` names section and characters).

Page numbers are physical page numbers (the cover is page 1, unnumbered), so the numbers in the
TOC are the numbers a PDF viewer shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from xml.sax.saxutils import escape

from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER, TA_LEFT
from reportlab.lib.pagesizes import A4, A5, letter
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch, mm
from reportlab.platypus import (
    BaseDocTemplate, CondPageBreak, Flowable, Frame, KeepTogether, ListFlowable, ListItem,
    NextPageTemplate, PageBreak, PageTemplate, Spacer, Table, TableStyle,
)
from reportlab.platypus import Paragraph as RLParagraph
from reportlab.platypus.tableofcontents import TableOfContents

import pipeline.text  # noqa: F401  (installs the Chinese line-breaking rules)
from pipeline.fonts import FontSet

from . import markdown as md
from .cards import RulebookCards
from .errors import MissingGlyphs, RulebookError
from .source import RulebookSource

Progress = Callable[[str, int, int], None]

PAGE_SIZES = {"a4": A4, "letter": letter}
#: Booklet pages: half the sheet, so two fit side by side on the landscape sheet.
BOOKLET_PAGE_SIZES = {"a4": A5, "letter": (5.5 * inch, 8.5 * inch)}
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
CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"


#: ReportLab paragraph markup for inline Markdown styles.
_RL_TAGS = {"code": ('<font color="#8a3b12">', "</font>"), "em": ("<i>", "</i>"), "strong": ("<b>", "</b>")}


@dataclass(frozen=True)

class PageGeometry:
    size: tuple[float, float]
    margin: float
    base_size: float  # body text size in points

    @property
    def frame_width(self) -> float:
        return self.size[0] - 2 * self.margin

    @property
    def half(self) -> bool:
        return self.size[0] < 160 * mm


def geometry(paper: str, booklet: bool) -> PageGeometry:
    if paper not in PAGE_SIZES:
        raise RulebookError(f"unknown paper {paper!r}: use one of {', '.join(PAGE_SIZES)}")
    if booklet:
        return PageGeometry(BOOKLET_PAGE_SIZES[paper], 14 * mm, 9.0)
    return PageGeometry(PAGE_SIZES[paper], 20 * mm, 10.5)


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
        targets = []
        for note in self.notes:
            targets.append((self.height - note.y_mm * mm * self.scale, note))
        targets.sort(key=lambda t: -t[0])
        # Spread the markers so they never overlap, then shift the column back inside the card.
        ys, last = [], self.height - r + min_gap
        for y, _ in targets:
            ly = min(y, last - min_gap)
            ys.append(ly)
            last = ly
        if ys and ys[-1] < r:
            shift = r - ys[-1]
            ys = [y + shift for y in ys]
            for k in range(len(ys) - 2, -1, -1):  # keep the order after the shift
                ys[k] = max(ys[k], ys[k + 1] + min_gap)
        placed = [(y, ly, note) for (y, note), ly in zip(targets, ys)]
        x_label = self.card.width + self.gutter - r - 1
        for y, ly, note in placed:
            x = note.x_mm * mm * self.scale
            c.setStrokeColor(ACCENT, alpha=0.8)
            c.setLineWidth(0.5)
            c.line(x, y, self.card.width + 2 * mm, y)
            c.line(self.card.width + 2 * mm, y, x_label - r, ly)
            c.setFillColor(ACCENT)
            c.circle(x, y, 0.9 * mm, stroke=0, fill=1)
            c.circle(x_label, ly, r, stroke=0, fill=1)
            c.setFillColor(colors.white)
            c.setFont(self.bold, 8)
            c.drawCentredString(x_label, ly - 2.8, str(note.number))


# ---------------------------------------------------------------------------- doc template


class RulebookDoc(BaseDocTemplate):
    """Cover and body page templates; headings feed the TOC, the outline and the running header."""

    def __init__(self, filename, geom: PageGeometry, fonts: FontSet, book_title: str, progress: Progress | None):
        self.geom, self.fonts, self.book_title, self.progress = geom, fonts, book_title, progress
        self.chapter = ""
        self.last_page_count = 0
        super().__init__(
            str(filename) if isinstance(filename, Path) else filename, pagesize=geom.size, leftMargin=geom.margin, rightMargin=geom.margin,
            topMargin=geom.margin + 6 * mm, bottomMargin=geom.margin, title=book_title,
            author="cardpress", subject="规则书", creator="cardpress", lang="zh-CN",
            initialFontName=fonts.regular, initialFontSize=geom.base_size,
        )
        frame = Frame(self.leftMargin, self.bottomMargin, self.width, self.height, id="body")
        self.addPageTemplates([
            PageTemplate("cover", [frame]),
            PageTemplate("body", [frame], onPageEnd=self._decorate),
        ])

    def beforeDocument(self):
        self.chapter = ""
        self.canv.showOutline()

    def afterPage(self):
        if self.progress:
            self.progress("typesetting", self.page, max(self.last_page_count, self.page))

    def afterFlowable(self, flowable):
        if isinstance(flowable, Bookmark):
            self.chapter = flowable.title  # the running header of the contents pages says 目录
            return
        if not isinstance(flowable, HeadingParagraph):
            return
        h = flowable.heading
        key = h.anchor
        self.canv.bookmarkPage(key)
        self.canv.addOutlineEntry(h.numbered_title, key, level=h.level - 1, closed=h.level > 1)
        if h.level <= 2:
            self.notify("TOCEntry", (h.level - 1, h.numbered_title, self.page, key))
        if h.level == 1:
            self.chapter = h.numbered_title

    def _decorate(self, canv, doc):
        g = self.geom
        w, h = g.size
        canv.saveState()
        canv.setFont(self.fonts.regular, 8)
        canv.setFillColor(MUTED)
        top = h - g.margin + 1 * mm
        canv.drawString(g.margin, top, self.book_title)
        canv.drawRightString(w - g.margin, top, self.chapter)
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
        self.styles = {
            "body": base,
            "h1": ParagraphStyle("h1", base, fontName=fonts.bold, fontSize=s * 1.9, leading=s * 2.5,
                                 spaceBefore=0, spaceAfter=s * 1.2, textColor=ACCENT, keepWithNext=1),
            "h2": ParagraphStyle("h2", base, fontName=fonts.bold, fontSize=s * 1.35, leading=s * 1.9,
                                 spaceBefore=s * 1.1, spaceAfter=s * 0.5, keepWithNext=1),
            "h3": ParagraphStyle("h3", base, fontName=fonts.bold, fontSize=s * 1.1, leading=s * 1.6,
                                 spaceBefore=s * 0.7, spaceAfter=s * 0.3, keepWithNext=1),
            "cell": ParagraphStyle("cell", base, fontSize=s * 0.88, leading=s * 1.3, spaceAfter=0),
            "cellhead": ParagraphStyle("cellhead", base, fontName=fonts.bold, fontSize=s * 0.88,
                                       leading=s * 1.3, spaceAfter=0, textColor=colors.white),
            "callout_title": ParagraphStyle("ct", base, fontName=fonts.bold, spaceAfter=s * 0.3),
            "caption": ParagraphStyle("caption", base, fontSize=s * 0.72, leading=s * 0.95,
                                      alignment=TA_CENTER, spaceAfter=0),
            "glossary": ParagraphStyle("glossary", base, leftIndent=s * 1.5, firstLineIndent=-s * 1.5),
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
            ParagraphStyle("toc1", self.styles["body"], fontName=self.fonts.bold, fontSize=s * 1.05,
                           leading=s * 1.7, leftIndent=s * 1.2, firstLineIndent=-s * 1.2, spaceBefore=s * 0.4,
                           spaceAfter=0),
            ParagraphStyle("toc2", self.styles["body"], fontSize=s * 0.95, leading=s * 1.5,
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
        return story

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
            flow: list[Flowable] = []
            if level == 2:
                flow.append(CondPageBreak(self.geom.base_size * 8))
            flow.append(HeadingParagraph(number + self.markup(block.inline), self.styles[f"h{level}"], block))
            return flow
        if isinstance(block, md.Paragraph):
            return [self.para(self.markup(block.inline), "body")]
        if isinstance(block, md.ListBlock):
            return [self.list_flowable(block)]
        if isinstance(block, md.Table):
            return [self.table(block), Spacer(1, self.geom.base_size * 0.6)]
        if isinstance(block, md.Callout):
            return [self.callout(block)]
        if isinstance(block, md.Directive):
            if block.name == "example-card":
                return self.example_card(block.arg)
            if block.name == "glossary":
                return self.glossary()
            if block.name == "gallery":
                return self.gallery(block.arg)
        raise RulebookError(f"section {self.section!r}: cannot typeset {type(block).__name__}")

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

    def _col_widths(self, rows: list[list[str]], avail: float, font_size: float) -> list[float]:
        from reportlab.pdfbase.pdfmetrics import stringWidth

        ncol = max(len(r) for r in rows)
        pad = 8
        natural = [0.0] * ncol
        minimum = [0.0] * ncol
        for r in rows:
            for i, text in enumerate(r):
                natural[i] = max(natural[i], stringWidth(text, self.fonts.regular, font_size) + pad)
                longest_word = max((len(w) for w in text.split()), default=1)
                minimum[i] = max(minimum[i], min(4, max(2, longest_word if text.isascii() else 2)) * font_size + pad)
        if sum(natural) <= avail:
            # Spare width goes to the wordy columns, so short ones (顺序, 容量) stay narrow.
            scale = avail / sum(natural)
            return [n * scale for n in natural]
        widths = [0.0] * ncol
        remaining, open_cols = avail, list(range(ncol))
        while open_cols:
            share = remaining / len(open_cols)
            fixed = [i for i in open_cols if natural[i] <= share]
            if not fixed:
                for i in open_cols:
                    widths[i] = max(share, minimum[i])
                break
            for i in fixed:
                widths[i] = natural[i]
                remaining -= natural[i]
                open_cols.remove(i)
        scale = avail / sum(widths)
        return [w * scale for w in widths]

    def table(self, block: md.Table) -> Flowable:
        texts = [[md.plain(c) for c in block.header]] + [[md.plain(c) for c in r] for r in block.rows]
        data = [[self.para(self.markup(c), "cellhead") for c in block.header]]
        data += [[self.para(self.markup(c), "cell") for c in row] for row in block.rows]
        widths = self._col_widths(texts, self.geom.frame_width, self.styles["cell"].fontSize)
        t = Table(data, colWidths=widths, repeatRows=1, hAlign="LEFT")
        t.setStyle(self._style([
            ("BACKGROUND", (0, 0), (-1, 0), ACCENT),
            ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f6f1ea")]),
            ("LINEBELOW", (0, 0), (-1, -1), 0.3, colors.HexColor("#d8cfc4")),
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("TOPPADDING", (0, 0), (-1, -1), 3),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
        ]))
        return t

    def callout(self, block: md.Callout) -> Flowable:
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
        return KeepTogether([t, Spacer(1, self.geom.base_size * 0.8)])

    def example_card(self, type_id: str) -> list[Flowable]:
        if type_id not in self.game.card_types:
            raise RulebookError(f"section {self.section!r}: example-card names unknown card type {type_id!r}")
        card = self.cards.example(type_id)
        notes = self.cards.annotations(card)
        width_mm = 46 if self.geom.half else 58
        size = self.game.card_size
        art = AnnotatedCard(self.cards.flowable(card, width_mm), size.width_mm, size.height_mm, notes,
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
        out: list[Flowable] = []
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
    setter.check(title, "running header")
    pdf = RulebookDoc(path, geom, fonts, title, progress)
    pdf.multiBuild(story, maxPasses=6)
    return pdf.page
