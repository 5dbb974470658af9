"""The ``cardpress`` command line, the only home of Typer (README: layout of the repository).

``app`` builds the root command and its one error boundary; each other module holds one group
of commands. ``track_view`` (the terminal board and the fast path a table types between moves)
imports no Typer, so this package's ``__init__`` imports nothing either.
"""
