"""Card sheets, what ``cardpress build`` writes: ``cards-<paper>.pdf`` per paper, the
manifest of the faces printed, and a cutter layout's cut files.

``build_sheets(game, options)`` plans (``pipeline.plan``: load, check, lay out, fit), paints
each distinct face once into every paper's PDF (``render.forms``), imposes the sheets
(``render.sheets``) and writes each file to a temp file renamed into place: nothing is written
unless the whole game checks clean and every face draws (all problems reported together).
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path

from engine.cards import Card
from engine.definitions import GameDefinition, load_game
from engine.i18n import _, ngettext

from ..atomic import atomic_write, output_path
from ..impose import CUTTER_KINDS, SheetLayout, choose_layout
from ..plan import BuildOptions, Prepared, check_options, digests, prepare, size_layouts
from ..progress import DRAWING, SHEETS, Label, Progress, key_of
from ..render.fonts import load_font_files
from ..render.forms import FormReuse, paint_forms
from ..render.sheets import impose_pages, sheet_canvas
from ..render.streams import save
from ..workers import Shared, in_parallel, resolve_jobs
from .cutfile import check_radius
from .manifest import Changes, compare, read_manifest, write_manifest

Plans = dict[str, list[tuple[SheetLayout, list[Card]]]]


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


def build_sheets(game: str | Path | GameDefinition, options: BuildOptions = BuildOptions(),
                 progress: Progress | None = None) -> BuildResult:
    """Check, lay out and impose a game's cards into ``out_dir/cards-<paper>.pdf``.

    All papers are drawn in one pass (each face laid out once, painted into every paper's PDF).
    Raises ``DataError`` (bad data), ``CardErrors`` (cards that cannot print) or ``LayoutError``;
    then nothing is written.
    """
    definition = game if isinstance(game, GameDefinition) else load_game(game)
    check_options(options)
    # Check the paper first: a layout that cannot fit is known before any work is done (every
    # card type's size: a type may have its own).
    cutter = options.layout in CUTTER_KINDS
    for w, h in dict.fromkeys(definition.card_size_of(type_id).mm for type_id in definition.card_types):
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
    plans: Plans = {paper: size_layouts(definition, prep.sequence, paper, options) for paper in options.papers}
    with ExitStack() as stack:
        targets = {paper: output_path(out_dir, f"{prefix}-{paper}.pdf") for paper in plans}
        temps = {paper: stack.enter_context(atomic_write(path)) for paper, path in targets.items()}
        if len(plans) == 2 and resolve_jobs(options.jobs) == 2:
            pages = _papers_in_parallel(prep, plans, temps, options, progress)
        else:
            pages = _papers_in_one_pass(prep, plans, temps, options, progress)
        for paper, plan in plans.items():
            layouts = [lay for lay, _cards in plan]
            sheet_file = SheetFile(paper, targets[paper], pages[paper], layouts[0], layouts)
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


def summary(result: BuildResult, changed_since: Path | None = None) -> list[str]:
    """What ``cardpress build`` says of a build, line by line: the cards, the faces painted and
    reused, each file with its layout (its drift tolerance, the trade-off, other card sizes'
    layouts, the cut files); with ``changed_since``, what changed first."""
    lines = []
    if result.changes is not None:
        lines.append(_("since {earlier}: {changes}").format(earlier=changed_since, changes=result.changes.describe()))
        if not result.files:
            return lines + [_("nothing to print: no card is new or changed")]
    lines.append(_("{game}: {cards} cards ({distinct} distinct)").format(
        game=result.game.name, cards=result.cards, distinct=result.distinct))
    painted = ngettext("{n} face painted", "{n} faces painted", result.painted).format(n=result.painted)
    lines.append("  " + _("{painted}, {reused} reused from the last build").format(painted=painted,
                                                                                 reused=result.reused))
    for f in result.files:
        lines.append(_("  {path}  {pages} pages — {layout}").format(path=f.path, pages=f.pages,
                                                                   layout=f.layout.describe()))
        if f.layout.trade_off():
            lines.append("    " + f.layout.trade_off())
        for extra in f.layouts[1:]:  # a card type of another size: sheets of its own in the same PDF
            lines.append("    " + _("{w:g} × {h:g} mm cards: {layout}").format(w=extra.card_w, h=extra.card_h,
                                                                              layout=extra.describe()))
        for cut in f.cut_files:  # --layout silhouette/cricut: import into the cutter's software at 100 %
            lines.append("    " + _("cut file: {path}").format(path=cut))
    return lines


def _cut_files(stack: ExitStack, out_dir: Path, stem: str, plan: list[tuple[SheetLayout, list[Card]]],
               radius: float) -> list[Path]:
    """``<stem>-cut.svg`` and ``.dxf`` for the first layout (``-cut-<w>x<h>`` for other card
    sizes' sheets), written atomically with the PDFs. When a layout's last sheet is partial, also
    ``<name>-last.svg``/``.dxf`` (``<stem>-cut-last``, ``<stem>-cut-<w>x<h>-last``): only the cells
    that sheet fills, so the blade does not cut empty paper."""
    from .cutfile import write_cut_files

    paths = []
    for n, (lay, cards) in enumerate(plan):
        name = f"{stem}-cut" if n == 0 else f"{stem}-cut-{lay.card_w:g}x{lay.card_h:g}"
        last = len(cards) % lay.per_sheet
        if not last:  # a full last sheet: the full sheet's file cuts it; an earlier build's -last goes
            stack.push(_drop_when_done(output_path(out_dir, name + "-last.svg"), output_path(out_dir, name + "-last.dxf")))
        for file_name, count in [(name, None)] + ([(name + "-last", last)] if last else []):
            svg_path, dxf_path = output_path(out_dir, file_name + ".svg"), output_path(out_dir, file_name + ".dxf")
            write_cut_files(lay, radius, stack.enter_context(atomic_write(svg_path)),
                            stack.enter_context(atomic_write(dxf_path)), count)
            paths += [svg_path, dxf_path]
    return paths


def _drop_when_done(*stale: Path):
    """An exit callback that removes ``stale`` files once the build succeeded (not if it failed)."""
    def drop(exc_type, _exc, _tb) -> bool:
        if exc_type is None:
            for path in stale:
                path.unlink(missing_ok=True)
        return False
    return drop


def _papers_in_one_pass(prep: Prepared, plans: Plans, temps: dict[str, Path], options: BuildOptions,
                        progress: Progress | None) -> dict[str, int]:
    """Every paper's PDF in this process: each face laid out once and painted into every paper's
    PDF in a row (its wrapped paragraphs reused), then each paper imposed. Returns pages per paper."""
    canvases = {paper: sheet_canvas(temps[paper], prep.game, plan[0][0], prep.painter.fonts.regular)
                for paper, plan in plans.items()}
    if prep.reuse is not None:
        for c in canvases.values():
            prep.reuse.seed(c)
    forms = paint_forms(list(canvases.values()), prep, progress)
    pages = {}
    for n, (paper, plan) in enumerate(plans.items()):
        pages[paper] = impose_pages(canvases[paper], prep, plan, forms, options, progress)
        if n == 0 and prep.reuse is not None:
            prep.reuse.capture(canvases[paper])
        save(canvases[paper], temps[paper])
    return pages


def _papers_in_parallel(prep: Prepared, plans: Plans, temps: dict[str, Path], options: BuildOptions,
                        progress: Progress | None) -> dict[str, int]:
    """Two papers on two cores: a forked child draws and imposes the second paper's PDF into its
    temp file while this process makes the first (``pipeline.workers``). Each PDF is the one a
    single process would write. A card that cannot print fails in both; this process reports it
    (its own errors, with every detail) and the child is stopped."""
    (mine, my_plan), (theirs, their_plan) = plans.items()
    distinct = len(prep.distinct)
    their_sheets = sum(-(-len(group) // lay.per_sheet) for lay, group in their_plan)
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

    def one(paper: str, plan: list, report: Progress | None) -> int:
        canvas = sheet_canvas(temps[paper], prep.game, plan[0][0], prep.painter.fonts.regular)
        if prep.reuse is not None:
            prep.reuse.seed(canvas)
        forms = paint_forms([canvas], prep, report)
        pages = impose_pages(canvas, prep, plan, forms, options, report)
        if prep.reuse is not None:
            prep.reuse.capture(canvas)  # this process's; the child's is dropped with it
        save(canvas, temps[paper])
        return pages

    load_font_files(prep.painter.fonts)  # shared with the child, not read by each
    my_pages, their_pages = in_parallel(lambda: one(theirs, their_plan, their_progress),
                                        lambda: one(mine, my_plan, mine_progress if progress else None),
                                        2, waiting=show)
    show()
    return {mine: my_pages, theirs: their_pages}
