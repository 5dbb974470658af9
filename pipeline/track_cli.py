"""``cardpress track``: the rules assistant at the table (being built; see issue 3)."""

import typer

app = typer.Typer(help="Track a live game at the table.", no_args_is_help=True)
