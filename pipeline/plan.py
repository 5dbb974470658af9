"""Plan a print: game folder → checked data → print sequence → laid-out faces with shared text sizes.

``prepare(game, deck)`` loads and checks a game, orders its cards for print, lays out every
face (the templates: ``pipeline.layout``), shares each card type's rules-text size across the
game and normalises the art, on two processes when two cores are free. Its ``Prepared`` is what
every output draws from (sheets, images, shops, previews); it writes nothing. Bad data raises
``DataError`` naming file, row, card and field.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from engine.cards import Card
from engine.check import GameReport, check_game
from engine.decks import user_deck
from engine.definitions import GameDefinition, load_game
from engine.errors import CardpressError, DataError, Location, Problem
from engine.i18n import _

from .art import ArtError
from .buildcache import BuildCache, card_key, open_cache
from .impose import Flip, Kind, SheetLayout, choose_layout
from .layout import Element, Layouts
from .layout.elements import pack, unpack
from .outputs.manifest import face_digest
from .progress import LAYING_OUT, PREPARING_ART, Label, Progress
from .render.fonts import register_fonts
from .render.forms import CardErrors, FormReuse, paint_forms, scratch_canvas
from .render.painter import CardPainter
from .workers import Shared, WorkerError, halves, in_parallel, resolve_jobs


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


def print_sequence(game: GameDefinition, cards: dict[str, Card],
                   deck_entries: tuple[tuple[str, int], ...] | None) -> list[Card]:
    """Cards in print order: a deck's cards with their counts (deck order), or one of each card
    grouped by card type in the order ``game.yaml`` lists the types."""
    if deck_entries is None:
        order = {type_id: n for n, type_id in enumerate(game.card_types)}
        return sorted(cards.values(), key=lambda card: order[card.type])
    return [cards[cid] for cid, n in deck_entries for _copy in range(n)]


def size_layouts(game: GameDefinition, cards: Iterable[Card], paper: str,
                 options: BuildOptions) -> list[tuple[SheetLayout, list[Card]]]:
    """The print sequence grouped by card size (in order of first appearance), each group with
    the layout for its size on ``paper``: each size gets sheets of its own in the same PDF."""
    groups: dict[tuple[float, float], list[Card]] = {}
    for card in cards:
        groups.setdefault(game.card_size_of(card.type).mm, []).append(card)
    return [(choose_layout(paper, w, h, options.bleed_mm, options.margin_mm, options.gutter_mm, options.layout), group)
            for (w, h), group in groups.items()]


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


def laid_out_faces(layouts: Layouts, cards: Iterable[Card], bleed_mm: float,
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
    return painter.share_sizes(laid_out_faces(layouts, cards, bleed_mm, face_errors, keep))


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
        fits = painter.text_fits(laid_out_faces(prep.layouts, their_cards, prep.bleed_mm, failed, prep.faces,
                                        counted=counter(theirs, 1, False), prep=prep))
        failures = {cid: str(exc) for cid, exc in failed.items()}
        layouts = cache.fresh_layouts() if cache is not None else {}
        return fits, failures, painter.known_art(), painter.known_fits(), prep.faces.packed(), layouts

    def parent() -> dict:
        painter.prepare_art(my_art, processes=None if requested is None and jobs == 1 else 1, done=counter(mine, 0, True))
        return painter.text_fits(laid_out_faces(prep.layouts, my_cards, prep.bleed_mm, prep.face_errors, prep.faces,
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
        boxes += check_bounds(elements, *game.card_size_of(card.type).mm, b, _("card {card!r}").format(card=card.id),
                              game.safe_zone_mm)
    for back, elements in prep.backs.items():
        boxes += check_bounds(elements, *game.back_size(back).mm, b,
                              _("back {back!r}").format(back=back), game.safe_zone_mm)
    canvas = scratch_canvas(prep.painter.fonts.regular)
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


def digests(prep: Prepared) -> tuple[dict[str, str], dict[str, str]]:
    """The digest of every face of the print sequence and of every back (``outputs.manifest``);
    a card that cannot be laid out has none (the build reports it)."""
    b, game = prep.bleed_mm, prep.game
    faces = {card.id: face_digest(prep.painter, prep.elements(card), card, b, game.card_size_of(card.type).mm)
             for card in prep.distinct if card.id not in prep.face_errors}
    backs = {name: face_digest(prep.painter, elements, None, b, game.back_size(name).mm)
             for name, elements in prep.backs.items()}
    return faces, backs
