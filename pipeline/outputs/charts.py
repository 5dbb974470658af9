"""A deck's shape as files: ``deck-<name>.svg`` and ``.png`` (``cardpress deck``), drawn by
``render.charts`` (one bar chart per chart of the deck's stats, then its construction rules).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.data.stats import DeckStats

from ..atomic import atomic_write, output_path
from ..render import charts
from ..render.fonts import register_fonts


@dataclass(frozen=True)
class DeckPicture:
    svg: Path
    png: Path
    width_px: int
    height_px: int


def write_deck_picture(stats: DeckStats, out_dir: Path, name: str) -> DeckPicture:
    """Write ``out_dir/deck-<name>.svg`` and ``.png``, each atomically. Both are made in memory
    first, so a label the font lacks (or any other drawing error) writes neither."""
    fonts = register_fonts()
    drawing = charts.deck_drawing(stats, fonts)
    svg_text = charts.svg_text(drawing, fonts)
    image = charts.png_image(drawing)
    svg_path = output_path(Path(out_dir), f"deck-{name}.svg")
    png_path = output_path(Path(out_dir), f"deck-{name}.png")
    with atomic_write(png_path) as tmp:
        image.save(tmp, format="PNG", optimize=False)
    with atomic_write(svg_path) as tmp:
        Path(tmp).write_text(svg_text, encoding="utf-8")
    return DeckPicture(svg_path, png_path, image.width, image.height)
