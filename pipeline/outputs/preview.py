"""One card as it prints, fast: ``cardpress preview GAME CARD`` (the designer's loop).

The face is laid out and painted by the same templates and painter as the sheets, with the same
rules-text size: the size a card type shares is learnt from the cards of that type only (all of
them, as a build does), not from the whole game, so a preview fits only what can change it. The
page (trim + bleed) is rendered by pdfium at the asked resolution.
"""

from __future__ import annotations

import difflib
from types import SimpleNamespace
from pathlib import Path

from engine.check import check_game
from engine.definitions import GameDefinition, load_game
from engine.errors import CardpressError
from engine.i18n import _

PREVIEW_DPI = 300


class PreviewError(CardpressError):
    """The card (or back) asked for does not exist."""


def preview_png(game: str | Path | GameDefinition, card_id: str, back: bool = False, dpi: int = PREVIEW_DPI,
                bleed_mm: float = 3.0) -> bytes:
    """PNG of card ``card_id``'s face (or, with ``back``, the back its type uses) including
    ``bleed_mm`` of bleed, at ``dpi``. Raises ``DataError`` for a game that does not check,
    ``PreviewError`` for an unknown card, and the painter's errors for a card that cannot print."""
    from ..plan import laid_out_faces
    from ..buildcache import card_key, open_cache
    from ..render.painter import CardPainter
    from ..render.fonts import register_fonts
    from ..render.raster import face_pdf, page_image, png_bytes
    from ..layout import Layouts

    definition = game if isinstance(game, GameDefinition) else load_game(game)
    report = check_game(definition).raise_if_problems()
    card = report.cards.get(card_id)
    if card is None:
        near = difflib.get_close_matches(card_id, list(report.cards), n=3)
        hint = _("; did you mean {cards}?").format(cards=", ".join(near)) if near else ""
        raise PreviewError(_("{game}: no card {card!r}{hint}").format(game=definition.id, card=card_id, hint=hint))
    # The card's own size (a card type may have one); a back is the size of the cards using it.
    size = (definition.back_size(definition.card_types[card.type].back) if back
            else definition.card_size_of(card.type))
    layouts = Layouts(definition)
    painter = CardPainter(register_fonts(), size.width_mm, size.height_mm, definition.card_data_dir)
    if back:
        name = definition.card_types[card.type].back
        elements, drawn, label = layouts.back(name, bleed_mm), None, f"back {name}"
    else:
        # The type's shared text size from its cards' layouts and fits, as kept by the last build
        # (pipeline.buildcache): a preview then lays out only cards that changed since.
        kin = [c for c in report.cards.values() if c.type == card.type]
        cache = open_cache(definition, layouts.roots, bleed_mm, painter.fonts)
        known = SimpleNamespace(cache=cache, painter=painter, keys={c.id: card_key(cache.key, c) for c in kin})
        keep: dict = {card.id: None}
        painter.share_sizes(laid_out_faces(layouts, kin, bleed_mm, keep=keep, prep=known))
        cache.save()
        elements, drawn, label = keep[card.id] or layouts.face(card, bleed_mm), card, card.id
    pdf = face_pdf(painter, elements, drawn, label, size.mm, bleed_mm)
    return png_bytes(page_image(pdf, dpi=dpi), dpi=dpi)
