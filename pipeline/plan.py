"""Build: game folder → checked data → laid-out faces → imposed, duplex-ready PDFs.

``build_sheets(game, options)`` is what ``cardpress build`` calls. Nothing is written unless the
whole game checks clean and every card face draws (all problems are reported together); each PDF
is written to a temp file and renamed into place.

Each distinct face and back is drawn once into a PDF form XObject and placed by reference, so
copies cost a few bytes and each image is embedded once.
"""

from __future__ import annotations

import io
import math
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from engine.cards import Card
from engine.check import GameReport, check_game
from engine.decks import user_deck
from engine.definitions import GameDefinition, load_game
from engine.errors import CardpressError, DataError, Location, Problem
from engine.i18n import N_, _, ngettext
from engine.i18n import _ as tr

from .art import ArtError
from .atomic import atomic_write, output_path
from .buildcache import BuildCache, card_key, open_cache
from .render.painter import CardPainter, CardTextError
from .render.fonts import FontError, load_font_files, register_fonts
from .impose import CUTTER_KINDS, MARK_GAP_MM, PAPERS_MM, Cell, Flip, Kind, SheetLayout, choose_layout
from .outputs.cutfile import check_radius
from .layout import Element, Layouts
from .layout.elements import pack, unpack
from .outputs.manifest import Changes, compare, face_digest, read_manifest, write_manifest
from .render.forms import capture_encoding, inject_form, record_form, seed_encoding
from .render.streams import compress_form, compress_page, save
from .workers import Shared, WorkerError, halves, in_parallel, resolve_jobs

Progress = Callable[[str, int, int], None]


class Label(str):
    """A progress label: the text a user reads (in their language), with ``key``, its English
    msgid, which code compares (never the translated text)."""

    key: str

    def __new__(cls, key: str, **fields: object) -> "Label":
        label = super().__new__(cls, tr(key).format(**fields))  # key: one of the N_ labels below
        label.key = key
        return label


def key_of(label: str) -> str:
    """The stable key of a progress label (its English), whatever language it is shown in."""
    return getattr(label, "key", label)


DRAWING = N_("drawing cards")
SHEETS = N_("{paper} sheets")
PREPARING_ART = N_("preparing art")
LAYING_OUT = N_("laying out cards")
CROP_MARK_WIDTH_PT = 0.3  # hairline, as printers expect
#: Gutter ticks sit on the cards' bleed: a white line under the hairline keeps them visible on dark art.
TICK_HALO_PT = 1.0
SCALE_BAR_MM = 50.0
SCALE_BAR_WIDTH_PT = 0.4  # not the crop marks' hairline: a reader of the PDF tells them apart


@dataclass(frozen=True)
class BuildOptions:
    papers: tuple[str, ...] = ("a4", "letter")
    out_dir: Path | None = None
    deck: Path | str | None = None  # a file, or the name of one of the game's decks
    bleed_mm: float = 3.0
    margin_mm: float = 5.0
    gutter_mm: float | None = None
    flip: Flip = "long"
    back_offset_mm: tuple[float, float] = (0.0, 0.0)
    #: "duplex" (backs on the next page) or "fold" (backs beside the fronts, fold in the middle).
    layout: Kind = "duplex"
    #: silhouette/cricut layouts: the cut file's corner radius (mm).
    corner_radius_mm: float = 3.0
    #: Crop marks (and gutter ticks) on the back pages too.
    back_marks: bool = False
    #: Processes (1 or 2); None: 2 when two cores are free (see ``pipeline.workers``).
    jobs: int | None = None
    #: An earlier build (its folder or manifest): impose only the faces new or changed since.
    changed_since: Path | None = None
    #: Reuse what the last builds of this game laid out and painted (``pipeline.buildcache``).
    cache: bool = True


@dataclass
class SheetFile:
    paper: str
    path: Path
    pages: int
    layout: SheetLayout
    #: One layout per card size printed, in print order (``layout`` is the first).
    layouts: list[SheetLayout] = field(default_factory=list)
    #: silhouette/cricut: the cut files (SVG, DXF) beside the PDF, one pair per layout.
    cut_files: list[Path] = field(default_factory=list)


@dataclass
class BuildResult:
    game: GameDefinition
    cards: int
    distinct: int
    files: list[SheetFile] = field(default_factory=list)
    #: ``manifest.json`` of a full build (the faces' digests), None for a ``changed_since`` one.
    manifest: Path | None = None
    #: With ``changed_since``: what differs from the earlier build (only those are printed).
    changes: Changes | None = None
    #: Distinct faces and backs painted in this build, and those reused from the cache.
    painted: int = 0
    reused: int = 0


class BuildOptionError(CardpressError):
    """A build option is not a usable number (NaN, infinite or negative)."""


def check_options(options: BuildOptions) -> None:
    """Refuse options that would silently give a wrong PDF: ``nan`` offsets print blank backs."""
    named = {"bleed": options.bleed_mm, "margin": options.margin_mm}
    if options.gutter_mm is not None:
        named["gutter"] = options.gutter_mm
    for name, value in named.items():
        if not math.isfinite(value) or value < 0:
            raise BuildOptionError(_("--{name} must be a finite number of millimetres ≥ 0, got {value!r}")
                                   .format(name=name, value=value))
    if not all(math.isfinite(v) for v in options.back_offset_mm):
        raise BuildOptionError(_("--back-offset must be two finite numbers of millimetres, got {value!r}")
                               .format(value=options.back_offset_mm))


class CardDrawError(CardpressError):
    """A card could not be drawn for a reason other than its text (art, a drawing error)."""

    def __init__(self, label: str, field: str | None, error: CardpressError):
        self.card, self.field, self.error = label, field, error
        if field:
            text = _("card {card!r}, field {field!r}: {error}").format(card=label, field=field, error=error)
        else:
            text = _("card {card!r}: {error}").format(card=label, error=error)
        super().__init__(text)


class CardErrors(CardpressError):
    """Several cards cannot be drawn; every one is listed."""

    def __init__(self, errors: list[CardpressError]):
        self.errors = errors
        lines = [str(e) for e in errors]
        super().__init__(lines[0] if len(lines) == 1 else
                         ngettext("{n} card cannot be printed:", "{n} cards cannot be printed:", len(lines))
                         .format(n=len(lines)) + "\n  - " + "\n  - ".join(lines))


def print_sequence(game: GameDefinition, cards: dict[str, Card],
                   deck_entries: tuple[tuple[str, int], ...] | None) -> list[Card]:
    """Cards in print order: a deck's cards with their counts (deck order), or one of each card
    grouped by card type in the order ``game.yaml`` lists the types."""
    if deck_entries is None:
        order = {type_id: n for n, type_id in enumerate(game.card_types)}
        return sorted(cards.values(), key=lambda card: order[card.type])
    return [cards[cid] for cid, n in deck_entries for _copy in range(n)]


def _place(c: Canvas, cell: Cell, form: str) -> None:
    c.saveState()
    x0, y0, x1, y1 = cell.clip
    path = c.beginPath()
    path.rect(x0 * mm, y0 * mm, (x1 - x0) * mm, (y1 - y0) * mm)
    c.clipPath(path, stroke=0, fill=0)
    x, y, w, h = cell.x * mm, cell.y * mm, cell.w * mm, cell.h * mm
    if cell.rotation == 90:
        c.translate(x + w, y)
        c.rotate(90)
    elif cell.rotation == 270:
        c.translate(x, y + h)
        c.rotate(-90)
    elif cell.rotation == 180:
        c.translate(x + w, y + h)
        c.rotate(180)
    else:
        c.translate(x, y)
    c.doForm(form)
    c.restoreState()


def _boxes(c: Canvas, layout: SheetLayout, cells: list[Cell]) -> None:
    x0 = min(cell.x for cell in cells)
    y0 = min(cell.y for cell in cells)
    x1 = max(cell.x + cell.w for cell in cells)
    y1 = max(cell.y + cell.h for cell in cells)
    bx, by = layout.edge_x, layout.edge_y
    c.setTrimBox((x0 * mm, y0 * mm, x1 * mm, y1 * mm))
    c.setBleedBox(((x0 - bx) * mm, (y0 - by) * mm, (x1 + bx) * mm, (y1 + by) * mm))


def _crop_marks(c: Canvas, layout: SheetLayout, offset: tuple[float, float] = (0.0, 0.0)) -> None:
    """Outer marks, and the gutter ticks (hairlines on a white halo: they sit on the bleed).
    A back page's marks are its front's shifted by the back offset (the block is centred, so
    mirroring leaves the cut lines where they were)."""
    dx, dy = offset
    c.saveState()
    c.setLineCap(0)
    ticks = layout.gutter_ticks()
    if ticks:
        c.setStrokeColorRGB(1, 1, 1)
        c.setLineWidth(TICK_HALO_PT)
        for x0, y0, x1, y1 in ticks:
            c.line((x0 + dx) * mm, (y0 + dy) * mm, (x1 + dx) * mm, (y1 + dy) * mm)
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(CROP_MARK_WIDTH_PT)
    for x0, y0, x1, y1 in layout.crop_marks() + ticks:
        c.line((x0 + dx) * mm, (y0 + dy) * mm, (x1 + dx) * mm, (y1 + dy) * mm)
    c.restoreState()


def _registration_marks(c: Canvas, layout: SheetLayout) -> None:
    """A cutter's registration marks (``SheetLayout.registration_marks``), solid black."""
    marks = layout.registration_marks()
    if not marks:
        return
    c.saveState()
    c.setFillColorRGB(0, 0, 0)
    for x0, y0, x1, y1 in marks:
        c.rect(x0 * mm, y0 * mm, (x1 - x0) * mm, (y1 - y0) * mm, stroke=0, fill=1)
    c.restoreState()


def _fold_line(c: Canvas, layout: SheetLayout) -> None:
    line = layout.fold_line()
    if line is None:
        return
    x0, y0, x1, y1 = line
    c.saveState()
    c.setStrokeColorRGB(0.35, 0.35, 0.35)
    c.setLineWidth(0.6)
    c.setDash(3 * mm, 2 * mm)
    c.line(x0 * mm, y0 * mm, x1 * mm, y1 * mm)
    c.restoreState()


def sheet_label(game: GameDefinition, layout: SheetLayout, n: int, of: int, side: str) -> str:
    """The margin's label: game, sheet n of m, front/back, paper, layout."""
    sides = {"front": _("front"), "back": _("back"), "fold": _("front and back")}
    kinds = {"duplex": _("duplex {cols}×{rows}"), "fold": _("gutterfold {cols}×{rows}"),
             "silhouette": _("Silhouette {cols}×{rows}"), "cricut": _("Cricut {cols}×{rows}")}
    return (_("{game} · sheet {n} of {of} · {side} · {paper} · {layout} · ±{tol:g} mm")
            .format(game=game.name, n=n, of=of, side=sides[side], paper=layout.paper.upper(),
                    layout=kinds[layout.kind].format(cols=layout.cols, rows=layout.rows), tol=layout.drift_tolerance))


def _strip_origin(c: Canvas, layout: SheetLayout, side: str, lo: float, depth: float,
                  offset: tuple[float, float]) -> None:
    """Move the canvas so local x runs along a margin strip (from ``lo``) and local y across it."""
    ox, oy = layout.origin
    dx, dy = offset
    if side == "top":
        c.translate((lo + dx) * mm, (oy + layout.block_h + layout.edge_y + MARK_GAP_MM + dy) * mm)
    elif side == "bottom":
        c.translate((lo + dx) * mm, (oy - layout.edge_y - MARK_GAP_MM - depth + dy) * mm)
    else:
        outer = (ox - layout.edge_x - MARK_GAP_MM if side == "left"
                 else ox + layout.block_w + layout.edge_x + MARK_GAP_MM + depth)
        c.translate((outer + dx) * mm, (lo + dy) * mm)
        c.rotate(90)


def _furniture(c: Canvas, layout: SheetLayout, fonts, label: str, offset: tuple[float, float] = (0.0, 0.0),
               scale_bar: bool = True) -> None:
    """The sheet label and a 50 mm scale bar in the margin (between crop marks, never on them),
    where the printable margin leaves room: a user measures the bar to see the printer did not
    scale the page. The label's text is glyph-checked like every text on paper."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    missing = fonts.missing(label)
    if missing:
        raise FontError(_("the sheet label needs glyphs the font lacks: {missing!r}").format(missing=missing))
    strips = sorted(layout.margin_strips(), key=lambda s: (s[0] not in ("top", "bottom"), -(s[2] - s[1])))
    if not strips:
        return
    side, lo, hi, depth = strips[0]
    depth = min(depth, 4.0)
    size = min(depth - 0.6, 2.2)  # mm
    width = stringWidth(label, fonts.regular, 1) * size  # mm, at a size of ``size`` mm
    if width > hi - lo - 2:
        size *= (hi - lo - 2) / width
    if size >= 0.8:
        c.saveState()
        _strip_origin(c, layout, side, lo, depth, offset)
        c.setFillColorRGB(0, 0, 0)
        c.setFont(fonts.regular, size / 25.4 * 72)
        c.drawCentredString((hi - lo) / 2 * mm, (depth - size) / 2 * mm + 0.15 * size * mm, label)
        c.restoreState()
    if not scale_bar:
        return
    rest = [s for s in strips[1:] if s[2] - s[1] >= SCALE_BAR_MM + 2]
    rest.sort(key=lambda s: s[0] == side)  # another side than the label's when there is one
    if not rest:
        return
    side, lo, hi, depth = rest[0]
    depth = min(depth, 4.0)
    start = (hi - lo - SCALE_BAR_MM) / 2
    tick = min(depth - 0.4, 2.0)
    c.saveState()
    _strip_origin(c, layout, side, lo, depth, offset)
    c.setStrokeColorRGB(0, 0, 0)
    c.setLineWidth(SCALE_BAR_WIDTH_PT)
    base = (depth - tick) / 2
    c.line(start * mm, base * mm, (start + SCALE_BAR_MM) * mm, base * mm)
    for k in range(0, int(SCALE_BAR_MM) + 1, 10):
        c.line((start + k) * mm, base * mm, (start + k) * mm, (base + (tick if k in (0, 50) else tick / 2)) * mm)
    text = _("{mm:g} mm").format(mm=SCALE_BAR_MM)  # centred between the 20 and 30 mm ticks
    if not fonts.missing(text) and depth > 1.5:
        c.setFillColorRGB(0, 0, 0)
        c.setFont(fonts.regular, min(tick, 1.6) / 25.4 * 72)
        c.drawCentredString((start + SCALE_BAR_MM / 2) * mm, (base + 0.3) * mm, text)
    c.restoreState()


def paint_forms(canvases: list[Canvas], prep: "Prepared", progress: Progress | None = None) -> tuple[dict, dict]:
    """Lay out every distinct face once and paint it into a form XObject on each canvas (one
    per paper), then the backs; return the form names ``({card id: name}, {back: name})``.

    A face laid out in advance (``prep.faces``) is dropped as soon as it is painted, and its
    fitted paragraphs are reused for the next canvas. With ``prep.reuse`` (canvases seeded with
    the cache's encoding: ``FormReuse.seed``), a face whose digest the cache holds is not laid out
    or painted: its kept form is added as it is; the others are painted and kept. A card that
    cannot print (bad template, missing glyph, text too long) is recorded and the others still
    painted, so one run reports them all (``CardErrors``); the callers' temp files are then
    dropped.
    """
    b = prep.bleed_mm

    def bbox(size_mm: tuple[float, float]) -> tuple[float, float, float, float]:
        return (-b * mm, -b * mm, (size_mm[0] + b) * mm, (size_mm[1] + b) * mm)

    errors: list[CardpressError] = []
    reuse = prep.reuse
    face_digests, back_digests = prep.digests or ({}, {})

    def kept(digest: str | None):
        return reuse.form(digest) if reuse is not None and digest is not None else None

    def paint_everywhere(name: str, elements: list[Element], card: Card | None, label: str,
                         digest: str | None, size_mm: tuple[float, float]) -> None:
        # The same drawing goes into every canvas; a card that fails is reported once.
        failed = False
        for c in canvases:
            c.beginForm(name, *bbox(size_mm))
            if not failed:
                try:
                    prep.painter.paint(c, elements, card, label=label, size_mm=size_mm)
                except CardTextError as exc:
                    errors.append(exc)
                    failed = True
                except ArtError as exc:
                    errors.append(CardDrawError(label, "art", exc))
                    failed = True
                except CardpressError as exc:
                    errors.append(CardDrawError(label, None, exc))
                    failed = True
            c.endForm()
            compress_form(c, name)
        images = prep.painter.images_drawn
        if reuse is not None and digest is not None and not failed and images is not None:
            stream = record_form(canvases[0], name, images)
            if stream is not None:
                reuse.pending[digest] = (stream, tuple(images))
        prep.painted += 1

    def inject_everywhere(name: str, record: list, size_mm: tuple[float, float]) -> None:
        for c in canvases:
            inject_form(c, name, bbox(size_mm), record[0], record[1])
        prep.reused += 1

    form_of: dict[str, str] = {}
    distinct = prep.distinct
    for n, card in enumerate(distinct):
        name = form_of[card.id] = f"Face{n}"
        size_mm = _size_of(prep.game, card.type)
        record = kept(face_digests.get(card.id))
        if record is not None:
            prep.faces.pop(card.id, None)
            inject_everywhere(name, record, size_mm)
        else:
            try:
                if card.id in prep.face_errors:
                    raise prep.face_errors[card.id]
                elements = prep.faces.pop(card.id, None) or prep.layouts.face(card, b)
            except CardpressError as exc:
                elements = []
                errors.append(exc)
            paint_everywhere(name, elements, card, card.id, face_digests.get(card.id), size_mm)
        if progress:
            progress(Label(DRAWING), n + 1, len(distinct))
    back_form: dict[str, str] = {}
    for n, (back, elements) in enumerate(prep.backs.items()):
        name = back_form[back] = f"Back{n}"
        size_mm = _back_size(prep.game, back)
        record = kept(back_digests.get(back))
        if record is not None:
            inject_everywhere(name, record, size_mm)
        else:
            paint_everywhere(name, elements, None, f"back {back}", back_digests.get(back), size_mm)
    if errors:
        raise CardErrors(errors)
    return form_of, back_form


class FormReuse:
    """The forms of a build's cache this build may use (its PDFs seeded with the cache's
    encoding: ``render.forms``), and the forms painted in this build, kept only once every PDF
    of the build is written (``commit``)."""

    def __init__(self, cache: BuildCache):
        self.cache = cache
        self.pending: dict[str, tuple[bytes, tuple]] = {}
        self.encoding = cache.encoding

    def form(self, digest: str) -> list | None:
        return self.cache.form(digest) if self.encoding is not None else None

    def seed(self, canvas: Canvas) -> None:
        """Give a new PDF the cache's encoding; when it cannot be given, no form is reused."""
        if self.encoding is not None and not seed_encoding(canvas, self.encoding):
            self.encoding = None

    def capture(self, canvas: Canvas) -> None:
        """The encoding of this build's PDF, just before it is saved (saving consumes it)."""
        self.captured = capture_encoding(canvas)

    def commit(self) -> None:
        captured = getattr(self, "captured", None)
        if captured is None:
            self.cache.reset_forms()
            return
        if self.encoding is None:
            self.cache.reset_forms()  # a new encoding: the old forms are not valid with it
        for digest, (stream, images) in self.pending.items():
            self.cache.keep_form(digest, stream, images)
        self.cache.encoding = captured


def _canvas(path: Path, game: GameDefinition, layout: SheetLayout, font: str) -> Canvas:
    pw, ph = PAPERS_MM[layout.paper]
    c = Canvas(str(path), pagesize=(pw * mm, ph * mm), initialFontName=font, pageCompression=1)
    c.setTitle(f"{game.name} — print-and-play card sheets ({layout.paper.upper()})")
    c.setAuthor("cardpress")
    c.setSubject(layout.describe())
    return c


def _size_of(game: GameDefinition, type_id: str) -> tuple[float, float]:
    """(w, h) mm of a card type's cards (a type may have its own size: ``card_size_of``)."""
    size = game.card_size_of(type_id)
    return size.width_mm, size.height_mm


def _back_size(game: GameDefinition, back: str) -> tuple[float, float]:
    """(w, h) mm of a back design: the size of the card types that use it."""
    size = game.back_size(back)
    return size.width_mm, size.height_mm


def size_layouts(game: GameDefinition, cards: Iterable[Card], paper: str,
                 options: BuildOptions) -> list[tuple[SheetLayout, list[Card]]]:
    """The print sequence grouped by card size (in order of first appearance), each group with
    the layout for its size on ``paper``: each size gets sheets of its own in the same PDF."""
    groups: dict[tuple[float, float], list[Card]] = {}
    for card in cards:
        groups.setdefault(_size_of(game, card.type), []).append(card)
    return [(choose_layout(paper, w, h, options.bleed_mm, options.margin_mm, options.gutter_mm, options.layout), group)
            for (w, h), group in groups.items()]


def impose_pages(c: Canvas, prep: "Prepared", layout: SheetLayout, forms: tuple[dict, dict], options: BuildOptions,
                 progress: Progress | None = None) -> int:
    """Place the forms on sheets: fronts, then their mirrored backs (a fold layout: both on one
    page); return the page count. Cards of another size than ``layout``'s get sheets of their own
    (``size_layouts``)."""
    plan = size_layouts(prep.game, prep.sequence, layout.paper, options)
    if len(plan) == 1:
        plan = [(layout, plan[0][1])]
    sheets = [(lay, group[i:i + lay.per_sheet]) for lay, group in plan for i in range(0, len(group), lay.per_sheet)]
    pages = 0
    for s, (lay, sheet) in enumerate(sheets):
        pages += _impose_sheet(c, prep, lay, sheet, forms, options, s + 1, len(sheets))
        if progress:
            progress(Label(SHEETS, paper=layout.paper.upper()), s + 1, len(sheets))
    return pages


def _impose_sheet(c: Canvas, prep: "Prepared", layout: SheetLayout, sheet: list[Card], forms: tuple[dict, dict],
                  options: BuildOptions, number: int, of: int) -> int:
    """One sheet: its front page and back page (one page for a fold layout); the pages written."""
    form_of, back_form = forms
    fronts = layout.front_cells()
    back_cells = layout.back_cells(options.flip, options.back_offset_mm)
    fonts = prep.painter.fonts
    fold = layout.kind == "fold"
    _boxes(c, layout, fronts[: len(sheet)] + (back_cells[: len(sheet)] if fold else []))
    for card, cell in zip(sheet, fronts):
        _place(c, cell, form_of[card.id])
    if fold:
        for card, cell in zip(sheet, back_cells):
            _place(c, cell, back_form[prep.back_of(card)])
        _fold_line(c, layout)
    _crop_marks(c, layout)
    _registration_marks(c, layout)
    _furniture(c, layout, fonts, sheet_label(prep.game, layout, number, of, "fold" if fold else "front"))
    c.showPage()
    compress_page(c)
    if not fold:
        _boxes(c, layout, back_cells[: len(sheet)])
        for card, cell in zip(sheet, back_cells):
            _place(c, cell, back_form[prep.back_of(card)])
        if options.back_marks:
            _crop_marks(c, layout, options.back_offset_mm)
        _furniture(c, layout, fonts, sheet_label(prep.game, layout, number, of, "back"),
                   options.back_offset_mm, scale_bar=options.back_marks)
        c.showPage()
        compress_page(c)
    return 1 if fold else 2


class FaceStore:
    """Faces laid out ahead of drawing (while the text sizes are shared), kept packed
    (``layout.elements.pack``: ~1 KB a face instead of ~5 KB of objects) so memory stays flat
    with the deck, and each taken once when drawn. Only the cards it was made for are kept."""

    def __init__(self, card_ids: Iterable[str]):
        self._wanted = set(card_ids)
        self._packed: dict[str, bytes | list[Element]] = {}

    def __contains__(self, card_id: str) -> bool:
        return card_id in self._wanted

    def __setitem__(self, card_id: str, elements: list[Element]) -> None:
        self._packed[card_id] = pack(elements) or elements

    def get(self, card_id: str) -> list[Element] | None:
        kept = self._packed.get(card_id)
        return unpack(kept) if isinstance(kept, bytes) else kept

    def pop(self, card_id: str, default: None = None) -> list[Element] | None:
        faces = self.get(card_id)
        self._packed.pop(card_id, None)
        return faces

    def packed(self) -> dict[str, bytes]:
        """The packed faces, to hand to another process (faces that do not pack stay here)."""
        return {cid: blob for cid, blob in self._packed.items() if isinstance(blob, bytes)}

    def learn(self, packed: dict[str, bytes]) -> None:
        self._packed.update((cid, blob) for cid, blob in packed.items() if cid in self._wanted)


@dataclass
class Prepared:
    """A checked game ready to draw: the print sequence, the templates, the faces laid out while
    the card types' text sizes were shared (each dropped once painted), the backs, and the
    painter with its caches."""

    game: GameDefinition
    cards: dict[str, Card]
    sequence: list[Card]
    layouts: Layouts
    backs: dict[str, list[Element]]
    painter: CardPainter
    bleed_mm: float
    #: Cards whose face could not be laid out when sizes were shared (reported when drawn).
    face_errors: dict[str, CardpressError] = field(default_factory=dict)
    #: Faces already laid out (by card id), used once by ``paint_forms`` and dropped.
    faces: FaceStore = field(default_factory=lambda: FaceStore(()))
    #: What earlier builds of the game made (``pipeline.buildcache``), and each card's key in it.
    cache: BuildCache | None = None
    keys: dict[str, str] = field(default_factory=dict)
    #: (face digests by card id, back digests by back), once known (``digests``).
    digests: tuple[dict[str, str], dict[str, str]] | None = None
    #: Set by ``build_sheets`` when its PDFs are seeded to take the cache's forms.
    reuse: FormReuse | None = None
    painted: int = 0
    reused: int = 0

    def elements(self, card: Card) -> list[Element]:
        """A card's face: laid out already, kept in the cache, or laid out now."""
        faces = self.faces.get(card.id)
        if faces is not None:
            return faces
        entry = self.cache.layouts.get(self.keys.get(card.id, "")) if self.cache is not None else None
        return unpack(entry[0]) if entry is not None else self.layouts.face(card, self.bleed_mm)

    @property
    def distinct(self) -> list[Card]:
        return list({card.id: card for card in self.sequence}.values())

    def back_of(self, card: Card) -> str:
        return self.game.card_types[card.type].back


def _art_jobs(prep: Prepared) -> set[tuple[Path, float, float]]:
    """(art file, box w, box h) for every card with art. The art box is learnt from one laid-out
    card per type (templates size art per type); a template that varies it per card still
    works: the painter normalises any other size on demand."""
    boxes: dict[str, list[tuple[float, float]]] = {}
    jobs = set()
    for card in prep.distinct:
        if card.art_path is None or not card.art_path.is_file():
            continue
        if card.type not in boxes and card.id not in prep.face_errors:
            try:
                elements = prep.elements(card)
            except CardpressError:
                elements = []  # reported when the card is drawn
            boxes[card.type] = [(float(e["w"]), float(e["h"])) for e in elements if e.kind == "art"]
        jobs.update((card.art_path, w, h) for w, h in boxes.get(card.type, ()))
    return jobs


def _faces(layouts: Layouts, cards: Iterable[Card], bleed_mm: float,
           face_errors: dict[str, CardpressError] | None = None,
           keep: dict[str, list[Element] | None] | FaceStore | None = None,
           counted: Callable[[int], None] | None = None,
           prep: Prepared | None = None) -> Iterator[tuple[str, list[Element]]]:
    """(card type, face elements) of each card that lays out; the others' errors go to
    ``face_errors`` (by card id). Faces of the cards named in ``keep`` are stored there.
    ``counted(n)`` hears how many cards were laid out so far. With ``prep.cache``, a card whose
    key the cache holds is not rendered: its elements and fits come from the cache; the others
    are kept there with their fits (known once the consumer, ``text_fits``, asks for the next)."""
    cache = prep.cache if prep is not None else None
    painter = prep.painter if prep is not None else None
    for n, card in enumerate(cards):
        key = prep.keys.get(card.id) if cache is not None else None
        entry = cache.layout(key) if key is not None else None
        try:
            if entry is not None:
                elements = unpack(entry[0])
                painter.learn_fits(dict(entry[1]))
            else:
                elements = layouts.face(card, bleed_mm)
            if keep is not None and card.id in keep:
                keep[card.id] = elements
            yield card.type, elements
            if entry is None and key is not None:
                packed = pack(elements)
                if packed is not None:
                    cache.keep_layout(key, packed, painter.fits_of(elements))
        except CardpressError as exc:
            if face_errors is not None:
                face_errors[card.id] = exc
        if counted:
            counted(n + 1)


def share_text_sizes(layouts: Layouts, cards: Iterable[Card], painter: CardPainter, bleed_mm: float,
                     face_errors: dict[str, CardpressError] | None = None,
                     keep: dict[str, list[Element] | None] | FaceStore | None = None) -> dict[tuple[str, str], float]:
    """Give ``painter`` one rules-text size per card type, learnt from every card of the game (not
    only a deck's), so a card prints at the same size in any build and next to its kind.
    Returns ``{(card type, field): size}``. A card whose face cannot be laid out is left out and
    its error kept in ``face_errors`` (by card id), to be reported when the card is drawn: a
    second render could only say less (a template that ran out of time is not run again).
    Faces of the cards named in ``keep`` are stored there, so they are not rendered twice
    (rendering is most of a build's time)."""
    return painter.share_sizes(_faces(layouts, cards, bleed_mm, face_errors, keep))


def _fit_and_normalise(prep: Prepared, cards: list[Card], requested: int | None, progress: Progress | None) -> None:
    """Normalise the art and share the rules-text sizes (``share_text_sizes``), on ``jobs``
    processes: a forked child takes every other card and artwork (``pipeline.workers``), hands
    back its text fits, its packed faces, the art it made and the cards it could not lay out
    (with their errors), and the parent merges them. The result is the same as one process's. Art alone still spreads over the
    cores where the text cannot (no fork), unless one process was asked for."""
    jobs = resolve_jobs(requested)
    painter = prep.painter
    cache = prep.cache
    art_jobs = _art_jobs(prep)
    if cache is not None:
        painter.learn_art(cache.known_art(art_jobs))
        if sum(prep.keys.get(card.id) not in cache.layouts for card in cards) < 32:
            jobs = 1  # a few cards to lay out: not worth a second process
    art = painter.art_to_prepare(art_jobs)
    their_cards, my_cards = halves(cards) if jobs > 1 else ([], cards)
    their_art, my_art = halves(art) if jobs > 1 else ([], art)
    theirs = Shared(2)  # the child's progress: artworks done, cards laid out
    mine = [0, 0]

    def show() -> None:
        if progress and art:
            progress(Label(PREPARING_ART), mine[0] + theirs[0], len(art))
        if progress:
            progress(Label(LAYING_OUT), mine[1] + theirs[1], len(cards))

    def counter(target, k: int, echo: bool) -> Callable[[int], None]:
        def set_count(n: int) -> None:
            target[k] = n
            if echo:
                show()
        return set_count

    def child() -> tuple:
        painter.prepare_art(their_art, processes=1, done=counter(theirs, 0, False))
        failed: dict[str, CardpressError] = {}
        fits = painter.text_fits(_faces(prep.layouts, their_cards, prep.bleed_mm, failed, prep.faces,
                                        counted=counter(theirs, 1, False), prep=prep))
        failures = {cid: str(exc) for cid, exc in failed.items()}
        layouts = cache.fresh_layouts() if cache is not None else {}
        return fits, failures, painter.known_art(), painter.known_fits(), prep.faces.packed(), layouts

    def parent() -> dict:
        painter.prepare_art(my_art, processes=None if requested is None and jobs == 1 else 1, done=counter(mine, 0, True))
        return painter.text_fits(_faces(prep.layouts, my_cards, prep.bleed_mm, prep.face_errors, prep.faces,
                                        counted=counter(mine, 1, True), prep=prep))

    try:
        my_fits, (their_fits, failed, known_art, known_fits, faces, layouts) = in_parallel(child, parent, jobs,
                                                                                           waiting=show)
    except ArtError as exc:
        raise _art_problems(prep, exc) from None
    except WorkerError as exc:  # the child's art error, by message: find it here, with the cards
        try:
            painter.prepare_art(their_art, processes=1)
        except ArtError as art_exc:
            raise _art_problems(prep, art_exc) from None
        raise exc
    painter.learn_art(known_art)
    painter.learn_fits(known_fits)
    prep.faces.learn(faces)
    if cache is not None:
        cache.learn_layouts(layouts)
    # The child's cards that cannot be laid out keep its message (not rendered again: a template
    # that ran out of time would take its time again).
    prep.face_errors.update((cid, WorkerError(message)) for cid, message in failed.items())
    painter.share_fits(my_fits, their_fits)
    show()


def prepare(game: str | Path | GameDefinition, deck: Path | None = None, bleed_mm: float = 3.0,
            progress: Progress | None = None, report: GameReport | None = None,
            jobs: int | None = None, cache: bool = False) -> Prepared:
    """Load → check → get templates, backs and art ready. Raises ``DataError`` for bad data;
    writes nothing. Pass ``report`` when the game was just checked, to skip checking again.
    ``jobs``: processes for the art and text fitting (default: 2 when two cores are free).
    ``cache``: take what earlier builds laid out (``pipeline.buildcache``); the caller saves it."""
    if not math.isfinite(bleed_mm) or bleed_mm < 0:
        raise BuildOptionError(_("--{name} must be a finite number of millimetres ≥ 0, got {value!r}")
                               .format(name="bleed", value=bleed_mm))
    definition = game if isinstance(game, GameDefinition) else load_game(game)
    if deck is not None:
        deck = user_deck(definition, deck)
    if report is None:
        report = check_game(definition, decks=[deck] if deck else None)
    report.raise_if_problems()
    if not report.cards:
        raise DataError(Problem(_("the game has no cards"), Location(definition.card_data_dir / "cards")))
    chosen = report.decks[0] if deck else None
    sequence = print_sequence(definition, report.cards, chosen.entries if chosen else None)
    if not sequence:
        raise DataError(Problem(_("the deck has no cards"), Location(deck)))
    layouts = Layouts(definition)
    size = definition.card_size
    painter = CardPainter(register_fonts(), size.width_mm, size.height_mm, definition.card_data_dir)
    backs = {}
    errors: list[CardpressError] = []
    for back in dict.fromkeys(definition.card_types[card.type].back for card in sequence):
        try:
            backs[back] = layouts.back(back, bleed_mm)
        except CardpressError as exc:
            errors.append(exc)
    if errors:
        raise errors[0] if len(errors) == 1 else DataError([Problem(str(e)) for e in errors])
    prep = Prepared(definition, report.cards, sequence, layouts, backs, painter, bleed_mm)
    prep.faces = FaceStore(card.id for card in sequence)
    if cache:
        prep.cache = open_cache(definition, layouts.roots, bleed_mm, painter.fonts)
        game_key = prep.cache.key
        prep.keys = {cid: card_key(game_key, card) for cid, card in report.cards.items()}
    _fit_and_normalise(prep, list(report.cards.values()), jobs, progress)
    if prep.cache is not None:
        prep.cache.keep_art(painter.known_art())
    return prep


def _art_problems(prep: Prepared, exc: ArtError) -> DataError:
    """An art file that cannot be used, named with every card that shows it."""
    users = [card for card in prep.distinct if card.art_path is not None and card.art_path == exc.path]
    if not users:
        return DataError(Problem(exc.reason, Location(exc.path), field="art"))
    return DataError([Problem(_("{where}: {message}").format(where=exc.path.name, message=exc.reason),
                              Location(card.where.file, card.where.line, card.where.row), card.id, "art")
                      for card in users])


def render_check(report: GameReport) -> list[CardpressError]:
    """Lay out and draw every card and back of a checked game off-page; return every problem
    found (empty = all print)."""
    prep = prepare(report.game, report=report, cache=True)
    # Boxes first (issue 10 §2): every face and back laid out, each element on the card and
    # its bleed, text inside the safe zone and apart (pipeline.layout.bounds).
    from .layout.bounds import check_bounds

    game, b = prep.game, prep.bleed_mm
    boxes: list[CardpressError] = []
    for card in prep.distinct:
        if card.id in prep.face_errors:
            continue
        try:
            elements = prep.elements(card)
        except CardpressError:
            continue  # reported by the painting below
        boxes += check_bounds(elements, *_size_of(game, card.type), b, _("card {card!r}").format(card=card.id),
                              game.safe_zone_mm)
    for back, elements in prep.backs.items():
        boxes += check_bounds(elements, *_back_size(game, back), b,
                              _("back {back!r}").format(back=back), game.safe_zone_mm)
    canvas = Canvas(io.BytesIO(), initialFontName=prep.painter.fonts.regular)
    # A face whose form a build kept printed then, and prints the same now: not painted again.
    prep.digests = digests(prep)
    prep.reuse = FormReuse(prep.cache)
    try:
        paint_forms([canvas], prep)
    except CardErrors as exc:
        return list(exc.errors) + boxes
    finally:
        prep.cache.save()  # the layouts learnt (forms are kept only by builds)
    return boxes


def build_sheets(game: str | Path | GameDefinition, options: BuildOptions = BuildOptions(),
                 progress: Progress | None = None) -> BuildResult:
    """Check, lay out and impose a game's cards into ``out_dir/cards-<paper>.pdf``.

    All papers are drawn in one pass (each face laid out once, painted into every paper's PDF).
    Raises ``DataError`` (bad data), ``CardErrors`` (cards that cannot print) or ``LayoutError``;
    then nothing is written.
    """
    definition = game if isinstance(game, GameDefinition) else load_game(game)
    check_options(options)
    size = definition.card_size
    # Check the paper first: a layout that cannot fit is known before any work is done (every
    # card type's size: a type may have its own).
    layouts_by_paper = {
        paper: choose_layout(paper, size.width_mm, size.height_mm, options.bleed_mm, options.margin_mm,
                             options.gutter_mm, options.layout)
        for paper in options.papers
    }
    cutter = options.layout in CUTTER_KINDS
    for type_id in definition.card_types:
        w, h = _size_of(definition, type_id)
        for paper in options.papers:
            choose_layout(paper, w, h, options.bleed_mm, options.margin_mm, options.gutter_mm, options.layout)
        if cutter:
            check_radius(options.corner_radius_mm, w, h)
    earlier = read_manifest(options.changed_since) if options.changed_since is not None else None
    prep = prepare(definition, options.deck, options.bleed_mm, progress, jobs=options.jobs, cache=options.cache)
    out_dir = options.out_dir or output_path(Path("dist"), definition.id)
    faces, backs = prep.digests = digests(prep)
    prefix, changes = "cards", None
    if earlier is not None:
        # An errata set: only new and changed faces, in files of their own (the full print's
        # PDFs and manifest stay the base the next comparison is made against).
        changes = compare(earlier, faces)
        wanted = set(changes.new) | set(changes.changed)
        prep.sequence = [card for card in prep.sequence if card.id in wanted]
        prefix = "changed"
        if not prep.sequence:
            return BuildResult(definition, 0, 0, changes=changes)
    result = BuildResult(definition, len(prep.sequence), len(prep.distinct), changes=changes)
    if prep.cache is not None:
        prep.reuse = FormReuse(prep.cache)
        wanted = [faces.get(card.id) for card in prep.distinct] + list(backs.values())
        if sum(d in prep.cache.forms for d in wanted) * 2 < len(wanted):
            prep.reuse.encoding = None  # most faces are new: start a new encoding (no glyphs kept unused)
    with ExitStack() as stack:
        targets = {paper: output_path(out_dir, f"{prefix}-{paper}.pdf") for paper in layouts_by_paper}
        temps = {paper: stack.enter_context(atomic_write(path)) for paper, path in targets.items()}
        if len(layouts_by_paper) == 2 and resolve_jobs(options.jobs) == 2:
            pages = _papers_in_parallel(prep, layouts_by_paper, temps, options, progress)
        else:
            pages = _papers_in_one_pass(prep, layouts_by_paper, temps, options, progress)
        for paper, layout in layouts_by_paper.items():
            plan = [lay for lay, _cards in size_layouts(definition, prep.sequence, paper, options)]
            if len(plan) == 1:
                plan = [layout]
            sheet_file = SheetFile(paper, targets[paper], pages[paper], plan[0], plan)
            if cutter:
                sheet_file.cut_files = _cut_files(stack, out_dir, f"{prefix}-{paper}", plan, options.corner_radius_mm)
            result.files.append(sheet_file)
    if earlier is None:
        result.manifest = write_manifest(out_dir, definition.id, faces, backs)
    if prep.cache is not None:
        prep.reuse.commit()
        prep.cache.save()
    result.painted, result.reused = prep.painted, prep.reused
    return result


def _cut_files(stack: ExitStack, out_dir: Path, stem: str, plan: list[SheetLayout], radius: float) -> list[Path]:
    """``<stem>-cut.svg`` and ``.dxf`` for the first layout (``-cut-<w>x<h>`` for other card
    sizes' sheets), written atomically with the PDFs."""
    from .outputs.cutfile import write_cut_files

    paths = []
    for n, lay in enumerate(plan):
        name = f"{stem}-cut" if n == 0 else f"{stem}-cut-{lay.card_w:g}x{lay.card_h:g}"
        svg_path, dxf_path = output_path(out_dir, name + ".svg"), output_path(out_dir, name + ".dxf")
        write_cut_files(lay, radius, stack.enter_context(atomic_write(svg_path)),
                        stack.enter_context(atomic_write(dxf_path)))
        paths += [svg_path, dxf_path]
    return paths


def digests(prep: Prepared) -> tuple[dict[str, str], dict[str, str]]:
    """The digest of every face of the print sequence and of every back (``outputs.manifest``);
    a card that cannot be laid out has none (the build reports it)."""
    b, game = prep.bleed_mm, prep.game
    faces = {card.id: face_digest(prep.painter, prep.elements(card), card, b, _size_of(game, card.type))
             for card in prep.distinct if card.id not in prep.face_errors}
    backs = {name: face_digest(prep.painter, elements, None, b, _back_size(game, name))
             for name, elements in prep.backs.items()}
    return faces, backs


def _papers_in_one_pass(prep: Prepared, layouts: dict[str, SheetLayout], temps: dict[str, Path],
                        options: BuildOptions, progress: Progress | None) -> dict[str, int]:
    """Every paper's PDF in this process: each face laid out once and painted into every paper's
    PDF in a row (its wrapped paragraphs reused), then each paper imposed. Returns pages per paper."""
    canvases = {paper: _canvas(temps[paper], prep.game, layout, prep.painter.fonts.regular)
                for paper, layout in layouts.items()}
    if prep.reuse is not None:
        for c in canvases.values():
            prep.reuse.seed(c)
    forms = paint_forms(list(canvases.values()), prep, progress)
    pages = {}
    for n, (paper, layout) in enumerate(layouts.items()):
        pages[paper] = impose_pages(canvases[paper], prep, layout, forms, options, progress)
        if n == 0 and prep.reuse is not None:
            prep.reuse.capture(canvases[paper])
        save(canvases[paper], temps[paper])
    return pages


def _papers_in_parallel(prep: Prepared, layouts: dict[str, SheetLayout], temps: dict[str, Path],
                        options: BuildOptions, progress: Progress | None) -> dict[str, int]:
    """Two papers on two cores: a forked child draws and imposes the second paper's PDF into its
    temp file while this process makes the first (``pipeline.workers``). Each PDF is the one a
    single process would write. A card that cannot print fails in both; this process reports it
    (its own errors, with every detail) and the child is stopped."""
    (mine, my_layout), (theirs, their_layout) = layouts.items()
    distinct = len(prep.distinct)
    their_sheets = -(-len(prep.sequence) // their_layout.per_sheet)
    counts = Shared(2)  # the child's faces drawn and sheets imposed
    drawn = [0]

    def show() -> None:
        if progress:
            progress(Label(DRAWING), (drawn[0] + counts[0]) // 2, distinct)
            progress(Label(SHEETS, paper=theirs.upper()), counts[1], their_sheets)

    def mine_progress(label: str, done: int, total: int) -> None:
        if key_of(label) == DRAWING:
            drawn[0] = done
            show()
        elif progress:
            progress(label, done, total)

    def their_progress(label: str, done: int, total: int) -> None:
        counts[0 if key_of(label) == DRAWING else 1] = done

    def one(paper: str, layout: SheetLayout, report: Progress) -> int:
        canvas = _canvas(temps[paper], prep.game, layout, prep.painter.fonts.regular)
        if prep.reuse is not None:
            prep.reuse.seed(canvas)
        forms = paint_forms([canvas], prep, report)
        pages = impose_pages(canvas, prep, layout, forms, options, report)
        if prep.reuse is not None:
            prep.reuse.capture(canvas)  # this process's; the child's is dropped with it
        save(canvas, temps[paper])
        return pages

    load_font_files(prep.painter.fonts)  # shared with the child, not read by each
    my_pages, their_pages = in_parallel(lambda: one(theirs, their_layout, their_progress),
                                        lambda: one(mine, my_layout, mine_progress if progress else None),
                                        2, waiting=show)
    show()
    return {mine: my_pages, theirs: their_pages}
