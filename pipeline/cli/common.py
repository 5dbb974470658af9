"""What every command shares: the one error boundary, the progress bar, the options and their checks.

``Boundary`` is the root command's class: every command runs inside it, so a library error (a
``CardpressError``, the operating system's, running out of memory, Ctrl-C) becomes one message
and an exit code, whichever command met it, and a bug of ours is named as one without a traceback.
"""

from __future__ import annotations

import math
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

from engine.errors import CardpressError
from engine.i18n import _

from . import completion

TRACK_HELP = ("Track a live game at the table: turns, phases, resources, reminders, undo and a log that never "
              "loses a game.")


def _error(text: str) -> None:
    typer.secho(_("error: {message}").format(message=text), err=True, fg=typer.colors.RED)


class Boundary(TyperGroup):
    """The root group: runs the command asked for and turns what can go wrong into a message."""

    def invoke(self, ctx):
        from typer import Abort, Exit
        from typer._click.exceptions import ClickException  # Typer's own Click (pipeline.cli.lang)

        try:
            return super().invoke(ctx)
        except (Exit, Abort, ClickException):
            raise                                   # Click's own: usage errors, --help, typer.Exit
        except KeyboardInterrupt:
            typer.secho(_("interrupted: nothing half-written was kept"), err=True, fg=typer.colors.RED)
            raise Exit(130) from None
        except CardpressError as exc:
            _error(str(exc))
        except OSError as exc:
            from ..atomic import reason_of

            where = f" ({exc.filename})" if exc.filename else ""
            _error(_("{reason}; nothing half-written was kept").format(reason=f"{reason_of(exc)}{where}"))
        except MemoryError:
            typer.secho(_("error: out of memory (an input far larger than any card game needs?)"), err=True,
                        fg=typer.colors.RED)
        except Exception as exc:  # a bug of ours: say so plainly, without a traceback
            typer.secho(_("error: internal error ({kind}: {exc}); this is a bug in cardpress, please report it "
                          "with the command you ran").format(kind=type(exc).__name__, exc=exc), err=True,
                        fg=typer.colors.RED)
            raise Exit(2) from None
        raise Exit(1)


def fail(exc: CardpressError) -> None:
    """Print a library error the way every command does, then exit 1 (for a command that must
    tidy up first; any other lets the error reach ``Boundary``)."""
    _error(str(exc))
    raise typer.Exit(1)


def _may_be_terminal() -> bool:
    """Whether rich could take stderr for a terminal: ``rich.console.Console.is_terminal`` says
    yes only for a tty, ``TTY_COMPATIBLE=1`` or a non-empty ``FORCE_COLOR``. When none holds no
    bar is drawn, and rich (~0.05 s of imports) need not be loaded to learn that."""
    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError):  # no stderr, or a closed one: rich says no terminal too
        tty = False
    return tty or os.environ.get("TTY_COMPATIBLE") == "1" or bool(os.environ.get("FORCE_COLOR"))


@contextmanager
def progress_bar(enabled: bool = True):
    """A rich progress bar on stderr; yields a ``progress(label, done, total)`` callback."""
    if not enabled or not _may_be_terminal():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    with Progress(TextColumn("{task.description:<18}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as bar:
        tasks: dict[str, int] = {}

        def update(label: str, done: int, total: int) -> None:
            if label not in tasks:
                tasks[label] = bar.add_task(label, total=total)
            bar.update(tasks[label], completed=done, total=total)

        yield update


def paper_name(value: str) -> str:
    """The --paper option: a paper of ``templates/_common/presets/papers.yaml``, any case."""
    from engine.presets import papers

    paper = value.lower()
    if paper not in papers():
        raise typer.BadParameter(_("unknown paper {paper!r}; use {papers}").format(
            paper=value, papers=_(" or ").join(papers())), param_hint="--paper")
    return paper


def paper_names(value: str | None) -> tuple[str, ...]:
    """The papers asked for: the one named, else every paper."""
    from engine.presets import papers

    return (paper_name(value),) if value else tuple(papers())


def parse_offset(value: str) -> tuple[float, float]:
    try:
        x, y = (float(v) for v in value.split(","))
    except ValueError:
        raise typer.BadParameter(_("use X,Y in millimetres, e.g. 0.5,-1"), param_hint="--back-offset") from None
    if not (math.isfinite(x) and math.isfinite(y)):  # nan would print every back blank
        raise typer.BadParameter(_("{value!r}: use two finite numbers of millimetres, e.g. 0.5,-1").format(
            value=value), param_hint="--back-offset")
    return x, y


def millimetres(value: float | None) -> float | None:
    """--margin, --bleed, --gutter: a finite, non-negative length (``nan`` passes float())."""
    if value is not None and (not math.isfinite(value) or value < 0):
        raise typer.BadParameter(_("{value!r}: use a finite number of millimetres ≥ 0").format(value=value))
    return value



PapersOpt = Annotated[Optional[str], typer.Option(help="a4 or letter; both when not given.", show_default=False,
                                                  autocompletion=completion.papers)]
OutOpt = Annotated[Optional[Path], typer.Option(help="Output folder. Default: dist/GAME.", show_default=False)]
DeckOpt = Annotated[Optional[Path], typer.Option(help="Print exactly this deck's cards with their counts: a deck "
                                                 "file, or a deck of the game by name (artillery). Default: one of "
                                                 "each card.", show_default=False)]
GameArg = Annotated[str, typer.Argument(help="A shipped game id (backrooms, duel, ridm) or a game folder path.",
                                        show_default=False, autocompletion=completion.games)]
