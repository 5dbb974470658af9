"""cardpress production pipeline: load → validate → lay out → draw → impose → write (+ CLI)."""


def main() -> None:
    """The ``cardpress`` entry point. A ``track`` command a table types between moves runs on the
    fast path (``track_view.fast_track``: no Typer, no pydantic); everything else, and anything
    the fast path does not read exactly as Typer would, runs the Typer app (``cli.app.main``)."""
    import sys

    from .cli.track_view import fast_track

    code = fast_track(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from .cli.app import main as typer_main

    typer_main()
