"""The ``cardpress`` command line: thin Typer adapters over the library.

Each command parses options, calls one library function, shows progress, and turns a
``CardpressError`` into one clear message and exit code 1.
"""

from __future__ import annotations

import typer

from engine.errors import CardpressError

from . import track_cli

app = typer.Typer(
    name="cardpress",
    help="Print-and-play card sheets, rulebooks and a rules assistant for homebrew card games.\n\n"
    "GAME is a shipped game id (backrooms, duel, ridm) or the path of a game folder.",
    no_args_is_help=True,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)
app.add_typer(track_cli.app, name="track")


def fail(exc: CardpressError) -> None:
    """Print a library error the way every command does, then exit 1."""
    typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
    raise typer.Exit(1)


def main() -> None:
    app()
