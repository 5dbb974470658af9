"""What one build of a game made, kept so the next build redoes only what changed.

A designer changes a word on one card and builds again; everything else on the sheets is the
same. The cache (``<cache>/builds/<key>.bin``, one file per game folder and bleed) keeps, from the
last builds:

- per card, keyed by a digest of **everything its layout reads** (``card_key``: the card's
  fields, the game definition, every template, macro and style file it may include, the card
  size, bleed and fonts, and the code that lays out and draws): its laid-out elements (packed)
  and its rules-text fits, so an unchanged card is neither rendered by Jinja nor fitted again;
- per printed face, keyed by its face digest (``outputs.manifest.face_digest``: what it prints,
  the art named by its content): the painted form XObject, compressed, with the images it shows
  (``render.forms``), so an unchanged face is not painted again;
- the font encoding those forms were painted with (which code each character has in each font
  subset): a build seeds its PDFs with it, so the kept forms stay valid and a new character is
  only appended;
- per artwork, the normalised file made for it, by the source's size and modification time.

A build uses the cache only when its key (``game_key``) matches and writes it back only when the
build succeeded. It is a cache: anything wrong with the file (unreadable, another format, a
different key) means a full build, never an error; entries unused for ``KEEP_BUILDS`` builds are
dropped, so it stays the size of the game.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.i18n import language

from .atomic import atomic_write
from .render.fonts import cache_dir

if TYPE_CHECKING:
    from engine.cards import Card
    from engine.definitions import GameDefinition

    from .render.fonts import FontSet

FORMAT = 1
#: Builds an entry survives without being used (other decks of the game, undone edits).
KEEP_BUILDS = 8
#: A cache file larger than this is not read (a 10,000-card game keeps about 25 MB).
MAX_CACHE_BYTES = 512 * 2**20
#: Files of a templates tree up to this size are hashed by content; larger ones (art a template
#: folder happens to hold) by size and modification time.
_HASHED_BYTES = 1 * 2**20
#: The code whose output the cache keeps: a cache never outlives the code that made it.
_CODE = ("layout", "render", "art.py", "plan.py", "buildcache.py", "outputs/manifest.py")

_code_digest: str | None = None


def code_digest() -> bytes:
    """Digest of the modules that lay out and draw (read once per process)."""
    global _code_digest
    if _code_digest is None:
        h = hashlib.sha256()
        root = Path(__file__).resolve().parent
        for name in _CODE:
            path = root / name
            files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
            for f in files:
                h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
        from .render import library_version

        h.update(library_version().encode())
        _code_digest = h.hexdigest()
    return _code_digest.encode()


def _tree_digest(h, root: Path) -> None:
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        try:
            st = path.stat()
            h.update(str(path.relative_to(root)).encode() + b"\0")
            if st.st_size <= _HASHED_BYTES:
                h.update(path.read_bytes())
            else:
                h.update(f"{st.st_size}|{st.st_mtime_ns}".encode())
        except OSError:
            h.update(b"unreadable")


def game_key(definition: GameDefinition, template_roots: list[Path], bleed_mm: float, fonts: FontSet) -> str:
    """Digest of everything every card's layout and drawing read, apart from the card itself."""
    h = hashlib.sha256(code_digest())
    h.update(definition.model_dump_json().encode())
    h.update(f"|{definition.card_size.width_mm!r}x{definition.card_size.height_mm!r}|{bleed_mm!r}|".encode())
    # Laid-out elements carry messages ("<template>, element 3") in the language of the build.
    h.update(f"lang={language()}|".encode())
    for font in fonts.paths:
        h.update(font.name.encode() + b"|" + font.parent.name.encode() + b"|")
    for root in template_roots:
        h.update(b"\0root\0" + str(root).encode())
        if root.is_dir():
            _tree_digest(h, root)
    return h.hexdigest()


def card_key(game: str, card: Card) -> str:
    """Digest of what a card's layout reads: the game's key and the card's own data (not where
    in its file it sits: moving a card changes nothing it prints)."""
    data = json.dumps([card.id, card.type, card.name, card.values, card.art_path is not None],
                      ensure_ascii=False, sort_keys=True, default=repr)
    return hashlib.sha256(f"{game}|{data}".encode()).hexdigest()


@dataclass
class BuildCache:
    """The cache of one game folder and bleed (see the module docstring)."""

    key: str
    path: Path | None = None
    #: card key → [packed elements, [(fit key, size), …], last build]
    layouts: dict[str, list] = field(default_factory=dict)
    #: face digest → [deflated form stream, ((image path, mask), …), last build]
    forms: dict[str, list] = field(default_factory=dict)
    #: The font encoding the kept forms were painted with (``render.forms.capture_encoding``).
    encoding: list | None = None
    #: (art file, size, mtime ns, box w, box h) → normalised file
    art: dict[tuple, str] = field(default_factory=dict)
    #: This build's number: an entry records the last build that used it (``save`` drops old ones).
    build: int = 0

    # ---------------------------------------------------------------- layouts
    def layout(self, key: str) -> list | None:
        entry = self.layouts.get(key)
        if entry is not None:
            entry[2] = self.build
        return entry

    def keep_layout(self, key: str, packed: bytes, fits: list) -> None:
        self.layouts[key] = [packed, fits, self.build]

    def fresh_layouts(self) -> dict[str, list]:
        """Entries made in this build (to hand from a worker process to its parent)."""
        return {k: v for k, v in self.layouts.items() if v[2] == self.build}

    def learn_layouts(self, entries: dict[str, list]) -> None:
        self.layouts.update(entries)

    # ---------------------------------------------------------------- forms
    def form(self, digest: str) -> list | None:
        entry = self.forms.get(digest)
        if entry is not None:
            entry[2] = self.build
        return entry

    def keep_form(self, digest: str, stream: bytes, images: tuple) -> None:
        self.forms[digest] = [stream, images, self.build]

    def reset_forms(self) -> None:
        """Forget every form: the next PDFs start a new encoding (``render.forms``)."""
        self.forms.clear()
        self.encoding = None

    # ---------------------------------------------------------------- art
    @staticmethod
    def _art_key(src: Path, w: float, h: float) -> tuple | None:
        try:
            st = src.stat()
        except OSError:
            return None
        return (str(src), st.st_size, st.st_mtime_ns, w, h)

    def known_art(self, jobs) -> list[tuple[str, float, float, str]]:
        """Of ``jobs`` (art file, box w, box h), those normalised before whose source has not
        changed since, as ``CardPainter.learn_art`` takes them."""
        known = []
        for src, w, h in jobs:
            key = self._art_key(src, w, h)
            norm = self.art.get(key) if key else None
            if norm is not None and os.path.isfile(norm):
                known.append((str(src), w, h, norm))
        return known

    def keep_art(self, known: list[tuple[str, float, float, str]]) -> None:
        self.art = {}
        for src, w, h, norm in known:
            key = self._art_key(Path(src), w, h)
            if key is not None:
                self.art[key] = norm

    # ---------------------------------------------------------------- file
    def save(self) -> None:
        """Write the cache (after a successful build), dropping entries long unused."""
        if self.path is None:
            return
        oldest = self.build - KEEP_BUILDS
        data = {
            "format": FORMAT, "key": self.key, "build": self.build,
            "layouts": {k: v for k, v in self.layouts.items() if v[2] > oldest},
            "forms": {k: v for k, v in self.forms.items() if v[2] > oldest} if self.encoding else {},
            "encoding": self.encoding, "art": list(self.art.items()),
        }
        try:
            blob = marshal.dumps(data)
            with atomic_write(self.path) as tmp:
                tmp.write_bytes(blob)
        except (OSError, ValueError):
            pass  # a cache that cannot be written costs the next build its speed, nothing else
        _LAST[self.path] = self


_LAST: dict[Path, BuildCache] = {}


def cache_path(definition: GameDefinition, bleed_mm: float) -> Path:
    """``$CARDPRESS_CACHE_BUILDS`` (else ``<cache>/builds``) ``/<game folder and bleed>.bin``."""
    where = str(definition.folder.resolve() if definition.folder else definition.id)
    name = hashlib.sha256(f"{where}|{bleed_mm!r}".encode()).hexdigest()[:24]
    folder = os.environ.get("CARDPRESS_CACHE_BUILDS")
    return (Path(folder) if folder else cache_dir() / "builds") / f"{name}.bin"


def _valid(data: Any, key: str) -> bool:
    if not (isinstance(data, dict) and data.get("format") == FORMAT and data.get("key") == key):
        return False
    layouts, forms, art = data.get("layouts"), data.get("forms"), data.get("art")
    if not (isinstance(layouts, dict) and isinstance(forms, dict) and isinstance(art, list)
            and isinstance(data.get("build"), int)):
        return False
    ok_layout = all(isinstance(v, list) and len(v) == 3 and isinstance(v[0], bytes) and isinstance(v[1], list)
                    for v in layouts.values())
    ok_form = all(isinstance(v, list) and len(v) == 3 and isinstance(v[0], bytes) and isinstance(v[1], tuple)
                  for v in forms.values())
    from .render.forms import valid_encoding

    return ok_layout and ok_form and (data.get("encoding") is None or valid_encoding(data["encoding"]))


def open_cache(definition: GameDefinition, template_roots: list[Path], bleed_mm: float,
               fonts: FontSet) -> BuildCache:
    """The cache of this game folder and bleed, empty when there is none or it no longer fits."""
    key = game_key(definition, template_roots, bleed_mm, fonts)
    path = cache_path(definition, bleed_mm)
    kept = _LAST.get(path)
    if kept is not None and kept.key == key:
        kept.build += 1
        return kept
    cache = BuildCache(key, path)
    try:
        with open(path, "rb") as fh:
            blob = fh.read(MAX_CACHE_BYTES + 1)
        data = marshal.loads(blob) if len(blob) <= MAX_CACHE_BYTES else None
    except (OSError, EOFError, ValueError, TypeError):
        data = None
    if _valid(data, key):
        cache.layouts, cache.forms, cache.encoding = data["layouts"], data["forms"], data["encoding"]
        cache.art = {tuple(k): v for k, v in data["art"] if isinstance(k, tuple) and isinstance(v, str)}
        cache.build = data["build"] + 1
    return cache
