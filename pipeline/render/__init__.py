"""The only home of ReportLab and pypdfium2 in the pipeline (README: layout of the repository):
fonts, the line breaker, the card painter, forms and page streams, sheets, and the one raster
helper every picture of a card goes through."""


def library_version() -> str:
    """The drawing library's version: part of every build cache key (``pipeline.buildcache``)."""
    import reportlab

    return reportlab.Version
