"""cardpress rules engine: game definitions, card data, deck checks and the live-game tracker.

This package is pure Python over plain data. It never imports ReportLab, Jinja, Typer or
the ``pipeline`` package, so the rules can be tested (and reused) without the renderer.
"""

#: Set to True, before any other module of ``engine`` is imported, by the command line's fast
#: path (``pipeline.main``) only: game definitions are then checked records read from their
#: verified cache, and pydantic is never imported (``engine.model``). Never changed afterwards.
CHECKED_RECORDS = False
