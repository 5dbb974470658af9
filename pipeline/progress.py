"""Progress a long step reports: ``progress(label, done, total)``, and the labels it is given.

A label is shown in the user's language but compared by its English key (``key_of``), so a
consumer (the CLI's bar, the two-process build that merges its halves' counts) never matches
translated text.
"""

from __future__ import annotations

from typing import Callable

from engine.i18n import N_
from engine.i18n import _ as tr

Progress = Callable[[str, int, int], None]


class Label(str):
    """A progress label: the text a user reads (in their language), with ``key``, its English
    msgid, which code compares (never the translated text)."""

    key: str

    def __new__(cls, key: str, **fields: object) -> "Label":
        label = super().__new__(cls, tr(key).format(**fields))  # key: one of the N_ labels below
        label.key = key
        return label


def key_of(label: str) -> str:
    """The stable key of a progress label (its English), whatever language it is shown in."""
    return getattr(label, "key", label)


DRAWING = N_("drawing cards")
SHEETS = N_("{paper} sheets")
PREPARING_ART = N_("preparing art")
LAYING_OUT = N_("laying out cards")
