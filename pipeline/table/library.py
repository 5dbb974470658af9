"""What the table page looks up: a game's cards (text, printed numbers, face image) and its rules.

"What does that card do?" is the commonest question at a table. ``Library(game)`` answers it
from the same sources as the printed material, so the phone shows what is on the card:

- ``catalogue()`` / ``search_cards(q)``: every distinct card in the order of the rulebook
  gallery (card types as ``game.yaml`` lists them, then file order), with its rules text as
  printed (the face's text box laid out by the card templates, markup and macros stripped) and
  its printed numbers with their ``game.yaml`` labels;
- ``face_png(card_id, width_px)``: the face drawn by the painter of ``cardpress images``
  (``pipeline.render.raster.faces_pdf``) at trim size, rasterised by pypdfium2;
- ``rules(term)`` / ``glossary()``: ``cardpress rules`` (``pipeline.rulebook.lookup``) as data;
- ``text_of_everything()``: every character any of these can show (for the page's font subset).

Everything is loaded on first use and cached; the caches are shared by the server's worker
threads (one lock for loading, one for drawing: ReportLab's painter caches and pdfium are not
thread-safe).

Faces are drawn one card at a time on demand: preparing the game (check, templates, backs,
art) happens once, then a card's one-card PDF takes ~25 ms and its raster ~10 ms, where drawing
the whole game's PDF up front costs 0.25–0.75 s before the first image. PNG bytes (and each
card's PDF, for other widths) are kept in small LRU caches.
"""

from __future__ import annotations

import copy
import dataclasses
import io
import threading
import unicodedata
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Generic, Hashable, TypeVar

from engine.definitions import GameDefinition, load_game
from engine.errors import CardpressError
from engine.i18n import _

#: Face images kept in memory (a 600 px face is ~100 KB).
PNG_CACHE = 128
#: One-card PDFs kept, so another width of a recent card is only rasterised again.
PDF_CACHE = 64
#: Rules lookups kept (a lookup renders the rulebook source: ~0.1 s).
RULES_CACHE = 64
#: Face widths a caller may ask for, in pixels.
MIN_WIDTH_PX, MAX_WIDTH_PX = 100, 1200
#: zlib level of the PNGs: they go over Wi-Fi to phones, so smaller beats faster here.
PNG_COMPRESS = 6

V = TypeVar("V")


class _LRU(Generic[V]):
    """A small thread-safe least-recently-used map."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: Hashable, value: V) -> V:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value

    def __len__(self) -> int:
        return len(self._items)


def _fold(text: str) -> str:
    """For matching: case and width folded (a phone's ``!`` finds ``！``)."""
    return unicodedata.normalize("NFKC", text).casefold()


def _printed(spec, value: Any) -> Any:
    """A field value as the card prints it (ints stay numbers for the JSON)."""
    if spec.kind == "enum":
        return spec.label_of(value)
    if spec.kind == "bool":
        return "是" if value else "否"
    return value if isinstance(value, int) else str(value)


class Library:
    """The cards and rules of one game, for the table page. ``game``: a shipped id, a game
    folder (as ``load_game`` takes), or a loaded ``GameDefinition`` (a stored game's ``live.defn``;
    one kept without its folder has no cards, only rules)."""

    def __init__(self, game: str | Path | GameDefinition):
        self._game = game
        self._lock = threading.RLock()       # loading the definition, cards, prepared game
        self._draw_lock = threading.Lock()   # painting and pdfium
        self._definition: GameDefinition | None = None
        self._catalogue: list[dict[str, Any]] | None = None
        self._prepared = None
        self._glossary: list[dict[str, Any]] | None = None
        self._png: _LRU[bytes] = _LRU(PNG_CACHE)
        self._pdf: _LRU[bytes] = _LRU(PDF_CACHE)
        self._rules: _LRU[dict[str, Any]] = _LRU(RULES_CACHE)

    # ------------------------------------------------------------------ loading

    def _once(self, attr: str, build: Callable[[], Any]) -> Any:
        value = getattr(self, attr)
        if value is None:
            with self._lock:
                value = getattr(self, attr)
                if value is None:
                    value = build()
                    setattr(self, attr, value)
        return value

    @property
    def definition(self) -> GameDefinition:
        return self._once("_definition", lambda: self._game if isinstance(self._game, GameDefinition)
                          else load_game(self._game))

    def _build_catalogue(self) -> list[dict[str, Any]]:
        from pipeline.render.fonts import register_fonts
        from pipeline.rulebook.cards import RulebookCards
        from pipeline.render.text import plain_text

        game = self.definition
        if game.folder is None:
            return []
        cards = RulebookCards(game, register_fonts())   # gallery order, the templates' layout
        out = []
        for card in cards.cards:
            spec = game.card_types[card.type]
            try:
                boxes = [str(e.get("text")) for e in cards.face(card) if e.kind == "para" and e.get("field") == "text"]
                text = "\n".join(plain_text(b) for b in boxes if b)
            except CardpressError:
                # A face that cannot be laid out still has its text in the data.
                text = "\n".join(str(card.get(fid)) for fid, f in game.fields_of(card.type).items()
                                 if f.kind == "text" and card.get(fid))
            text = "\n".join(line.rstrip() for line in text.strip().splitlines())
            fields = [[f.label, _printed(f, card.get(fid))] for fid, f in spec.fields.items()
                      if f.kind != "text" and fid != "art" and card.get(fid) not in (None, "")]
            out.append({"id": card.id, "name": card.name, "type": card.type, "type_label": spec.name,
                        "text": text, "fields": fields})
        return out

    def _prepare(self):
        from pipeline.plan import prepare

        # One process: the server has threads of its own, and a fork copies none of them.
        return prepare(self.definition, bleed_mm=0.0, jobs=1)

    # ------------------------------------------------------------------ cards

    def catalogue(self) -> list[dict[str, Any]]:
        """Every distinct card: ``{"id", "name", "type", "type_label", "text", "fields": [[label, value], …]}``."""
        return [{**e, "fields": [list(f) for f in e["fields"]]} for e in self._once("_catalogue", self._build_catalogue)]

    def search_cards(self, query: str, limit: int = 20) -> list[dict[str, Any]]:
        """Cards whose name, id or text contains ``query`` (case- and width-insensitive): name
        matches first (exact, then prefix, then anywhere), then id, then text; game order within."""
        q = _fold(query.strip())
        ranked = []
        for n, e in enumerate(self.catalogue()):
            name = _fold(e["name"])
            if q == name:
                rank = 0
            elif name.startswith(q):
                rank = 1
            elif q in name:
                rank = 2
            elif q in _fold(e["id"]):
                rank = 3
            elif q in _fold(e["text"]):
                rank = 4
            else:
                continue
            ranked.append((rank, n, e))
        ranked.sort(key=lambda r: r[:2])
        return [e for _score, _order, e in ranked[:max(0, limit)]]

    def face_png(self, card_id: str, width_px: int = 600) -> bytes:
        """The card's face as printed (trim size), ``width_px`` wide, as PNG bytes.

        Raises ``KeyError`` for a card the game does not have, ``ValueError`` for a width
        outside ``MIN_WIDTH_PX..MAX_WIDTH_PX``; the game's own problems raise as ``cardpress
        images`` would (``DataError``, ``CardErrors``).
        """
        if isinstance(width_px, bool) or not isinstance(width_px, int) or not MIN_WIDTH_PX <= width_px <= MAX_WIDTH_PX:
            raise ValueError(_("width must be a whole number of pixels from {low} to {high}, got {width!r}").format(
                low=MIN_WIDTH_PX, high=MAX_WIDTH_PX, width=width_px))
        key = (card_id, width_px)
        cached = self._png.get(key)
        if cached is not None:
            return cached
        if self.definition.folder is None:
            raise KeyError(card_id)
        prep = self._once("_prepared", self._prepare)
        card = prep.cards[card_id]    # KeyError for an unknown card
        from PIL import Image

        from pipeline.render.raster import faces_pdf, page_image

        with self._draw_lock:
            pdf = self._pdf.get(card_id)
            if pdf is None:
                # The same drawing as `cardpress images`, for this one card and no back.
                one = dataclasses.replace(prep, sequence=[card], backs={})
                pdf = self._pdf.put(card_id, faces_pdf(one, 0.0))
            image = page_image(pdf, width_px=width_px)
        width_mm, height_mm = prep.game.card_size_of(card.type).mm   # the page: trim size, no bleed
        height_px = round(width_px * height_mm / width_mm)
        if image.width == width_px and 0 <= image.height - height_px <= 1:
            image = image.crop((0, 0, width_px, height_px))   # pdfium rounds the bitmap up: a part row
        elif image.size != (width_px, height_px):
            image = image.resize((width_px, height_px), Image.LANCZOS)
        buf = io.BytesIO()
        image.save(buf, format="PNG", compress_level=PNG_COMPRESS)
        return self._png.put(key, buf.getvalue())

    # ------------------------------------------------------------------ rules

    def glossary(self) -> list[dict[str, Any]]:
        """The glossary, in rulebook order: ``{"term", "text", "aliases", "see"}``."""
        def build():
            from pipeline.rulebook.source import render_source

            return [{"term": e.term, "text": e.definition, "aliases": list(e.aliases), "see": list(e.see)}
                    for e in render_source(self.definition).glossary]

        return [{**e, "aliases": list(e["aliases"]), "see": list(e["see"])} for e in self._once("_glossary", build)]

    def rules(self, term: str) -> dict[str, Any]:
        """``cardpress rules GAME TERM`` as data: ``{"term", "entries", "mentions", "suggestions"}``.

        Nothing found: empty entries and mentions, and the nearest terms as suggestions (the
        first glossary terms when nothing is near, as the command says)."""
        from pipeline.rulebook.errors import UnknownTerm
        from pipeline.rulebook.lookup import KNOWN_SHOWN, MAX_LINES_PER_SECTION, lookup

        term = term.strip()
        cached = self._rules.get(term)
        if cached is not None:
            return copy.deepcopy(cached)
        try:
            found = lookup(self.definition, term)
        except UnknownTerm as exc:
            suggestions = list(exc.suggestions)
            if not suggestions and term:
                suggestions = [e["term"] for e in self.glossary()][:KNOWN_SHOWN]
            return copy.deepcopy(self._rules.put(term, {"term": term, "entries": [], "mentions": [],
                                                        "suggestions": suggestions}))
        entries = [{"term": e.term, "text": e.definition, "aliases": list(e.aliases), "see": list(e.see)}
                   for e in found.entries]
        mentions = [{"section": f"{m.section.number} {m.section.title}" if m.section.number else m.section.title,
                     "number": m.section.number, "title": m.section.title, "parents": list(m.section.parents),
                     "lines": list(m.lines[:MAX_LINES_PER_SECTION]),
                     "more": max(0, len(m.lines) - MAX_LINES_PER_SECTION)}
                    for m in found.mentions]
        return copy.deepcopy(self._rules.put(term, {"term": term, "entries": entries, "mentions": mentions,
                                                    "suggestions": []}))

    # ------------------------------------------------------------------ glyphs

    def text_of_everything(self) -> str:
        """Every character the catalogue, the glossary and a rules answer can show, sorted, once
        each (a rules answer quotes the rulebook, so its sections are included)."""
        from pipeline.rulebook import markdown as md
        from pipeline.rulebook.source import render_source

        game = self.definition
        parts = [game.name, *(t.name for t in game.card_types.values())]
        for e in self.catalogue():
            parts += [e["id"], e["name"], e["type_label"], e["text"], *(str(x) for f in e["fields"] for x in f)]
        for e in self.glossary():
            parts += [e["term"], e["text"], *e["aliases"], *e["see"]]
        parts += [k.term for k in game.keywords]
        for s in md.sections(md.parse_document(render_source(game).markdown)):
            parts += [s.number, s.title, *s.parents, *s.paragraphs]
        return "".join(sorted(set("".join(parts)) - {"\n", "\r", "\t"}))
