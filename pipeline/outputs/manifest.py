"""What each printed face is made of, so a designer reprints only what changed.

Every build writes ``manifest.json`` beside its PDFs: for each card face and back, a digest of
everything that decides how it prints (``face_digest``): its laid-out elements (text, numbers,
geometry, colours: the template's output), the rules-text size its type shares, the normalised
art it shows (named by the art's content), the bytes of any image element, the fonts and the
bleed. ``cardpress build GAME --changed-since DIR_OR_MANIFEST`` compares against an earlier
manifest and imposes only the cards that are new or differ (an errata sheet), listing the ones
removed since.

A manifest is a file a user hands back, so it is read as untrusted input: size-capped, plain
JSON of strings, anything else refused with its file named.
"""

from __future__ import annotations

import hashlib
import json
import marshal
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import CardpressError
from engine.i18n import N_, _

from ..atomic import atomic_write

if TYPE_CHECKING:
    from engine.cards import Card

    from ..render.painter import CardPainter
    from ..layout import Element

MANIFEST_NAME = "manifest.json"
FORMAT = "cardpress-faces/1"
#: Bump when drawing changes what the same inputs print.
DRAWING_VERSION = "3"
MAX_MANIFEST_BYTES = 16 * 1024 * 1024


class ManifestError(CardpressError):
    """An earlier build's manifest cannot be read."""


def face_digest(painter: CardPainter, elements: list[Element], card: Card | None, bleed_mm: float,
                size_mm: tuple[float, float] | None = None) -> str:
    """SHA-256 of what decides how a face (``card``) or a back (``card`` None) prints;
    ``size_mm`` its card size when not the painter's (a card type with a size of its own)."""
    w, h_mm = size_mm or (painter.w_mm, painter.h_mm)
    h = hashlib.sha256()
    h.update(f"{DRAWING_VERSION}|{bleed_mm!r}|{w!r}x{h_mm!r}|".encode())
    for font in painter.fonts.paths:
        h.update(font.name.encode() + b"|" + font.parent.name.encode() + b"|")  # the fonts' build key
    if card is not None:
        sizes = sorted((field, size) for (kind, field), size in painter.type_sizes.items() if kind == card.type)
        h.update(repr(sizes).encode())
    h.update(_canonical(elements))
    for e in elements:
        if e.kind == "art":
            art = painter.art_file(e, card)
            h.update(f"|art:{art.name if art else 'placeholder'}".encode())
        elif e.kind == "image" and painter.base_dir is not None:
            h.update(b"|image:" + _image_digest(painter.base_dir, str(e.get("src", ""))))
    return h.hexdigest()


def _canonical(elements: list[Element]) -> bytes:
    """The elements' kinds and values as bytes that depend on the values only. (``marshal``
    format 0: later formats write a string twice met, or an interned one, differently, so the
    same face could digest differently from one build to the next.)"""
    try:
        return marshal.dumps([(e.kind, e.props) for e in elements], 0)
    except ValueError:  # a str or number subclass (a template's Markup): its plain repr
        return repr([(e.kind, e.props) for e in elements]).encode()


def _image_digest(base: Path, src: str) -> bytes:
    """An image element's file by content, read only inside the game folder (what painting
    allows); a file it cannot read is reported when the face is painted."""
    from engine.paths import UnsafePath, check_regular, confine

    try:
        real = confine(base / src, [base], N_("image"))
        check_regular(real, N_("image"))
        return hashlib.sha256(real.read_bytes()).digest()
    except (UnsafePath, OSError):
        return b"unreadable:" + src.encode()


def write_manifest(folder: Path, game_id: str, faces: dict[str, str], backs: dict[str, str]) -> Path:
    path = folder / MANIFEST_NAME
    data = {"format": FORMAT, "game": game_id, "faces": faces, "backs": backs}
    with atomic_write(path) as tmp:
        tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True), encoding="utf-8")
    return path


def read_manifest(where: Path) -> dict[str, str]:
    """The face digests of an earlier build: ``where`` is its output folder or its manifest."""
    path = where / MANIFEST_NAME if where.is_dir() else where
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_MANIFEST_BYTES + 1)
    except OSError as exc:
        raise ManifestError(_("{path}: cannot read the earlier build's manifest ({error}); "
                              "give the folder of a build made by this cardpress, or its {manifest}")
                            .format(path=path, error=exc.strerror or exc, manifest=MANIFEST_NAME)) from None
    if len(raw) > MAX_MANIFEST_BYTES:
        raise ManifestError(_("{path}: larger than any manifest ({mb} MB)").format(path=path, mb=MAX_MANIFEST_BYTES // 2**20))
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ManifestError(_("{path}: not a cardpress manifest ({error})").format(path=path, error=exc)) from None
    faces = data.get("faces") if isinstance(data, dict) and data.get("format") == FORMAT else None
    if not isinstance(faces, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in faces.items()):
        raise ManifestError(_("{path}: not a cardpress manifest (format {format!r} with a 'faces' table expected)")
                            .format(path=path, format=FORMAT))
    return faces


@dataclass(frozen=True)
class Changes:
    new: list[str]
    changed: list[str]
    removed: list[str]
    unchanged: int

    def describe(self) -> str:
        def some(ids: list[str]) -> str:
            return ", ".join(ids[:12]) + (_(" and {n} more").format(n=len(ids) - 12) if len(ids) > 12 else "")

        parts = [_("{n} changed").format(n=len(self.changed)) + (f" ({some(self.changed)})" if self.changed else ""),
                 _("{n} new").format(n=len(self.new)) + (f" ({some(self.new)})" if self.new else ""),
                 _("{n} unchanged (not printed)").format(n=self.unchanged)]
        if self.removed:
            parts.append(_("{n} removed since ({ids})").format(n=len(self.removed), ids=some(self.removed)))
        return _("; ").join(parts)


def compare(old: dict[str, str], new: dict[str, str]) -> Changes:
    return Changes(new=[cid for cid in new if cid not in old],
                   changed=[cid for cid in new if cid in old and old[cid] != new[cid]],
                   removed=sorted(cid for cid in old if cid not in new),
                   unchanged=sum(1 for cid in new if old.get(cid) == new[cid]))
