"""One self-contained HTML rulebook: inline CSS, card images as data URIs, no external URL.

Written as XHTML-compatible HTML5 (every element closed, void elements self-closed) so it parses
as XML as well as HTML; readable on a phone (fluid width, large type, sticky contents button).
"""

from __future__ import annotations

import base64
import io
from html import escape


from pipeline.render.fonts import FontSet, subset_woff2

from . import markdown as md
from .cards import RulebookCards
from .errors import MissingGlyphs
from .source import GLOSSARY_ORDER_NOTE, RulebookSource

#: The widest a picture is shown, in CSS px: the anatomy figure, a gallery thumbnail, a card
#: opened from the gallery. Images carry twice as many pixels (``PIXEL_DENSITY``), so they stay
#: sharp on a 2x phone screen.
#: A card opened from the gallery is shown at the thumbnail's own pixels (twice the thumbnail's
#: size, 1x density): 2x pixels there too would quadruple a 70-card page (8.7 MB measured).
SHOWN_PX = {"example": 340, "gallery": 170, "open": 340}
PIXEL_DENSITY = 2
CARD_PX = {"example": SHOWN_PX["example"] * PIXEL_DENSITY, "gallery": SHOWN_PX["gallery"] * PIXEL_DENSITY}
_HTML_TAGS = {"code": ("<code>", "</code>"), "em": ("<em>", "</em>"), "strong": ("<strong>", "</strong>")}


def _subset_woff2(path, text: str) -> str:
    """Base64 WOFF2 of the font at ``path`` keeping only the glyphs ``text`` needs (cached by content)."""
    return base64.b64encode(subset_woff2(path, text + "0123456789")).decode("ascii")
#: Gallery thumbnails are JPEG (a tenth of the PNG size; the 70-card backrooms page drops from 2 MB).
GALLERY_JPEG_QUALITY = 82

#: Below 58rem there is no margin beside the 46rem text column for the contents button, so it
#: becomes a bar along the bottom edge; the page's bottom padding (4.5rem) is taller than the
#: button (2.75rem), so the last lines scroll clear of it. Wider, it sits in the right margin.
CSS = """
:root{--ink:#222;--muted:#666;--accent:#8a3b12;--line:#d8cfc4;--paper:#fffdf9}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:var(--paper);color:var(--ink);font:17px/1.75 "Cardpress Sans SC","Noto Sans SC","PingFang SC","Microsoft YaHei",sans-serif}
main{max-width:46rem;margin:0 auto;padding:1rem 1.1rem 4.5rem}
header.cover{text-align:center;padding:2.5rem 0 1rem}
header.cover h1{font-size:2.3rem;color:var(--accent);margin:.2rem 0}
header.cover p{color:var(--muted);margin:.2rem 0}
nav.toc{background:#f6f1ea;border-radius:8px;padding:.6rem 1rem;margin:1rem 0 2rem}
nav.toc ol{list-style:none;padding-left:0;margin:.3rem 0}
nav.toc ol ol{padding-left:1.2rem;font-size:.92rem}
nav.toc a{color:var(--ink);text-decoration:none}
h1,h2,h3{line-height:1.35;scroll-margin-top:.5rem}
h1{color:var(--accent);border-bottom:2px solid var(--accent);padding-bottom:.2rem;margin-top:2.6rem}
h2{margin-top:1.8rem}
.num{color:var(--accent);margin-right:.4em}
table{border-collapse:collapse;width:100%;font-size:.9rem;margin:.6rem 0 1.2rem;display:block;overflow-x:auto}
th{background:var(--accent);color:#fff;text-align:left;padding:.35rem .5rem;white-space:nowrap}
td{border-bottom:1px solid var(--line);padding:.35rem .5rem;vertical-align:top}
tr:nth-child(even) td{background:#f6f1ea}
aside{border-left:4px solid;border-radius:4px;padding:.5rem .9rem;margin:1rem 0}
aside>p:first-child{font-weight:bold;margin:.1rem 0 .3rem}
aside.house{background:#fff4e0;border-color:#c77d00}
aside.note{background:#eaf2fb;border-color:#3b7bbf}
aside.example{background:#edf7ed;border-color:#3f8f4f}
figure.anatomy{display:flex;flex-wrap:wrap;gap:1rem;align-items:center;margin:1rem 0}
figure.anatomy img{width:min(100%,%(example)spx);height:auto}
figure.anatomy ol{margin:0;padding-left:1.4rem}
figcaption{width:100%;color:var(--muted);font-size:.85rem}
figure.deck{margin:1rem 0 1.6rem}
figure.deck svg{display:block;width:100%;height:auto;border:1px solid var(--line);border-radius:6px}
dl.glossary dt{font-weight:bold;color:var(--accent);margin-top:.8rem}
dl.glossary dd{margin:0 0 0 1rem}
.see,.order{color:var(--muted);font-size:.9rem}
.gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:.8rem}
.gallery figure{margin:0;text-align:center;font-size:.8rem}
.gallery img{width:100%;max-width:%(gallery)spx;height:auto;border-radius:6px}
.gallery figure a.close{display:none}
.gallery figure:target{position:fixed;inset:0;z-index:2;margin:0;background:rgba(20,16,12,.88);color:#fff;
display:flex;flex-direction:column;align-items:center;justify-content:center;gap:.6rem;font-size:1rem}
.gallery figure:target img{width:min(90vw,%(open)spx);max-width:none}
.gallery figure:target a.close,.gallery figure:target figcaption{display:block;color:#fff;font-size:1rem}
a.top{position:fixed;right:1rem;bottom:1rem;height:2.75rem;line-height:2.75rem;background:var(--accent);color:#fff;
border-radius:2rem;padding:0 1rem;text-decoration:none;font-size:.9rem;box-shadow:0 2px 6px rgba(0,0,0,.25)}
@media (max-width:58rem){a.top{left:0;right:0;bottom:0;border-radius:0;text-align:center;box-shadow:none}}
@media print{a.top,nav.toc{display:none}}
""".replace("%(example)s", str(SHOWN_PX["example"])).replace("%(gallery)s", str(SHOWN_PX["gallery"])).replace(
    "%(open)s", str(SHOWN_PX["open"]))


def card_images(cards: RulebookCards, wanted: list[tuple[object, int]], jpeg: bool = False) -> list[str]:
    """PNG (or JPEG) data URIs of cards, each ``px`` wide, drawn by the card renderer."""
    from ..render.raster import page_image
    from .pdf import cards_pdf

    if not wanted:
        return []
    pdf = cards_pdf(cards, [card for card, _px in wanted])
    out = []
    for n, (_, px) in enumerate(wanted):
        image = page_image(pdf, n, width_px=px, rgb=False)
        buf_img = io.BytesIO()
        if jpeg:
            image.convert("RGB").save(buf_img, format="JPEG", quality=GALLERY_JPEG_QUALITY, optimize=True)
        else:
            image.save(buf_img, format="PNG", optimize=True)
        mime = "image/jpeg" if jpeg else "image/png"
        out.append(f"data:{mime};base64," + base64.b64encode(buf_img.getvalue()).decode("ascii"))
    return out


def annotated_card_image(cards: RulebookCards, card, px: int) -> str:
    """PNG data URI of the example card with its numbered leaders (the PDF's ``AnnotatedCard``),
    ``px`` wide, so the numbers in the list point at the card in the picture."""
    from ..render.raster import page_image
    from .pdf import annotated_card_pdf

    image = page_image(annotated_card_pdf(cards, card), width_px=px, rgb=False)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode("ascii")


class HtmlWriter:
    def __init__(self, source: RulebookSource, cards: RulebookCards, fonts: FontSet):
        self.source, self.game, self.cards, self.fonts = source, source.game, cards, fonts
        self.section = "cover"

    def check(self, text: str) -> None:
        missing = self.fonts.missing(text)
        if missing:  # the HTML is read with other fonts, but it must say what the PDF says
            raise MissingGlyphs(self.section, missing)

    def inline(self, inline: md.Inline) -> str:
        return md.render_spans(inline, lambda t: escape(t, quote=False), "<br />", _HTML_TAGS)

    def block(self, b: md.Block) -> str:
        if isinstance(b, md.Heading):
            self.section = b.numbered_title
            return (f'<h{b.level} id="{b.anchor}"><span class="num">{escape(b.number)}</span>'
                    f"{self.inline(b.inline)}</h{b.level}>")
        if isinstance(b, md.Paragraph):
            return f"<p>{self.inline(b.inline)}</p>"
        if isinstance(b, md.ListBlock):
            tag = "ol" if b.ordered else "ul"
            start = f' start="{b.start}"' if b.ordered and b.start != 1 else ""
            items = "".join("<li>" + "".join(self.item_block(x) for x in item) + "</li>" for item in b.items)
            return f"<{tag}{start}>{items}</{tag}>"
        if isinstance(b, md.Table):
            head = "".join(f"<th>{self.inline(c)}</th>" for c in b.header)
            rows = "".join("<tr>" + "".join(f"<td>{self.inline(c)}</td>" for c in r) + "</tr>" for r in b.rows)
            return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        if isinstance(b, md.Callout):
            inner = "".join(self.block(x) for x in b.blocks)
            return f'<aside class="{b.kind}"><p>{escape(b.title)}</p>{inner}</aside>'
        if isinstance(b, md.Directive):
            if b.name == "example-card":
                return self.example_card(b.arg)
            if b.name == "glossary":
                return self.glossary()
            if b.name == "gallery":
                return self.gallery(b.arg)
            if b.name == "decks":
                return self.decks()
        return ""

    def item_block(self, b: md.Block) -> str:
        # A tight list item's paragraph is written without <p> so lists stay compact.
        if isinstance(b, md.Paragraph):
            return self.inline(b.inline)
        return self.block(b)

    def example_card(self, type_id: str) -> str:
        card = self.cards.example(type_id)
        uri = annotated_card_image(self.cards, card, CARD_PX["example"])
        notes = "".join(f"<li><strong>{escape(n.label)}</strong>：{escape(n.value)}</li>"
                        for n in self.cards.annotations(card))
        name = escape(f"示例：{card.name}（{self.game.card_types[type_id].name}）")
        return (f'<figure class="anatomy"><img src="{uri}" alt="{escape(card.name)}" /><ol>{notes}</ol>'
                f"<figcaption>{name}</figcaption></figure>")

    def glossary(self) -> str:
        keys = {name: f"gl-{n}" for n, e in enumerate(self.source.glossary) for name in e.names}
        parts = []
        for n, e in enumerate(self.source.glossary):
            aliases = f"（{'、'.join(e.aliases)}）" if e.aliases else ""
            see = ""
            if e.see:
                see = ' <span class="see">参见：' + "、".join(
                    f'<a href="#{keys[s]}">{escape(s)}</a>' for s in e.see) + "</span>"
            parts.append(f'<dt id="gl-{n}">{escape(e.term)}{escape(aliases)}</dt><dd>{escape(e.definition)}{see}</dd>')
        return f'<p class="order">{escape(GLOSSARY_ORDER_NOTE)}</p><dl class="glossary">{"".join(parts)}</dl>'

    def gallery(self, type_id: str) -> str:
        """Thumbnails (2x pixels); tapping one opens it at twice the size (CSS ``:target``, no
        script); 关闭 closes it."""
        cards = self.cards.of_type(type_id) if type_id else self.cards.cards
        uris = card_images(self.cards, [(c, CARD_PX["gallery"]) for c in cards], jpeg=True)
        back = f"gallery-{type_id or 'all'}"
        figs = "".join(
            f'<figure id="card-{escape(c.id)}"><a href="#card-{escape(c.id)}"><img src="{u}" alt="{escape(c.name)}" '
            f'loading="lazy" /></a><figcaption>{escape(c.name)}</figcaption>'
            f'<a class="close" href="#{back}">关闭</a></figure>'
            for c, u in zip(cards, uris))
        return f'<div class="gallery" id="{back}">{figs}</div>'

    def decks(self) -> str:
        """Each of the game's own decks as ``cardpress deck`` draws it, inline SVG: its text
        is text (selectable, searchable) set in the page's font, whose subset is cut from the
        page and so holds the pictures' labels; they are glyph-checked as every other text."""
        from engine.data.stats import game_deck_stats
        from pipeline.render.charts import inline_svg, picture_text

        figs = []
        for n, stats in enumerate(game_deck_stats(self.game, self.cards.cards)):
            stem = stats.deck.path.stem if stats.deck.path else str(n)
            svg = inline_svg(stats, self.fonts, ident=f"deck-{n}")
            caption = f"{stats.deck.name}：{stats.deck.description}" if stats.deck.description else stats.deck.name
            self.check(picture_text(svg) + caption)
            figs.append(f'<figure class="deck" id="deck-{escape(stem)}">{svg}'
                        f"<figcaption>{escape(caption)}</figcaption></figure>")
        return "".join(figs)

    def toc(self, doc: md.Document) -> str:
        out, open_sub = ["<ol>"], False
        for h in doc.headings():
            if h.level > 2:
                continue
            link = f'<a href="#{h.anchor}">{escape(h.numbered_title)}</a>'
            if h.level == 1:
                if open_sub:
                    out.append("</ol></li>")
                    open_sub = False
                elif len(out) > 1:
                    out.append("</li>")
                out.append(f"<li>{link}")
            else:
                if not open_sub:
                    out.append("<ol>")
                    open_sub = True
                out.append(f"<li>{link}</li>")
        out.append("</ol></li>" if open_sub else "</li>" if len(out) > 1 else "")
        out.append("</ol>")
        return "".join(out)

    def font_faces(self, text: str) -> str:
        """@font-face rules embedding our fonts, subset to the characters of ``text``.

        A reader without a CJK font (many e-readers, a bare Linux) would otherwise see boxes;
        with the subset the page looks the same everywhere and stays one file.
        """
        rules = []
        for weight, path in zip((400, 700), self.fonts.paths):
            rules.append(
                f'@font-face{{font-family:"Cardpress Sans SC";font-weight:{weight};font-display:swap;'
                f'src:url(data:font/woff2;base64,{_subset_woff2(path, text)}) format("woff2")}}'
            )
        return "".join(rules)

    def document(self, doc: md.Document) -> str:
        g = self.game
        body = "".join(self.block(b) for b in doc.blocks)
        title = escape(f"{g.name} 规则书")
        sub = f"<p>{escape(g.name_en)}</p>" if g.name_en else ""
        content = (
            f'<header class="cover" id="top"><h1>{escape(g.name)}</h1>{sub}<p>规则书 · 版本 {escape(g.version)}</p></header>'
            f'<nav class="toc"><strong>目录</strong>{self.toc(doc)}</nav>'
            f'{body}</main><a class="top" href="#top">目录 ↑</a>'
        )
        return (
            "<!DOCTYPE html>\n"
            f'<html lang="zh-CN"><head><meta charset="utf-8" />'
            f'<meta name="viewport" content="width=device-width, initial-scale=1" />'
            f"<title>{title}</title><style>{self.font_faces(title + content)}{CSS}</style></head><body><main>"
            f"{content}</body></html>\n"
        )
