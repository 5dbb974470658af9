"""``cardpress rulebook`` and ``cardpress rules``: thin Typer adapters over ``pipeline.rulebook``."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from engine.i18n import _

from . import completion
from .common import paper_name


class Format(str, Enum):
    pdf = "pdf"
    html = "html"


class Duplex(str, Enum):
    long = "long"
    short = "short"


def rulebook(
    game: Annotated[str, typer.Argument(help="Shipped game id (backrooms, duel, ridm) or a game folder.",
                                       autocompletion=completion.games)],
    paper: Annotated[str, typer.Option(help="Paper size of the PDF (the booklet's sheet size with --booklet): a4 or "
                                            "letter.", callback=paper_name, autocompletion=completion.papers)] = "a4",
    out: Annotated[Optional[Path], typer.Option("--out", help="Output folder. Default: dist/GAME.")] = None,
    booklet: Annotated[bool, typer.Option(
        "--booklet", help="Impose as a saddle-stitched booklet: A5 pages 2-up on A4 landscape "
        "(half-letter on Letter), padded to a multiple of 4.")] = False,
    format: Annotated[Format, typer.Option("--format", help="pdf, or one self-contained html file.")] = Format.pdf,
    duplex: Annotated[Duplex, typer.Option(
        help="Booklet only: how your printer flips sheets (long edge turns the backs upside down).")] = Duplex.long,
) -> None:
    """Build a game's rulebook: cover, contents, numbered rules, glossary and a gallery of every card.

    Writes DIR/rulebook-PAPER.pdf (DIR/rulebook-PAPER-booklet.pdf with --booklet,
    DIR/rulebook.html with --format html). Every number in the text comes from the
    game's game.yaml.

    Example:
        cardpress rulebook backrooms --paper letter --booklet --out print/
    """
    from rich.progress import BarColumn, Progress, TextColumn

    from ..rulebook.build import RulebookOptions, build_rulebook

    options = RulebookOptions(paper=paper, booklet=booklet, format=format.value, out_dir=out,
                              duplex=duplex.value)
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  transient=True) as bar:
        task = bar.add_task(_("rulebook"), total=1)

        def progress(stage: str, done: int, total: int) -> None:
            bar.update(task, description=stage, completed=done, total=max(total, 1))

        result = build_rulebook(game, options, progress)
    what = _("{pages} pages").format(pages=result.pages) if result.pages else "HTML"
    if result.sheets:
        what = _("{pages} pages on {sheets} sheets ({sides} sides, duplex {edge} edge)").format(
            pages=result.pages, sheets=result.sheets // 2, sides=result.sheets,
            edge=_("long") if duplex.value == "long" else _("short"))
    typer.echo(_("{path}  ({game}, {what})").format(path=result.path, game=result.game.name, what=what))


def rules(
    game: Annotated[str, typer.Argument(help="Shipped game id (backrooms, duel, ridm) or a game folder.",
                                       autocompletion=completion.games)],
    term: Annotated[str, typer.Argument(help="A rules term, e.g. 湮灭, 贯穿, 切出, 理智.")],
) -> None:
    """Look up a rules term: its glossary entry and every rulebook section that mentions it.

    Exits 1 with the nearest terms when nothing matches.

    Example:
        cardpress rules duel 湮灭
    """
    from rich.console import Console
    from rich.markup import escape
    from rich.panel import Panel

    from ..rulebook.lookup import MAX_LINES_PER_SECTION, lookup

    result = lookup(game, term)
    console = Console(highlight=False)

    def mark(text: str) -> str:
        out = escape(text)
        for name in dict.fromkeys([term, *(n for e in result.entries for n in e.names)]):
            out = out.replace(escape(name), f"[bold yellow]{escape(name)}[/]")
        return out

    for e in result.entries:
        body = e.definition + (f"\n参见：{'、'.join(e.see)}" if e.see else "")
        title = e.term + (f"（{'、'.join(e.aliases)}）" if e.aliases else "")
        console.print(Panel(mark(body), title=f"[bold]{escape(title)}[/] · {escape(result.game.name)} 术语表",
                            title_align="left", expand=False))
    if result.mentions:
        console.print(f"[bold]规则书中提到「{escape(term)}」的章节：[/]")
    for m in result.mentions:
        trail = " › ".join(m.section.parents)
        console.print(f"\n[bold cyan]§{m.section.number} {escape(m.section.title)}[/]"
                      + (f"  [dim]{escape(trail)}[/]" if trail else ""))
        for line in m.lines[:MAX_LINES_PER_SECTION]:
            console.print("  " + mark(line), soft_wrap=True)  # rich cannot wrap CJK runs well
        if len(m.lines) > MAX_LINES_PER_SECTION:
            console.print(f"  [dim]…另有{len(m.lines) - MAX_LINES_PER_SECTION}处[/]")


def register(app: typer.Typer) -> None:
    app.command("rulebook")(rulebook)
    app.command("rules")(rules)
