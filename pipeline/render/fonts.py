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

Registering is a per-process fixed cost, so it is cached too (``_registered``): ReportLab's
``TTFont`` parses the whole 10 MB file (~0.11 s a weight) and the cmap read with fontTools cost
as much again. What the parse yields (metrics, the glyph tables, the cmap) is plain data, kept
under the cache dir per font file (path, size, mtime, ``BUILD_VERSION``, ReportLab's version) in
``marshal`` form (plain values only: no class or function can be named, unlike pickle, which
the project does not use) and sealed with an HMAC under a per-machine key (``_cache_key``): a
file we did not write, or a damaged one, is ignored and rebuilt. The font's bytes are read only when a PDF embeds a subset
(``_CachedFace``), so the embedded subsets are the ones the uncached parse makes.
"""

from __future__ import annotations

import gc
import hashlib
import hmac
import io
import os
import marshal
import shutil
import sys
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path

from engine.errors import CardpressError
from engine.i18n import _
from engine.keys import read_or_make_key
from engine.paths import user_data_dir

from ..atomic import atomic_write

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
        raise FontError(_("the package 'justmytype-intl-cjk' is not installed (pip install -e .)")) from None
    font = Path(str(root / "NotoSansSC[wght].ttf"))
    licence = Path(str(root / "OFL.txt"))
    if not font.is_file():
        raise FontError(_("Noto Sans SC not found at {path}").format(path=font))
    return font, licence


def _fonts_dir() -> Path:
    font, _licence = source_font()
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


def _say(label: str) -> None:
    sys.stderr.write(_("preparing the printing font {font} (first run only, about half a minute) …").format(font=label) + "\n")
    sys.stderr.flush()


def build_fonts(progress=None, jobs: int | None = None) -> list[Path]:
    """Build the static Regular and Bold instances into the cache (no-op when present).

    Instancing the variable font costs 25–40 s a weight, once per machine, so the two weights
    are made at the same time on two cores (``pipeline.workers``) and the user is told what is
    happening: ``progress(label)`` is called before each weight (by default a line on stderr).
    Files are written to a temp file and renamed, so an interrupted build never leaves a half
    font behind.
    """
    out = _fonts_dir()
    wanted = [out / fname for *_rest, fname in WEIGHTS]
    if all(p.is_file() for p in wanted):
        return wanted
    from ..workers import halves, in_parallel, resolve_jobs

    out.mkdir(parents=True, exist_ok=True)
    src, licence = source_font()
    todo = [(weight, style, target) for (_name, weight, style, _file), target in zip(WEIGHTS, wanted) if not target.is_file()]
    for _weight, style, _target in todo:
        (progress or _say)(f"{FAMILY} {style}")

    def make(weights: list) -> None:
        for weight, style, target in weights:
            _instance(src, weight, style, target)

    jobs = resolve_jobs(jobs) if len(todo) > 1 else 1
    theirs, mine = halves(todo) if jobs > 1 else ([], todo)
    in_parallel(lambda: make(theirs), lambda: make(mine), jobs)
    shutil.copyfile(licence, out / "OFL.txt")
    return wanted


def _instance(src: Path, weight: int, style: str, target: Path) -> None:
    """One static instance of the variable font, renamed (OFL), written atomically."""
    # Imported only to build: the instancer import alone is 0.15 s of every process otherwise.
    from fontTools.ttLib import TTFont
    from fontTools.varLib import instancer

    var = TTFont(src)
    inst = instancer.instantiateVariableFont(var, {"wght": weight}, inplace=False)
    _rename(inst, style)
    with atomic_write(target) as tmp:
        inst.save(tmp)


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


#: Bump when what the registration cache holds changes.
_REG_CACHE_VERSION = "3"
_SEAL_MAGIC = b"cardpress-font-cache\n"
_key: bytes | None | bool = False  # False: not read yet


def _cache_key() -> bytes | None:
    """This machine's key for sealed cache files (``<user data dir>/cache.key``, 0600, made on
    first use), or None when it cannot be read or made (then nothing is cached or trusted).

    The same scheme as ``engine.tracker.replay.seal_key``, not imported from there: that module
    pulls in the game model (0.3 s), which is the fixed cost this cache exists to avoid.
    """
    global _key
    if _key is False:
        _key = read_or_make_key(user_data_dir() / "cache.key")
    return _key


def _store_sealed(path: Path, data: object) -> None:
    """Write ``data`` (plain values only) to ``path``, sealed; a cache that cannot be written, or
    data that is not plain values, is skipped."""
    key = _cache_key()
    if key is None:
        return
    try:
        body = marshal.dumps(data)
    except ValueError:
        return
    seal = hmac.new(key, body, hashlib.sha256).digest()
    try:
        with atomic_write(path) as tmp:
            Path(tmp).write_bytes(_SEAL_MAGIC + seal + body)
    except (OSError, CardpressError):
        pass


def _load_sealed(path: Path) -> object | None:
    """What ``_store_sealed`` wrote to ``path``, or None (absent, damaged, not sealed by us)."""
    key = _cache_key()
    if key is None:
        return None
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    head = len(_SEAL_MAGIC) + 32
    if not blob.startswith(_SEAL_MAGIC) or len(blob) < head:
        return None
    seal, body = blob[len(_SEAL_MAGIC):head], blob[head:]
    if not hmac.compare_digest(seal, hmac.new(key, body, hashlib.sha256).digest()):
        return None
    gc_was_on = gc.isenabled()
    gc.disable()  # tens of thousands of containers at once: the collector would run many times for nothing
    try:
        data = marshal.loads(body)
        return data if type(data) is dict else None
    except Exception:  # noqa: BLE001 - a bad cache file is rebuilt, whatever is wrong with it
        return None
    finally:
        if gc_was_on:
            gc.enable()


def _registration_cache(path: Path) -> Path:
    import reportlab

    st = path.stat()
    ident = f"{_REG_CACHE_VERSION}:{BUILD_VERSION}:{reportlab.Version}:{path.resolve()}:{st.st_size}:{st.st_mtime_ns}"
    return cache_dir() / "fonts" / "registered" / (hashlib.sha256(ident.encode()).hexdigest()[:24] + ".marshal")


#: Face attributes ReportLab reads only while parsing (glyphToChar: 30 000 lists): kept
#: marshalled in the cache entry, loaded on first use.
_LAZY_ATTRS = ("glyphToChar",)


@cache
def _cached_face_class():
    from reportlab.pdfbase.ttfonts import TTFontFace

    class _CachedFace(TTFontFace):
        """A ``TTFontFace`` restored from the cache: the file is read when a subset is embedded."""

        def __getattr__(self, name):
            if name == "_ttf_data":
                with open(self.filename, "rb") as fh:
                    value = fh.read()
            elif name in _LAZY_ATTRS and name in self.__dict__.get("_lazy", {}):
                value = marshal.loads(self._lazy.pop(name))
            else:
                raise AttributeError(name)
            setattr(self, name, value)
            return value

    return _CachedFace


def _parse(name: str, path: Path):
    """(ReportLab font, cmap) parsed from the file, and the plain data the cache keeps of them."""
    from fontTools.ttLib import TTFont as FTFont
    from reportlab.pdfbase.ttfonts import TTFNameBytes, TTFont

    font = TTFont(name, str(path))
    attrs, names, lazy = {}, [], {}
    for k, v in vars(font.face).items():
        if k in ("_ttf_data", "_pdfScale"):  # the file itself; a lambda of unitsPerEm
            continue
        if k in _LAZY_ATTRS:
            lazy[k] = marshal.dumps(v)
            continue
        if isinstance(v, TTFNameBytes):
            names.append(k)
            v = bytes(v)
        attrs[k] = v
    with FTFont(str(path), lazy=True) as ft:
        cmap = frozenset(ft.getBestCmap())
    attrs["_lazy"] = lazy
    # The cmap is the key set of ReportLab's charToGlyph for our fonts: kept once, not twice.
    same = cmap == frozenset(font.face.charToGlyph)
    return font, cmap, {"attrs": attrs, "names": names, "cmap": None if same else cmap}


def _restore(name: str, data: dict):
    """The ReportLab font ``TTFont(name, file)`` would make, from the cached plain data."""
    from fnmatch import fnmatch
    from weakref import WeakKeyDictionary

    from reportlab import rl_config
    from reportlab.pdfbase.ttfonts import TTEncoding, TTFNameBytes, TTFont, unShapedFontGlob

    face = object.__new__(_cached_face_class())
    attrs = dict(data["attrs"])
    for k in data["names"]:
        attrs[k] = TTFNameBytes(attrs[k])
    face.__dict__.update(attrs)
    upem = face.unitsPerEm
    face._pdfScale = (lambda x: x) if upem == 1000 else (lambda x, m=1000 / upem: x * m)
    # What TTFont.__init__ does besides parsing (tests/test_font_cache.py checks the attributes match).
    font = object.__new__(TTFont)
    font.fontName = name
    font.face = face
    font.encoding = TTEncoding()
    font.state = WeakKeyDictionary()
    font._asciiReadable = rl_config.ttfAsciiReadable
    font.shapable = not any(fnmatch(name, g) for g in unShapedFontGlob)
    return font


def _registered(name: str, path: Path):
    """(ReportLab font, cmap) for the font file: from the sealed cache, else parsed and cached."""
    where = _registration_cache(path)
    data = _load_sealed(where)
    if isinstance(data, dict):
        try:
            font = _restore(name, data)
            cmap = data["cmap"]
            return font, frozenset(font.face.charToGlyph if cmap is None else cmap)
        except Exception:  # noqa: BLE001 - sealed by us but from another shape: rebuild
            pass
    font, cmap, data = _parse(name, path)
    _store_sealed(where, data)
    return font, cmap


@cache
def register_fonts() -> FontSet:
    """Build (if needed) and register the fonts with ReportLab; return the ``FontSet``.

    >>> fonts = register_fonts()
    >>> fonts.missing("迫击炮！！！")
    ''
    """
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics

    regular_path, bold_path = build_fonts()
    regular, cmap = _registered(REGULAR, regular_path)
    bold, bold_cmap = _registered(BOLD, bold_path)
    pdfmetrics.registerFont(regular)
    pdfmetrics.registerFont(bold)
    pdfmetrics.registerFontFamily(REGULAR, normal=REGULAR, bold=BOLD, italic=REGULAR, boldItalic=BOLD)
    for bold, italic, name in ((0, 0, REGULAR), (1, 0, BOLD), (0, 1, REGULAR), (1, 1, BOLD)):
        addMapping(REGULAR, bold, italic, name)
    return FontSet(REGULAR, BOLD, (regular_path, bold_path), cmap & bold_cmap)


def load_font_files(fonts: FontSet) -> None:
    """Read the registered fonts' files now, not when a PDF first embeds a subset (a font
    restored from the registration cache reads its file then): a forked child then shares the
    bytes with its parent instead of reading a copy of its own."""
    from reportlab.pdfbase import pdfmetrics

    for name in (fonts.regular, fonts.bold):
        getattr(pdfmetrics.getFont(name).face, "_ttf_data")


def release_font_files(fonts: FontSet) -> None:
    """Drop the font files' bytes read to embed subsets (21 MB) once the PDFs are written; a face
    restored from the registration cache reads its file again if another PDF needs it (a face
    parsed in this process keeps them: it has no way back to the file)."""
    from reportlab.pdfbase import pdfmetrics

    for name in (fonts.regular, fonts.bold):
        face = pdfmetrics.getFont(name).face
        if isinstance(face, _cached_face_class()) and "_ttf_data" in face.__dict__:
            del face._ttf_data


#: Bump when the subsetter's output for the same options changes (a fontTools upgrade is keyed too).
_SUBSET_VERSION = "1"


def subset_woff2(font: Path, chars: str, *, keep_names: bool = False, notdef_outline: bool = False) -> bytes:
    """WOFF2 of ``font`` keeping the glyphs of ``chars`` (all layout features), cut once.

    Cutting costs seconds (brotli); the rulebook's HTML and the table page ask for the same
    subsets build after build, so each is cached by content: the SHA-256 of the font file's
    identity (name, size, mtime), the characters, the options and fontTools' version, under
    ``<cache>/webfonts``. ``keep_names`` keeps every name record (the renamed family and the
    licence notice, OFL); ``notdef_outline`` draws the .notdef box.
    """
    import fontTools

    font = Path(font)
    st = font.stat()
    options = f"names={int(keep_names)}:notdef={int(notdef_outline)}:features=*"
    ident = (f"{_SUBSET_VERSION}:{fontTools.version}:{font.name}:{st.st_size}:{st.st_mtime_ns}:{options}:"
             f"{''.join(sorted(set(chars)))}")
    path = cache_dir() / "webfonts" / f"{hashlib.sha256(ident.encode('utf-8')).hexdigest()[:32]}.woff2"
    try:
        return path.read_bytes()
    except OSError:
        pass
    data = _cut_woff2(font, chars, keep_names, notdef_outline)
    try:
        with atomic_write(path) as tmp:
            Path(tmp).write_bytes(data)
    except (OSError, CardpressError):
        pass  # an unwritable cache only costs the next build the cut again
    return data


def _cut_woff2(font: Path, chars: str, keep_names: bool, notdef_outline: bool) -> bytes:
    from fontTools import subset

    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["*"]
    if keep_names:
        options.name_IDs = ["*"]
    options.notdef_outline = notdef_outline
    loaded = subset.load_font(str(font), options)
    subsetter = subset.Subsetter(options)
    subsetter.populate(text=chars)
    subsetter.subset(loaded)
    buf = io.BytesIO()
    subset.save_font(loaded, buf, options)
    return buf.getvalue()

