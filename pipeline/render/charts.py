"""A deck's shape as a picture, for ``deck-<name>.svg``/``.png`` (``outputs.charts``), the rulebooks and the table page.

Drawn with ReportLab's own charts (``reportlab.graphics.charts.barcharts``) from
``engine.data.stats.deck_stats``: one bar chart per chart of the stats, two to a row, then the
construction rules with ✓/✗ and the numbers. Colours are the game's (``style.yaml``: ``accent``,
``type_colors`` for the type chart, ``<field>_colors`` for an enum field, as duel's
``grade_colors``). Text is the embedded Chinese font; every label is checked against its cmap
first, so nothing prints as a box.

* SVG keeps its text as text (searchable, copyable), with a WOFF2 subset of the font embedded in
  an ``@font-face`` so it shows the same on a machine without the font.
* PNG: ReportLab's ``renderPM`` needs a cairo backend (``rlPyCairo``) that is not installed, so
  the drawing goes through ``renderPDF`` (font embedded) and pypdfium2 rasterises it, as the
  card images are made.
"""

from __future__ import annotations

import base64
import re

from engine.data.stats import Chart, DeckStats
from engine.errors import DataError, Location, Problem
from engine.i18n import _

from .fonts import FontSet, register_fonts, subset_woff2

#: Points (1/72 in) of one chart cell and the page margins.
CELL_W, CELL_H = 270.0, 175.0
MARGIN = 18.0
COLUMNS = 2
HEADER_H = 46.0
RULE_LINE_H = 16.0
#: The PNG's pixels per point: 2 → 144 dpi, sharp on a screen and in a chat.
PNG_SCALE = 2
OK_COLOR, BAD_COLOR = "#2e7d32", "#b71c1c"
#: The first of these the font has marks a broken rule in the picture (the font subset lacks ✗).
BAD_MARKS = ("✗", "✕", "×")
OK_MARKS = ("✓", "√")


def _mark(fonts: FontSet, marks: tuple[str, ...]) -> str:
    return next((m for m in marks if not fonts.missing(m)), marks[-1])


def size_pt(stats: DeckStats) -> tuple[float, float]:
    rows = -(-len(stats.charts) // COLUMNS)
    width = 2 * MARGIN + COLUMNS * CELL_W
    height = 2 * MARGIN + HEADER_H + rows * CELL_H + 24 + len(stats.rules) * RULE_LINE_H
    return width, height


def png_size(stats: DeckStats) -> tuple[int, int]:
    """The PNG's size in pixels."""
    w, h = size_pt(stats)
    return round(w * PNG_SCALE), round(h * PNG_SCALE)


def _texts(stats: DeckStats, ok: str, bad: str) -> list[tuple[str, str]]:
    """(what, text) of every label the picture prints, for the glyph check."""
    out = [(_("deck name"), stats.deck.name), (_("game name"), stats.game.name)]
    for chart in stats.charts:
        out.append((_("chart {field!r} title").format(field=chart.field), chart.caption))
        out.extend((_("chart {field!r} bar").format(field=chart.field), bar.label) for bar in chart.bars)
    for rule in stats.rules:
        out.append((_("rule {rule!r}").format(rule=rule.label), f"{ok}{bad}{rule.label}{rule.allowed}{rule.actual}要求：（）张"))
    return out


def _check_glyphs(stats: DeckStats, fonts: FontSet, ok: str, bad: str) -> None:
    problems = []
    for what, text in _texts(stats, ok, bad):
        missing = fonts.missing(text)
        if missing:
            problems.append(Problem(_("the font has no glyph for {missing!r} (in {what}: {text!r})")
                                    .format(missing=missing, what=what, text=text[:40]),
                                    Location(stats.deck.path or stats.game.card_data_dir / "game.yaml")))
    if problems:
        raise DataError(problems)


def _bar_chart(chart: Chart, x: float, y: float, fonts: FontSet, colors: dict):
    from reportlab.graphics.charts.barcharts import VerticalBarChart
    from reportlab.graphics.shapes import Group, String
    from reportlab.lib.colors import HexColor

    group = Group()
    group.add(String(x + 8, y + CELL_H - 20, chart.caption, fontName=fonts.bold,
                     fontSize=11, fillColor=HexColor(colors["ink"])))
    bc = VerticalBarChart()
    bc.x, bc.y = x + 30, y + 30
    bc.width, bc.height = CELL_W - 46, CELL_H - 68
    counts = [b.count for b in chart.bars]
    bc.data = [counts]
    bc.strokeColor = None
    bc.valueAxis.valueMin = 0
    top = max(counts, default=0)
    bc.valueAxis.valueMax = max(1, top + max(1, top // 6))
    bc.valueAxis.valueStep = max(1, -(-bc.valueAxis.valueMax // 5))
    bc.valueAxis.labels.fontName = fonts.regular
    bc.valueAxis.labels.fontSize = 7
    bc.valueAxis.strokeColor = HexColor(colors["ink"])
    bc.categoryAxis.categoryNames = [b.label for b in chart.bars]
    bc.categoryAxis.labels.fontName = fonts.regular
    bc.categoryAxis.labels.fontSize = 8 if len(chart.bars) <= 8 else 7
    bc.categoryAxis.labels.dy = -2
    if sum(len(b.label) for b in chart.bars) > 24:  # long Chinese labels: slant them to fit
        bc.categoryAxis.labels.angle = 30
        bc.categoryAxis.labels.boxAnchor = "ne"
    bc.categoryAxis.strokeColor = HexColor(colors["ink"])
    bc.barLabelFormat = "%d"
    bc.barLabels.fontName = fonts.bold
    bc.barLabels.fontSize = 8
    bc.barLabels.nudge = 6
    bc.barSpacing = 1
    bc.groupSpacing = 4
    bc.bars[0].fillColor = HexColor(colors["accent"])
    bc.bars[0].strokeColor = None
    own = colors.get("per_bar", {}).get(chart.field, {})
    for i, bar in enumerate(chart.bars):
        color = own.get(str(bar.key))
        if color:
            bc.bars[(0, i)].fillColor = HexColor(color)
    group.add(bc)
    return group


def _colors(stats: DeckStats) -> dict:
    """accent/ink and, per chart field, the colour of each bar key from style.yaml."""
    from ..layout import Layouts

    style = Layouts(stats.game).style.data
    per_bar = {"type": dict(style.get("type_colors", {}))}
    for chart in stats.charts:
        named = style.get(f"{chart.field}_colors")
        if isinstance(named, dict):
            per_bar[chart.field] = dict(named)
    return {"accent": style.get("accent", "#3a4a5c"), "ink": style.get("ink", "#1e1e1e"),
            "paper": style.get("paper", "#ffffff"), "per_bar": per_bar}


def deck_drawing(stats: DeckStats, fonts: FontSet | None = None):
    """The ReportLab ``Drawing`` of the deck's shape (glyphs checked: ``DataError`` otherwise)."""
    from reportlab.graphics.shapes import Drawing, Line, Rect, String
    from reportlab.lib.colors import HexColor

    fonts = fonts or register_fonts()
    ok, bad = _mark(fonts, OK_MARKS), _mark(fonts, BAD_MARKS)
    _check_glyphs(stats, fonts, ok, bad)
    colors = _colors(stats)
    width, height = size_pt(stats)
    d = Drawing(width, height, initialFontName=fonts.regular)
    d.add(Rect(0, 0, width, height, fillColor=HexColor(colors["paper"]), strokeColor=None))
    verdict = "合法" if stats.legal else f"不合法（{len(stats.problems)} 处）"
    d.add(String(MARGIN, height - MARGIN - 20, f"{stats.deck.name}", fontName=fonts.bold, fontSize=18,
                 fillColor=HexColor(colors["accent"])))
    d.add(String(MARGIN, height - MARGIN - 38, f"{stats.game.name} · {stats.size} 张 · {verdict}",
                 fontName=fonts.regular, fontSize=10, fillColor=HexColor(colors["ink"])))
    d.add(Line(MARGIN, height - MARGIN - HEADER_H + 2, width - MARGIN, height - MARGIN - HEADER_H + 2,
               strokeColor=HexColor(colors["accent"]), strokeWidth=1))
    top = height - MARGIN - HEADER_H
    for n, chart in enumerate(stats.charts):
        row, col = divmod(n, COLUMNS)
        d.add(_bar_chart(chart, MARGIN + col * CELL_W, top - (row + 1) * CELL_H, fonts, colors))
    rows = -(-len(stats.charts) // COLUMNS)
    y = top - rows * CELL_H - 18
    d.add(String(MARGIN, y, "构筑规则", fontName=fonts.bold, fontSize=11, fillColor=HexColor(colors["ink"])))
    for rule in stats.rules:
        y -= RULE_LINE_H
        d.add(String(MARGIN + 8, y, ok if rule.ok else bad, fontName=fonts.bold, fontSize=10,
                     fillColor=HexColor(OK_COLOR if rule.ok else BAD_COLOR)))
        d.add(String(MARGIN + 24, y, f"{rule.label}：{rule.actual}（要求 {rule.allowed}）", fontName=fonts.regular,
                     fontSize=10, fillColor=HexColor(colors["ink"] if rule.ok else BAD_COLOR)))
    return d


def svg_text(drawing, fonts: FontSet) -> str:
    """The drawing as SVG with the font subset embedded (text stays text)."""
    from reportlab.graphics import renderSVG

    svg = renderSVG.drawToString(drawing)
    chars = "".join(sorted(set(re.sub(r"<[^>]*>", "", svg)))) + "0123456789"
    faces = []
    for name, path in ((fonts.regular, fonts.paths[0]), (fonts.bold, fonts.paths[1])):
        data = base64.b64encode(subset_woff2(path, chars, keep_names=True)).decode("ascii")
        faces.append(f'@font-face{{font-family:{name};src:url(data:font/woff2;base64,{data}) format("woff2")}}')
    style = f"<style>{''.join(faces)}</style>"
    head_end = svg.index(">", svg.index("<svg")) + 1
    return svg[:head_end] + style + svg[head_end:]


def png_image(drawing):
    """The drawing as a Pillow image, ``PNG_SCALE`` pixels per point (through ``renderPDF``)."""
    from reportlab.graphics import renderPDF

    from .raster import page_image

    return page_image(renderPDF.drawToString(drawing), scale=PNG_SCALE, rgb=False)


#: The font family of the HTML rulebook's and the table page's web font subsets (both name
#: their ``@font-face`` so): an inline picture's text is set in it, so its glyphs come from the
#: page's own subset, which is cut from the page's text — the picture's labels included.
WEB_FONT_FAMILY = "Cardpress Sans SC"
_STYLE_ATTR = re.compile(r' style="([^"]*)"')
_ID_REF = re.compile(r'(id="|url\(#)(clip|group)\b')


def _presentation(fonts: FontSet, family: str):
    """``style="a: b; c: d"`` → ``a="b" c="d"`` (SVG presentation attributes): a page whose
    Content-Security-Policy forbids inline styles (the table page's) still draws them."""
    faces = {fonts.regular: "400", fonts.bold: "700"}

    def swap(m: re.Match) -> str:
        attrs = []
        for decl in m.group(1).split(";"):
            key, sep, value = decl.partition(":")
            key, value = key.strip(), value.strip()
            if not sep or not key:
                continue
            if key == "font-family":
                attrs.append(f'font-weight="{faces.get(value, "400")}"')
                value = family
            attrs.append(f'{key}="{value}"')
        return " " + " ".join(attrs) if attrs else ""
    return swap


def inline_svg(stats: DeckStats, fonts: FontSet | None = None, ident: str = "deck",
               family: str = WEB_FONT_FAMILY) -> str:
    """The deck's picture as an ``<svg>`` element to put inside an HTML page: no XML prolog, no
    embedded font (its text is set in the page's ``family``), no ``style`` attributes, ids
    prefixed with ``ident`` (several pictures on one page), as wide as its container; the SVG
    namespace is declared, so the element is SVG in a page read as XHTML too. Labels are
    glyph-checked as for the files (``DataError`` naming the label otherwise)."""
    from html import escape

    from reportlab.graphics import renderSVG

    fonts = fonts or register_fonts()
    drawing = deck_drawing(stats, fonts)
    svg = renderSVG.drawToString(drawing)
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"\s*<title>.*?</title>\s*<desc>.*?</desc>", "", svg, count=1, flags=re.S)
    # The clip to the drawing's own box is the <svg> viewport's already (and a url(#…) less).
    svg = re.sub(r"<clipPath id=\"clip\">.*?</clipPath>", "", svg, count=1, flags=re.S)
    svg = svg.replace('style="clip-path: url(#clip)"', "", 1)
    svg = _STYLE_ATTR.sub(_presentation(fonts, family), svg)
    svg = _ID_REF.sub(lambda m: f"{m.group(1)}{ident}-{m.group(2)}", svg)
    label = escape(f"{stats.deck.name}：{stats.size} 张", quote=True)
    width, height = size_pt(stats)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height:g}" class="deck-picture" '
            f'role="img" aria-label="{label}" width="100%" preserveAspectRatio="xMinYMin meet">')
    svg = head + svg[svg.index(">", svg.index("<svg")) + 1:]
    return re.sub(r">\s+<", "><", svg).strip()


def picture_text(svg: str) -> str:
    """The text an inline picture prints (for a page's glyph check and font subset)."""
    from html import unescape

    return unescape("".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg)))
