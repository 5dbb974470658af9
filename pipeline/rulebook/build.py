"""Build a rulebook: render the source, typeset it (PDF, booklet or HTML), write it atomically.

Example::

    >>> result = build_rulebook("ridm", RulebookOptions(out_dir=Path("dist/ridm")))  # doctest: +SKIP
    >>> result.path.name, result.pages                                                 # doctest: +SKIP
    ('rulebook-a4.pdf', 24)
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from engine.definitions import GameDefinition, load_game
from engine.i18n import _

from pipeline.atomic import atomic_write, output_path
from pipeline.progress import Progress
from pipeline.render.fonts import register_fonts

from . import markdown as md
from .booklet import impose_booklet
from .cards import RulebookCards
from .errors import RulebookError
from .pdf import geometry, page_size, write_pdf
from .source import RulebookSource, render_source

_GALLERY = re.compile(r"^```gallery[ \t]*\n```[ \t]*$", re.M)


@dataclass(frozen=True)
class RulebookOptions:
    paper: Literal["a4", "letter"] = "a4"
    booklet: bool = False
    format: Literal["pdf", "html"] = "pdf"
    out_dir: Path | None = None  # default dist/<game id>
    duplex: Literal["long", "short"] = "long"


@dataclass(frozen=True)
class RulebookResult:
    game: GameDefinition
    path: Path
    pages: int  # typeset pages (booklet: A5/half-letter pages before imposition; HTML: 0)
    sheets: int = 0  # booklet sheet sides


def output_name(options: RulebookOptions) -> str:
    if options.format == "html":
        return "rulebook.html"
    return f"rulebook-{options.paper}{'-booklet' if options.booklet else ''}.pdf"


def expand_gallery(markdown: str, game: GameDefinition, cards: RulebookCards) -> str:
    """Turn the single ```gallery``` block into one sub-section per card type that has cards."""
    parts = []
    for type_id, ctype in game.card_types.items():
        if cards.of_type(type_id):
            parts.append(f"## {ctype.name}\n\n```gallery {type_id}\n```\n")
    return _GALLERY.sub(lambda _m: "\n".join(parts) or "（暂无卡牌）", markdown)


def prepare(game: str | Path | GameDefinition) -> tuple[RulebookSource, md.Document, RulebookCards]:
    definition = game if isinstance(game, GameDefinition) else load_game(game)
    source = render_source(definition)
    fonts = register_fonts()
    cards = RulebookCards(definition, fonts)
    doc = md.parse_document(expand_gallery(source.markdown, definition, cards))
    return source, doc, cards


def build_rulebook(game: str | Path | GameDefinition, options: RulebookOptions = RulebookOptions(),
                   progress: Progress | None = None) -> RulebookResult:
    """Build one rulebook file into ``options.out_dir``; see ``output_name`` for the file name.

    Raises ``RulebookError`` subclasses (template, missing glyph), ``DataError`` (bad cards) or
    ``GameNotFound``. Nothing is written unless the whole build succeeds.
    """
    page_size(options.paper)  # an unknown paper: UnknownPaper, naming the papers there are
    if options.format not in ("pdf", "html"):
        raise RulebookError(_("unknown format {format!r}: use pdf or html").format(format=options.format))
    if options.booklet and options.format != "pdf":
        raise RulebookError(_("--booklet only applies to --format pdf"))
    if progress:
        progress(_("reading"), 0, 1)
    source, doc, cards = prepare(game)
    out_dir = options.out_dir if options.out_dir is not None else output_path(Path("dist"), source.game.id)
    path = output_path(out_dir, output_name(options))
    fonts = cards.fonts
    if options.format == "html":
        from .html import HtmlWriter

        text = HtmlWriter(source, cards, fonts).document(doc)
        with atomic_write(path) as tmp:
            tmp.write_text(text, encoding="utf-8")
        return RulebookResult(source.game, path, 0)
    geom = geometry(options.paper, options.booklet)
    with atomic_write(path) as tmp:
        if not options.booklet:
            pages = write_pdf(tmp, source, doc, fonts, geom, cards, progress)
            return RulebookResult(source.game, path, pages)
        with tempfile.TemporaryDirectory() as work:
            flat = Path(work) / "pages.pdf"
            pages = write_pdf(flat, source, doc, fonts, geom, cards, progress)
            if progress:
                progress(_("imposing"), 0, 1)
            sides = impose_booklet(flat, tmp, page_size(options.paper), options.duplex)
    return RulebookResult(source.game, path, pages, sides)
