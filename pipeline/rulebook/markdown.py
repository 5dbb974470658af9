"""Markdown (the subset rulebooks use) → a small block model shared by the PDF, HTML and lookup.

Parsed with markdown-it-py (CommonMark + tables). Supported: ATX headings 1–3, paragraphs,
bullet and numbered lists (nested), tables, ``**bold**``, ``*em*``, ``code``, and fenced
*directives*: a fence whose info string names a directive becomes a block of its own —

- ```` ```house ```` / ```` ```note ```` / ```` ```example ````: a callout whose body is Markdown;
- ```` ```example-card TYPE ````: the annotated example card of that card type;
- ```` ```glossary ```` and ```` ```gallery ````: the glossary and the card gallery;
- ```` ```decks ````: the picture of each of the game's own decks (``cardpress deck``'s).

Headings are numbered here (``1``, ``1.2``, ``1.2.3``) so every output agrees on the numbers.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import Callable, Iterator, Union

from markdown_it import MarkdownIt
from markdown_it.parser_inline import ParserInline
from markdown_it.rules_inline.state_inline import StateInline

from engine.i18n import _

from .errors import RulebookTemplateError

CALLOUTS = {"house": "房规说明", "note": "提示", "example": "实例"}
DIRECTIVES = {"example-card", "glossary", "gallery", "decks"}


@dataclass(frozen=True)
class Span:
    """A run of inline text with one style."""

    text: str
    strong: bool = False
    em: bool = False
    code: bool = False


Inline = tuple[Span, ...]


def render_spans(inline: Inline, escape: Callable[[str], str], newline: str, tags: dict[str, tuple[str, str]]) -> str:
    """Inline spans → markup: each span escaped, newlines replaced, then wrapped in the
    (open, close) tags for ``code``, ``em`` and ``strong`` (innermost first)."""
    out = []
    for span in inline:
        t = escape(span.text).replace("\n", newline)
        for flag in ("code", "em", "strong"):
            if getattr(span, flag):
                open_tag, close_tag = tags[flag]
                t = f"{open_tag}{t}{close_tag}"
        out.append(t)
    return "".join(out)


def plain(inline: Inline) -> str:
    return "".join(s.text for s in inline)


@dataclass
class Heading:
    level: int
    inline: Inline
    number: str = ""
    anchor: str = ""

    @property
    def title(self) -> str:
        return plain(self.inline)

    @property
    def numbered_title(self) -> str:
        return f"{self.number} {self.title}" if self.number else self.title


@dataclass
class Paragraph:
    inline: Inline


@dataclass
class ListBlock:
    ordered: bool
    items: list[list["Block"]]
    start: int = 1


@dataclass
class Table:
    header: list[Inline]
    rows: list[list[Inline]]


@dataclass
class Callout:
    kind: str  # house | note | example
    blocks: list["Block"]

    @property
    def title(self) -> str:
        return CALLOUTS[self.kind]


@dataclass
class Directive:
    name: str  # example-card | glossary | gallery
    arg: str = ""


Block = Union[Heading, Paragraph, ListBlock, Table, Callout, Directive]


@dataclass
class Document:
    blocks: list[Block] = field(default_factory=list)

    def headings(self) -> list[Heading]:
        return [b for b in walk(self.blocks) if isinstance(b, Heading)]


def walk(blocks: list[Block]) -> Iterator[Block]:
    """Every block, depth first (list items and callout bodies included)."""
    for b in blocks:
        yield b
        if isinstance(b, ListBlock):
            for item in b.items:
                yield from walk(item)
        elif isinstance(b, Callout):
            yield from walk(b.blocks)


def block_text(block: Block) -> str:
    """The plain text of a block (for search and glyph checks)."""
    if isinstance(block, (Heading, Paragraph)):
        return plain(block.inline)
    if isinstance(block, ListBlock):
        return "\n".join(block_text(b) for item in block.items for b in item)
    if isinstance(block, Table):
        return "\n".join(" ".join(plain(c) for c in row) for row in [block.header, *block.rows])
    if isinstance(block, Callout):
        return block.title + "\n" + "\n".join(block_text(b) for b in block.blocks)
    return ""


# ---------------------------------------------------------------------------- parsing

def _cjk(ch: str) -> bool:
    """East_Asian_Width W, F or H: Han, kana, hangul and full-width punctuation (。，「」（）)."""
    return unicodedata.east_asian_width(ch) in ("W", "F", "H")


class _CjkStateInline(StateInline):
    """CommonMark's flanking rules (spec 0.31.2, §6.2) with CJK adjacency allowed.

    ``这是**我想做的事。**所以继续`` stays literal in CommonMark: the closing run follows
    punctuation (。) and precedes a letter (所), so it is not right-flanking. Chinese puts no
    space there, so every bold phrase that ends in 。，：） breaks (commonmark-spec issue #650).
    We follow the rule proposed in commonmark-spec PR #839: a delimiter run next to a CJK
    character (East_Asian_Width W/F/H) satisfies the punctuation part of the left-/right-flanking
    definitions, i.e. a CJK neighbour counts as neither whitespace nor punctuation.
    """

    def scanDelims(self, start: int, canSplitWord: bool):
        scanned = super().scanDelims(start, canSplitWord)
        end = start + scanned.length
        last = self.src[start - 1] if start > 0 else " "
        nxt = self.src[end] if end < self.posMax else " "
        if not (_cjk(last) or _cjk(nxt)):
            return scanned
        last_space, next_space = last.isspace(), nxt.isspace()
        left = not next_space
        right = not last_space
        # Outside CJK the usual word rules still hold for '_' (snake_case stays literal).
        split = canSplitWord or _cjk(last) or _cjk(nxt)
        return type(scanned)(left and (split or not right), right and (split or not left), scanned.length)


class _CjkParserInline(ParserInline):
    def parse(self, src, md, env, tokens):
        state = _CjkStateInline(src, md, env, tokens)
        self.tokenize(state)
        for rule in self.ruler2.getRules(""):
            rule(state)
        return state.tokens


def _markdown() -> MarkdownIt:
    parser = MarkdownIt("commonmark").enable("table")
    cjk = _CjkParserInline()
    cjk.ruler, cjk.ruler2 = parser.inline.ruler, parser.inline.ruler2  # same rules, CJK-aware state
    parser.inline = cjk
    return parser


_md = _markdown()


def _inline(token) -> Inline:
    spans: list[Span] = []
    strong = em = 0
    for child in token.children or ():
        t = child.type
        if t == "text":
            spans.append(Span(child.content, strong > 0, em > 0))
        elif t == "code_inline":
            spans.append(Span(child.content, strong > 0, em > 0, code=True))
        elif t == "strong_open":
            strong += 1
        elif t == "strong_close":
            strong -= 1
        elif t == "em_open":
            em += 1
        elif t == "em_close":
            em -= 1
        elif t in ("softbreak", "hardbreak"):
            spans.append(Span("\n" if t == "hardbreak" else "", strong > 0, em > 0))
        elif t in ("link_open", "link_close", "image"):
            if t == "image":
                spans.append(Span(child.content))
        elif child.content:
            spans.append(Span(child.content, strong > 0, em > 0))
    merged: list[Span] = []
    for s in spans:
        if not s.text:
            continue
        if merged and (merged[-1].strong, merged[-1].em, merged[-1].code) == (s.strong, s.em, s.code):
            merged[-1] = Span(merged[-1].text + s.text, s.strong, s.em, s.code)
        else:
            merged.append(s)
    return tuple(merged)


def _parse_tokens(tokens, i: int, end_type: str | None) -> tuple[list[Block], int]:
    blocks: list[Block] = []
    while i < len(tokens):
        tok = tokens[i]
        t = tok.type
        if end_type and t == end_type:
            return blocks, i + 1
        if t == "heading_open":
            level = int(tok.tag[1])
            blocks.append(Heading(level, _inline(tokens[i + 1])))
            i += 3
        elif t == "paragraph_open":
            blocks.append(Paragraph(_inline(tokens[i + 1])))
            i += 3
        elif t in ("bullet_list_open", "ordered_list_open"):
            ordered = t == "ordered_list_open"
            start = int(tok.attrs.get("start", 1)) if ordered else 1
            close = "ordered_list_close" if ordered else "bullet_list_close"
            items: list[list[Block]] = []
            i += 1
            while tokens[i].type != close:
                assert tokens[i].type == "list_item_open"
                body, i = _parse_tokens(tokens, i + 1, "list_item_close")
                items.append(body)
            blocks.append(ListBlock(ordered, items, start))
            i += 1
        elif t == "table_open":
            header: list[Inline] = []
            rows: list[list[Inline]] = []
            row: list[Inline] = []
            i += 1
            in_head = False
            while tokens[i].type != "table_close":
                tt = tokens[i].type
                if tt == "thead_open":
                    in_head = True
                elif tt == "thead_close":
                    in_head = False
                elif tt == "tr_open":
                    row = []
                elif tt == "tr_close":
                    (header.extend(row) if in_head else rows.append(row))
                elif tt == "inline":
                    row.append(_inline(tokens[i]))
                i += 1
            blocks.append(Table(header, rows))
            i += 1
        elif t == "fence":
            name, _sep, arg = tok.info.strip().partition(" ")
            if name in CALLOUTS:
                blocks.append(Callout(name, parse_blocks(tok.content)))
            elif name in DIRECTIVES:
                blocks.append(Directive(name, arg.strip()))
            else:
                raise RulebookTemplateError(
                    _("line {line}: unknown block ```{name}``` (known: {known})")
                    .format(line=tok.map[0] + 1 if tok.map else "?", name=name,
                            known=", ".join(sorted([*CALLOUTS, *DIRECTIVES])))
                )
            i += 1
        elif t == "blockquote_open":
            body, i = _parse_tokens(tokens, i + 1, "blockquote_close")
            blocks.append(Callout("note", body))
        elif t in ("hr", "html_block", "code_block"):
            i += 1
        else:
            i += 1
    return blocks, i


def parse_blocks(text: str) -> list[Block]:
    blocks, _end = _parse_tokens(_md.parse(text), 0, None)
    return blocks


def parse_document(text: str) -> Document:
    """Parse rulebook Markdown and number its headings (levels 1–3)."""
    doc = Document(parse_blocks(text))
    counters = [0, 0, 0]
    for n, h in enumerate(doc.headings()):
        level = min(max(h.level, 1), 3)
        counters[level - 1] += 1
        for k in range(level, 3):
            counters[k] = 0
        h.level = level
        h.number = ".".join(str(c) for c in counters[:level])
        h.anchor = f"sec-{h.number.replace('.', '-')}"
    return doc


@dataclass(frozen=True)
class Section:
    """A heading and the text of the blocks under it (up to the next heading)."""

    number: str
    title: str
    level: int
    paragraphs: tuple[str, ...]
    parents: tuple[str, ...] = ()


def sections(doc: Document) -> list[Section]:
    """Split a document at its headings; nested list items and callouts become paragraphs."""
    out: list[Section] = []
    current: Heading | None = None
    trail: list[Heading] = []
    paras: list[str] = []

    def flush():
        if current is not None:
            parents = tuple(h.numbered_title for h in trail[:-1])
            out.append(Section(current.number, current.title, current.level, tuple(paras), parents))

    def texts(block: Block) -> Iterator[str]:
        if isinstance(block, Paragraph):
            yield plain(block.inline)
        elif isinstance(block, ListBlock):
            for k, item in enumerate(block.items, block.start):
                for j, b in enumerate(item):
                    for t in texts(b):
                        yield (f"{k}. " if block.ordered else "• ") + t if j == 0 else t
        elif isinstance(block, Table):
            yield " | ".join(plain(c) for c in block.header)
            for row in block.rows:
                yield " | ".join(plain(c) for c in row)
        elif isinstance(block, Callout):
            for b in block.blocks:
                for t in texts(b):
                    yield f"【{block.title}】{t}"

    for block in doc.blocks:
        if isinstance(block, Heading):
            flush()
            current, paras = block, []
            trail[:] = [h for h in trail if h.level < block.level] + [block]
        else:
            paras.extend(texts(block))
    flush()
    return out
