"""cardpress rules engine: game definitions, card data, deck checks and the live-game tracker.

This package is pure Python over plain data. It never imports ReportLab, Jinja, Typer or
the ``pipeline`` package, so the rules can be tested (and reused) without the renderer.
"""
