"""The CJK font: static TrueType instances built once, registered with ReportLab, checked per glyph.

Why this route (measured, see DESIGN.md): ReportLab embeds only TrueType (glyf) outlines; every
CJK OTF on PyPI/Debian is CFF. ``justmytype-intl-cjk`` ships Noto Sans SC as a *variable*
TrueType font whose default instance is Thin, so we cut static Regular (400) and Bold (700)
instances with fontTools' instancer. The derived fonts are renamed ("Cardpress Sans SC"), as the
OFL asks of modified fonts, and ship with the licence text.

The instances are built into the user cache (``CARDPRESS_CACHE`` overrides) the first time they
are needed, or explicitly by ``cardpress fonts`` (the install step runs it). ~15 s per weight.

Every character that reaches paper is looked up in the font's cmap first (``FontSet.missing``):
a missing glyph is an error, never a tofu box.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from engine.errors import CardpressError

from .atomic import atomic_write

FAMILY = "Cardpress Sans SC"
REGULAR = "CardpressSansSC"
BOLD = "CardpressSansSC-Bold"
#: (ReportLab name, weight axis value, style name, file name)
WEIGHTS = ((REGULAR, 400, "Regular", "CardpressSansSC-Regular.ttf"), (BOLD, 700, "Bold", "CardpressSansSC-Bold.ttf"))
#: Bump when the way instances are made changes, so caches rebuild.
BUILD_VERSION = "1"

#: Characters that are layout, not ink: never looked up in the cmap.
_INVISIBLE = frozenset("\n\r\t\u200b\u00ad")


class FontError(CardpressError):
    """The CJK font could not be found or built."""


def cache_dir() -> Path:
    """Root of cardpress caches: ``$CARDPRESS_CACHE`` or the platform's user cache dir."""
    env = os.environ.get("CARDPRESS_CACHE")
    if env:
        return Path(env)
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("cardpress"))


def source_font() -> tuple[Path, Path]:
    """(variable TTF, its OFL licence) from the justmytype-intl-cjk package."""
    try:
        root = resources.files("justmytype_intl_cjk") / "fonts" / "ofl" / "notosanssc"
    except ModuleNotFoundError:
        raise FontError("the package 'justmytype-intl-cjk' is not installed (pip install -e .)") from None
    font = Path(str(root / "NotoSansSC[wght].ttf"))
    licence = Path(str(root / "OFL.txt"))
    if not font.is_file():
        raise FontError(f"Noto Sans SC not found at {font}")
    return font, licence


def _fonts_dir() -> Path:
    font, _ = source_font()
    stat = font.stat()
    key = hashlib.sha1(f"{BUILD_VERSION}:{font.name}:{stat.st_size}".encode()).hexdigest()[:12]
    return cache_dir() / "fonts" / key


def _rename(tt, style: str) -> None:
    """Give the derived instance our own family name (OFL: modified versions are renamed)."""
    full = FAMILY if style == "Regular" else f"{FAMILY} {style}"
    ps = REGULAR + ("" if style == "Regular" else f"-{style}")
    names = {1: FAMILY, 2: style, 3: f"cardpress:{ps}:{BUILD_VERSION}", 4: full, 6: ps, 16: FAMILY, 17: style}
    table = tt["name"]
    for rec in list(table.names):
        if rec.nameID in (1, 2, 3, 4, 6, 16, 17, 21, 22, 25):
            table.removeNames(nameID=rec.nameID)
    for name_id, value in names.items():
        table.setName(value, name_id, 3, 1, 0x409)
        table.setName(value, name_id, 1, 0, 0)
    if style == "Bold":
        tt["OS/2"].fsSelection = (tt["OS/2"].fsSelection | 0x20) & ~0x40
        tt["head"].macStyle |= 1


def build_fonts(progress=None) -> list[Path]:
    """Build the static Regular and Bold instances into the cache (no-op when present).

    ``progress(label)`` is called before each weight. Files are written to a temp file and
    renamed, so an interrupted build never leaves a half font behind.
    """
    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    out = _fonts_dir()
    wanted = [out / fname for *_, fname in WEIGHTS]
    if all(p.is_file() for p in wanted):
        return wanted
    out.mkdir(parents=True, exist_ok=True)
    src, licence = source_font()
    for (_, weight, style, fname), target in zip(WEIGHTS, wanted):
        if target.is_file():
            continue
        if progress:
            progress(f"{FAMILY} {style}")
        var = TTFont(src)
        inst = instancer.instantiateVariableFont(var, {"wght": weight}, inplace=False)
        _rename(inst, style)
        with atomic_write(target) as tmp:
            inst.save(tmp)
    shutil.copyfile(licence, out / "OFL.txt")
    return wanted


@dataclass(frozen=True)
class FontSet:
    """The registered fonts: ReportLab names for regular and bold, and the glyph check."""

    regular: str
    bold: str
    paths: tuple[Path, Path]
    cmap: frozenset[int]

    def missing(self, text: str) -> str:
        """Characters of ``text`` the font has no glyph for, in order of first appearance."""
        seen: dict[str, None] = {}
        for ch in text:
            if ch not in _INVISIBLE and ord(ch) not in self.cmap and ch not in seen:
                seen[ch] = None
        return "".join(seen)


@cache
def register_fonts() -> FontSet:
    """Build (if needed) and register the fonts with ReportLab; return the ``FontSet``.

    >>> fonts = register_fonts()
    >>> fonts.missing("迫击炮！！！")
    ''
    """
    from fontTools.ttLib import TTFont as FTFont
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    regular_path, bold_path = build_fonts()
    pdfmetrics.registerFont(TTFont(REGULAR, str(regular_path)))
    pdfmetrics.registerFont(TTFont(BOLD, str(bold_path)))
    pdfmetrics.registerFontFamily(REGULAR, normal=REGULAR, bold=BOLD, italic=REGULAR, boldItalic=BOLD)
    for bold, italic, name in ((0, 0, REGULAR), (1, 0, BOLD), (0, 1, REGULAR), (1, 1, BOLD)):
        addMapping(REGULAR, bold, italic, name)
    with FTFont(str(regular_path), lazy=True) as ft:
        cmap = frozenset(ft.getBestCmap())
    with FTFont(str(bold_path), lazy=True) as ft:
        cmap &= frozenset(ft.getBestCmap())
    return FontSet(REGULAR, BOLD, (regular_path, bold_path), cmap)
