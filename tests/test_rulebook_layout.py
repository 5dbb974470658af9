"""Rulebook layout, read back from the built books: table columns, example-card leaders, bold,
page fill, the text block's edges, heading space, running heads, booklet size, glossary order,
and the HTML book in a phone-sized browser.

Everything is measured on the produced PDF (pdfplumber's chars, rects and curves) or HTML, the
way a reader meets it; the expectations come from the Markdown source and the page geometry.
"""

from __future__ import annotations

import base64
import io
import os
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pdfplumber
import pytest
from PIL import Image
from pypdf import PdfReader

from pipeline.rulebook import markdown as md
from pipeline.rulebook.build import prepare
from pipeline.rulebook.markdown import parse_blocks
from pipeline.rulebook.pdf import ACCENT, geometry, write_pdf
from pipeline.rulebook.source import glossary_key

GAMES = ("backrooms", "duel", "ridm")


class _Page:
    """One page of a PDF as pdfplumber reads it, read once: its objects and its text."""

    def __init__(self, page):
        self.chars, self.rects, self.lines, self.curves, self.images = (
            page.chars, page.rects, page.lines, page.curves, page.images)
        self._text = page.extract_text() or ""

    def extract_text(self) -> str:
        return self._text


class _Parsed:
    def __init__(self, path: Path):
        with pdfplumber.open(path) as pdf:
            self.pages = [_Page(page) for page in pdf.pages]

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None


_PARSED: dict[Path, _Parsed] = {}


def plumbed(path: Path) -> _Parsed:
    """The book at ``path`` parsed by pdfplumber once for the whole module (parsing a 26-page
    book is seconds; a dozen tests read the same three books)."""
    if path not in _PARSED:
        _PARSED[path] = _Parsed(path)
    return _PARSED[path]
_HAN = re.compile(r"[\u3400-\u9fff]+")


@pytest.fixture(scope="module")
def books(rulebook_pdfs):
    """{game: path} of each shipped game's A4 rulebook (built once for the run)."""
    return rulebook_pdfs


@pytest.fixture(scope="module")
def booklet_pages(tmp_path_factory):
    """The backrooms booklet's pages before imposition (what each half of a sheet shows)."""
    source, doc, cards = prepare("backrooms")
    path = tmp_path_factory.mktemp("booklet") / "pages.pdf"
    write_pdf(path, source, doc, cards.fonts, geometry("a4", booklet=True), cards)
    return path


def lines_of(chars: list[dict], tol: float = 1.0) -> list[list[dict]]:
    """Chars grouped into printed lines (same baseline, same size), top to bottom, left to right."""
    rows: dict[tuple[int, int], list[dict]] = {}
    for c in chars:
        if c["text"].isspace():
            continue
        rows.setdefault((round(c["bottom"] / tol), round(c["size"] * 10)), []).append(c)
    return [sorted(r, key=lambda c: c["x0"]) for _, r in sorted(rows.items())]


def fragments(line: list[dict]) -> list[list[dict]]:
    """A line split where the gap between glyphs is wider than a third of the type size (a column gap)."""
    out = [[line[0]]]
    for a, b in zip(line, line[1:]):
        if b["x0"] - a["x1"] > a["size"] / 3:
            out.append([])
        out[-1].append(b)
    return out


def body_pages(path: Path) -> tuple[list[int], set[int]]:
    """(0-based pages from the first chapter on, 0-based pages on which a chapter starts)."""
    reader = PdfReader(str(path))
    starts = set()
    for item in reader.outline:
        if isinstance(item, list):
            continue
        if re.match(r"^\d+ ", item.title):
            starts.add(reader.get_destination_page_number(item))
    return list(range(min(starts), len(reader.pages))), starts


# ---------------------------------------------------------------------------- 1. table columns


def word_cells(game: str) -> set[str]:
    """The game's table cells made of words: every run of Han glyphs between punctuation or
    spaces is 2–4 glyphs long (容量, 背面朝上, 先锋、近卫、重装…). Sentences, with longer runs,
    may break between any two glyphs, as Chinese running text does."""
    _, doc, _ = prepare(game)
    cells = set()
    for b in md.walk(doc.blocks):
        if isinstance(b, md.Table):
            for row in [b.header, *b.rows]:
                for cell in row:
                    text = re.sub(r"\s+", "", md.plain(cell))
                    runs = _HAN.findall(text)
                    if runs and all(len(r) <= 4 for r in runs) and any(len(r) >= 2 for r in runs):
                        cells.add(text)
    return cells


def _inside_word(text: str, at: int) -> bool:
    """Is position ``at`` (between text[at-1] and text[at]) inside a 2–4 glyph Han run?"""
    return 0 < at < len(text) and all(_HAN.fullmatch(ch) for ch in (text[at - 1], text[at]))


@pytest.mark.parametrize("game", GAMES)
def test_table_columns_never_break_a_short_word(books, game):
    cells = word_cells(game)
    assert cells, "the book has tables with words in them"
    broken = []
    width = geometry("a4", booklet=False).frame_width
    with plumbed(books[game]) as pdf:
        for n, page in enumerate(pdf.pages, 1):
            # A table row is a full-width band; two lines of one cell lie in one band.
            rows = [r for r in page.rects if r["width"] >= 0.9 * width and r["height"] < 150]
            for row in rows:
                inside = [c for c in page.chars if row["top"] <= c["top"] and c["bottom"] <= row["bottom"]]
                if inside:
                    broken += split_words(lines_of(inside), cells, n)
    assert not broken, f"words broken across lines in table cells (page, cell line / next line): {broken}"


def split_words(lines: list[list[dict]], cells: set[str], page: int) -> list[tuple[int, str]]:
    """Places where one line of a column and the next line split a word of one of ``cells``."""
    broken = []
    for upper, lower in zip(lines, lines[1:]):
        size = upper[0]["size"]
        if lower[0]["size"] != size or not 0 < lower[0]["bottom"] - upper[0]["bottom"] <= 2 * size:
            continue  # not two consecutive lines of one paragraph (all lines here are in one table row)
        for f in fragments(upper):
            for g in fragments(lower):
                if abs(f[0]["x0"] - g[0]["x0"]) > 1:
                    continue  # not the same column
                head, tail = "".join(c["text"] for c in f), "".join(c["text"] for c in g)
                for cell in cells:
                    at = cell.find(head + tail)
                    if at >= 0 and _inside_word(cell, at + len(head)):
                        broken.append((page, f"{head}/{tail}"))
    return broken


# ---------------------------------------------------------------------------- 2. example card


def _is_accent(color) -> bool:
    want = (ACCENT.red, ACCENT.green, ACCENT.blue)
    return isinstance(color, (tuple, list)) and len(color) == 3 and all(abs(a - b) < 0.02 for a, b in zip(color, want))


def _segments(obj) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    pts = obj.get("pts") or [(obj["x0"], obj["top"]), (obj["x1"], obj["bottom"])]
    return list(zip(pts, pts[1:]))


def _crosses(a, b, box) -> bool:
    """Does segment a–b pass through the inside of box (x0, top, x1, bottom)?"""
    x0, t, x1, btm = box
    (ax, ay), (bx, by) = a, b
    for k in np.linspace(0, 1, 200):
        x, y = ax + (bx - ax) * k, ay + (by - ay) * k
        if x0 < x < x1 and t < y < btm:
            return True
    return False


@pytest.mark.parametrize("game", GAMES)
def test_example_card_leaders_cross_no_text(books, game):
    with plumbed(books[game]) as pdf:
        page = next(p for p in pdf.pages if "示例：" in (p.extract_text() or ""))
        leaders = [o for o in page.curves + page.lines if _is_accent(o.get("stroking_color"))]
        assert len(leaders) >= 5, "the example card's leader lines are drawn"
        # The glyphs' ink, not their em boxes: an em box is a little taller than its glyph.
        boxes = [(c["x0"] + 0.3, c["top"] + c["size"] * 0.12, c["x1"] - 0.3, c["bottom"] - c["size"] * 0.12, c["text"])
                 for c in page.chars if not c["text"].isspace() and c.get("non_stroking_color") not in ((1, 1, 1), [1, 1, 1])]
        hits = {(box[4]) for leader in leaders for a, b in _segments(leader) for box in boxes
                if _crosses(a, b, box[:4])}
    assert not hits, f"leader lines cross the text {sorted(hits)}"


def test_leaders_are_numbered_in_the_order_they_leave_the_card():
    _, _, cards = prepare("ridm")
    notes = cards.annotations(cards.example("operator"))
    exits = [n.exit_y_mm for n in notes]
    assert exits == sorted(exits) and [n.number for n in notes] == list(range(1, len(notes) + 1))


# ---------------------------------------------------------------------------- 3. bold


def test_bold_closing_after_cjk_punctuation_is_parsed():
    (p,) = parse_blocks("**卡牌效果高于规则。**卡牌文字与本规则书冲突时，以卡牌为准。")
    assert [(s.text, s.strong) for s in p.inline] == [("卡牌效果高于规则。", True), ("卡牌文字与本规则书冲突时，以卡牌为准。", False)]
    (p,) = parse_blocks("不如人意的**《李茶的姑妈》**已经")
    assert [s.text for s in p.inline if s.strong] == ["《李茶的姑妈》"]
    (p,) = parse_blocks("snake_case_name and a*b*c")  # Latin rules unchanged
    assert [(s.text, s.em) for s in p.inline] == [("snake_case_name and a", False), ("b", True), ("c", False)]


def strong_spans(game: str) -> list[str]:
    _, doc, _ = prepare(game)
    out = []
    for b in md.walk(doc.blocks):
        if isinstance(b, md.Paragraph):
            out += [s.text for s in b.inline if s.strong and len(s.text.strip()) >= 2]
    return out


@pytest.mark.parametrize("game", GAMES)
def test_bold_is_bold_in_the_pdf_and_no_asterisk_is_printed(books, game):
    spans = strong_spans(game)
    assert spans
    with plumbed(books[game]) as pdf:
        chars = [c for p in pdf.pages for c in p.chars if not c["text"].isspace()]
    stream = "".join(c["text"] for c in chars)
    assert "*" not in stream
    for span in spans:
        target = re.sub(r"\s+", "", span)
        found = [m.start() for m in re.finditer(re.escape(target), stream)]
        assert found, f"bold text {span!r} is in the PDF"
        bold = [at for at in found if all("Bold" in chars[i]["fontname"] for i in range(at, at + len(target)))]
        assert bold, f"{span!r} is never set in the bold font"


@pytest.mark.parametrize("game", GAMES)
def test_bold_is_strong_in_the_html(rulebook_htmls, game):
    path = rulebook_htmls[game]
    html = path.read_text(encoding="utf-8")
    text = re.sub(r"<[^>]+>", "", re.sub(r"<(style|script)>.*?</\1>", "", html, flags=re.S))
    assert "**" not in text
    for span in strong_spans(game):
        assert f"<strong>{span}</strong>" in html.replace("\n", "")


# ---------------------------------------------------------------------------- 4. no near-empty pages

#: A page (not the last of its chapter) must have content down to at least this share of the text block.
MIN_FILL = 0.4


def page_fill(page, geom) -> float:
    """How far down the text block (0 = its top, 1 = its bottom) the page's content reaches."""
    w, h = geom.size
    top, bottom = geom.margin + 6 * 72 / 25.4, h - geom.margin
    objs = [o for o in page.chars + page.rects + page.images + page.curves if o["top"] >= top - 1 and o["bottom"] <= bottom + 1]
    if not objs:
        return 0.0
    return (max(o["bottom"] for o in objs) - top) / (bottom - top)


@pytest.mark.parametrize("game", GAMES)
def test_no_page_is_left_mostly_empty_except_a_chapters_last(books, game):
    pages, starts = body_pages(books[game])
    geom = geometry("a4", booklet=False)
    thin = []
    with plumbed(books[game]) as pdf:
        for n in pages:
            if n == len(pdf.pages) - 1 or (n + 1) in starts:
                continue  # the last page of a chapter may end where the chapter does
            fill = page_fill(pdf.pages[n], geom)
            if fill < MIN_FILL:
                thin.append((n + 1, round(fill, 2)))
    assert not thin, f"pages (number, fill) left mostly empty mid-chapter: {thin}"


# ---------------------------------------------------------------------------- 5. text block edges


@pytest.mark.parametrize("game", GAMES)
def test_tables_and_boxes_stay_inside_the_text_block(books, game):
    geom = geometry("a4", booklet=False)
    left, right = geom.margin, geom.size[0] - geom.margin
    pages, _ = body_pages(books[game])
    out = []
    with plumbed(books[game]) as pdf:
        for n in pages:
            page = pdf.pages[n]
            # Table rows and callout boxes are rects; a callout's rule is 2.5 pt wide, centred on its edge.
            for o in page.rects:
                if o["x1"] > right + 0.5 or o["x0"] < left - 1.5:
                    out.append((n + 1, round(o["x0"] - left, 1), round(o["x1"] - right, 1)))
    assert not out, f"boxes outside the text block (page, past left, past right): {out[:8]}"


# ---------------------------------------------------------------------------- 6. headings, heads, booklet


def heading_lines(path: Path) -> list[tuple[int, int, float]]:
    """(level 1|2, 0-based page, space above it in pt) for each chapter or section heading that
    does not open its page: the gap from the bottom of the line above to the heading's top."""
    reader = PdfReader(str(path))
    wanted = []
    for item in reader.outline:
        if isinstance(item, list):
            wanted += [(2, i) for i in item if not isinstance(i, list)]
        elif re.match(r"^\d+ ", item.title):
            wanted.append((1, item))
    out = []
    geom = geometry("a4", booklet=False)
    top = geom.margin + 6 * 72 / 25.4
    with plumbed(path) as pdf:
        for level, item in wanted:
            n = reader.get_destination_page_number(item)
            lines = [ln for ln in lines_of(pdf.pages[n].chars) if ln[0]["top"] >= top - 1]
            title = re.sub(r"\s+", "", item.title)
            for k, ln in enumerate(lines):
                if re.sub(r"\s+", "", "".join(c["text"] for c in ln)) == title and k > 0:
                    out.append((level, n, ln[0]["top"] - lines[k - 1][0]["bottom"]))
    return out


@pytest.mark.parametrize("game", GAMES)
def test_a_chapter_starting_mid_page_has_more_space_above_than_a_section(books, game):
    found = heading_lines(books[game])
    chapters = [gap for level, _, gap in found if level == 1]
    sections = [gap for level, _, gap in found if level == 2]
    assert chapters and sections, "the book has chapters and sections that start mid-page"
    assert min(chapters) > max(sections) + 3, (chapters, sections)


def running_heads(path: Path, geom) -> list[tuple[str, str]]:
    """(left, right) running-head text of every page (empty strings where there is none)."""
    heads = []
    top = geom.margin + 6 * 72 / 25.4
    mid = geom.size[0] / 2
    with plumbed(path) as pdf:
        for page in pdf.pages:
            chars = [c for c in page.chars if c["bottom"] < top - 2 and not c["text"].isspace()]
            heads.append(("".join(c["text"] for c in chars if c["x0"] < mid),
                          "".join(c["text"] for c in chars if c["x0"] >= mid)))
    return heads


def chapter_at_page_tops(path: Path, geom) -> dict[int, str]:
    """0-based page → the chapter in force at its top (a chapter opening the page counts)."""
    reader = PdfReader(str(path))
    chapters = sorted((reader.get_destination_page_number(i), re.sub(r"\s+", "", i.title))
                      for i in reader.outline if not isinstance(i, list) and re.match(r"^\d+ ", i.title))
    top = geom.margin + 6 * 72 / 25.4
    out = {}
    with plumbed(path) as pdf:
        for n in range(chapters[0][0], len(pdf.pages)):
            current = [t for p, t in chapters if p < n]
            lines = [ln for ln in lines_of(pdf.pages[n].chars) if ln[0]["top"] >= top - 1]
            first = re.sub(r"\s+", "", "".join(c["text"] for c in lines[0])) if lines else ""
            opening = [t for p, t in chapters if p == n and t == first]
            out[n] = (opening or current or [""])[-1]
    return out


@pytest.mark.parametrize("game", GAMES)
def test_running_head_shows_the_chapter_in_force_at_the_page_top(books, game):
    geom = geometry("a4", booklet=False)
    heads = running_heads(books[game], geom)
    wrong = [(n + 1, heads[n][1], want) for n, want in chapter_at_page_tops(books[game], geom).items()
             if re.sub(r"\s+", "", heads[n][1]) != want]
    assert not wrong, f"(page, running head, chapter at the page top): {wrong}"


def test_booklet_running_heads_mirror_and_body_is_large_enough(booklet_pages):
    geom = geometry("a4", booklet=True)
    assert geom.base_size >= 9.5
    heads = running_heads(booklet_pages, geom)
    chapters = chapter_at_page_tops(booklet_pages, geom)
    for n, want in chapters.items():
        left, right = (re.sub(r"\s+", "", h) for h in heads[n])
        outer = left if (n + 1) % 2 == 0 else right  # page n+1: even pages are left-hand pages
        assert outer == want, (n + 1, heads[n], want)
    with plumbed(booklet_pages) as pdf:
        sizes = Counter(round(c["size"], 1) for n in chapters for c in pdf.pages[n].chars if not c["text"].isspace())
    body = sizes.most_common(1)[0][0]
    assert body >= 9.5, f"booklet body text is {body} pt"


# ---------------------------------------------------------------------------- 7. glossary order


@pytest.mark.parametrize("game", GAMES)
def test_glossary_is_printed_in_pinyin_order(books, game):
    from pypinyin import lazy_pinyin

    source, _, _ = prepare(game)
    terms = [e.term for e in source.glossary]
    assert terms == [e.term for e in sorted(source.glossary, key=glossary_key)]
    # Independent of our key: first syllables never go backwards in the alphabet.
    firsts = ["".join(ch for ch in lazy_pinyin(t)[0].lower() if ch.isalpha()) or t for t in terms]
    firsts = [f for f, t in zip(firsts, terms) if t[0].isalpha()]
    assert firsts == sorted(firsts), list(zip(terms, firsts))
    # The printed entries: each starts a line at the left edge with its term in bold accent.
    left = geometry("a4", booklet=False).margin
    printed = []
    with plumbed(books[game]) as pdf:
        start = next(n for n, p in enumerate(pdf.pages) if "术语按汉语拼音" in (p.extract_text() or ""))
        for page in pdf.pages[start:]:
            for ln in lines_of(page.chars):
                head = []
                for c in ln:
                    if not (_is_accent(c.get("non_stroking_color")) and "Bold" in c["fontname"]):
                        break
                    head.append(c["text"])
                if head and abs(ln[0]["x0"] - left) < 1 and ln[0]["size"] == geometry("a4", False).base_size:
                    printed.append("".join(head))
    assert printed == terms


# ---------------------------------------------------------------------------- 8. HTML in a browser

CHROMIUM = os.environ.get("CARDPRESS_CHROMIUM", "/usr/bin/chromium")
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "has_touch": True, "is_mobile": True}


@pytest.fixture(scope="module")
def html_book(rulebook_htmls):
    return rulebook_htmls["ridm"]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    assert Path(CHROMIUM).exists(), f"no browser at {CHROMIUM}: .ci/run installs Debian's chromium"
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()


def test_html_gallery_is_sharp_on_a_2x_phone_and_opens_larger(browser, html_book):
    page = browser.new_page(**PHONE)
    page.goto(html_book.as_uri())
    page.eval_on_selector_all(".gallery img", "els => els.forEach(e => e.scrollIntoView())")  # load the lazy ones
    page.wait_for_timeout(200)
    imgs = page.eval_on_selector_all(".gallery img", "els => els.map(e => [e.naturalWidth, e.getBoundingClientRect().width])")
    assert imgs and all(nat >= 2 * shown > 0 for nat, shown in imgs), imgs[:5]
    first = page.locator(".gallery figure a").first
    shown = first.locator("img").bounding_box()["width"]
    first.click()
    opened = page.locator(".gallery figure:target img").bounding_box()
    assert opened["width"] >= 1.8 * shown
    page.locator(".gallery figure:target a.close").click()
    assert page.locator(".gallery figure:target").count() == 0
    page.close()


def test_html_example_card_picture_carries_the_numbers(html_book):
    html = html_book.read_text(encoding="utf-8")
    m = re.search(r'<figure class="anatomy"><img src="data:image/png;base64,([^"]+)"', html)
    image = np.asarray(Image.open(io.BytesIO(base64.b64decode(m.group(1)))).convert("RGB")).astype(int)
    notes = len(re.findall(r"<li>", html[m.end():html.index("</figure>", m.end())]))
    accent = np.array([ACCENT.red, ACCENT.green, ACCENT.blue]) * 255
    mask = (np.abs(image - accent).max(axis=2) < 40)
    # The numbered markers stand in a column right of the card: count the separate discs there.
    cols = mask[:, int(image.shape[1] * 0.85):].any(axis=1)
    discs = int(np.sum(cols[1:] & ~cols[:-1]) + cols[0])
    assert notes >= 5 and discs == notes


_COVERED = """(full) => {
    const b = document.querySelector('a.top').getBoundingClientRect();
    const out = [];
    for (const el of document.querySelectorAll('main p, main li, main td, main th, main dt, main dd, main h1, main h2, main h3, main figcaption')) {
        for (const r of el.getClientRects()) {
            const overlaps = r.right > b.left && r.left < b.right && r.bottom > b.top && r.top < b.bottom;
            const whole = r.left >= b.left && r.right <= b.right;  // behind a bar, like the screen's edge
            if (overlaps && (full || !whole)) out.push(el.textContent.trim().slice(0, 20));
        }
    }
    return out;
}"""


def test_html_contents_button_covers_no_text(browser, html_book):
    """On a phone the button may hide whole lines (a bar along the screen's edge, which the page's
    bottom padding lets the last lines clear) but never part of a line; on a wide screen it
    stands in the margin beside the text column."""
    for viewport in (PHONE, {"viewport": {"width": 1280, "height": 900}}):
        page = browser.new_page(**viewport)
        page.goto(html_book.as_uri())
        for _ in range(20):  # lazy images grow the page as they load: scroll until the end stays put
            before = page.evaluate("document.documentElement.scrollHeight")
            page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
            page.wait_for_timeout(150)
            if page.evaluate("document.documentElement.scrollHeight") == before:
                break
        assert not page.evaluate(_COVERED, True), viewport  # the end of the book scrolls clear
        height = page.evaluate("document.documentElement.scrollHeight")
        for share in (0.1, 0.3, 0.5, 0.7, 0.9):
            page.evaluate(f"window.scrollTo(0, {int(height * share)})")
            page.wait_for_timeout(50)
            assert not page.evaluate(_COVERED, False), (viewport, share)
        if viewport["viewport"]["width"] >= 1000:
            main = page.locator("main").bounding_box()
            button = page.locator("a.top").bounding_box()
            assert button["x"] >= main["x"] + main["width"]
        page.close()
