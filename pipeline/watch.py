"""``cardpress watch GAME``: rebuild the sheets on every save (the designer's loop).

It watches what a build reads (the game's definition, cards, decks and art, its own templates
and style, and the shipped templates it may include) with ``watchfiles`` (the OS's file events,
Rust-backed, with a debounce so an editor's save-and-rename is one change), rebuilds, and says
what changed and what was written. A build that fails (a typo in a card, a template error) is
shown and the watcher waits for the next save: the previous PDFs stay as they were, since a
build writes nothing unless it succeeds.

With ``open_page`` (``--open``) it also serves the preview page (``outputs.watch_page``): each
save's changed cards first, drawn before the sheets are rebuilt, then the sheets; a failed save's
error in a box over the last good cards.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from engine.cards import Card
from engine.definitions import load_game
from engine.errors import CardpressError
from engine.i18n import _
from engine.paths import templates_root

from .outputs.sheets import BuildResult, build_sheets
from .plan import BuildOptions

#: Milliseconds a burst of file events is gathered into one rebuild.
DEBOUNCE_MS = 150
_IGNORED_SUFFIXES = (".tmp", ".swp", ".swx", "~")  # editors' and our own temp files


def watched_paths(game: str | Path) -> list[Path]:
    """The folders a build of ``game`` reads. A game folder whose game.yaml does not load yet is
    watched whole (the designer is fixing it); an id that names nothing is an error."""
    shipped = templates_root()
    try:
        definition = load_game(game)
    except CardpressError:
        if (Path(game) / "game.yaml").is_file():
            return [Path(game), shipped / "_common"]
        raise
    paths = [definition.card_data_dir, shipped / "_common"]
    for folder in (definition.folder / "templates", shipped / definition.id):
        if folder.is_dir() and folder not in paths:
            paths.append(folder)
    return [p for p in dict.fromkeys(paths) if p.is_dir()]


def _relevant(out_dir: Path | None) -> Callable[[object, str], bool]:
    out = out_dir.resolve() if out_dir is not None else None

    def keep(_change: object, path: str) -> bool:
        p = Path(path)
        if p.name.startswith(".") or p.name.endswith(_IGNORED_SUFFIXES) or "__pycache__" in p.parts:
            return False
        return out is None or out not in p.resolve().parents

    return keep


def watch(game: str | Path, options: BuildOptions, say: Callable[[str], None],
          stop: threading.Event | None = None, progress=None, open_page: bool = False, port: int = 0,
          browser: bool = True) -> None:
    """Build ``game`` now and after every change, until ``stop`` is set (or Ctrl-C). With
    ``open_page``, also serve the preview page (``outputs.watch_page``) on 127.0.0.1:``port`` (0:
    any free port), say its address and, with ``browser``, open it."""
    import watchfiles

    out = options.out_dir
    paths = watched_paths(game)
    page = _Page(game, port, say, browser, options.bleed_mm) if open_page else None

    def once(reason: str, changed: set[Path] | None = None) -> BuildResult | None:
        started = time.perf_counter()
        if page is not None and not page.cards_first(reason, changed):
            say(_("{reason}: the build failed, the previous sheets are kept; waiting for the next save\n  {error}")
                .format(reason=reason, error=page.error))
            return None
        try:
            result = build_sheets(game, replace(options, changed_since=None), progress)
        except CardpressError as exc:
            if page is not None:
                page.failed(reason, str(exc))
            say(_("{reason}: the build failed, the previous sheets are kept; waiting for the next save\n  {error}")
                .format(reason=reason, error=exc))
            return None
        files = ", ".join(str(f.path) for f in result.files)
        done = _("{reason}: {cards} cards built in {seconds:.1f} s").format(
            reason=reason, cards=result.cards, seconds=time.perf_counter() - started)
        if page is not None:
            page.built(done, result)
        say(f"{done} → {files}")
        return result

    try:
        if page is not None:
            page.start()
        once(_("first build"))
        say(_("watching {paths} (Ctrl-C to stop)").format(paths=", ".join(str(p) for p in paths)))
        for changes in watchfiles.watch(*paths, watch_filter=_relevant(out), debounce=DEBOUNCE_MS, stop_event=stop,
                                        raise_interrupt=False):
            names = sorted({Path(path).name for _kind, path in changes})
            shown = ", ".join(names[:8]) + (_(" and {count} more").format(count=len(names) - 8) if len(names) > 8 else "")
            once(_("changed {files}").format(files=shown), {Path(path) for _kind, path in changes})
    finally:
        if page is not None:
            page.stop()


class _Page:
    """The watcher's side of the preview page: on a save, the cards whose fields changed (against
    the last good load) are drawn and shown first, before the sheets are built (load and check
    take ~20 ms, a card ~30 ms with ``CardPreviews``' kept faces and fits); then, once the sheets
    are built, the cards whose printed face changed by the build's manifest against the previous
    build's (what a template, style or art change makes), and the sheets."""

    def __init__(self, game: str | Path, port: int, say: Callable[[str], None], browser: bool, bleed: float):
        from .outputs.watch_page import CardPreviews, PageServer, WatchState

        self.game, self.say, self.browser = game, say, browser
        self.state = WatchState(game=Path(game).name)
        self.server = PageServer(self.state, port)
        self.cards: dict[str, Card] | None = None    # the last good load's cards, by id
        self.faces: dict[str, str] | None = None     # the last build's face digests (its manifest)
        self.shown: set[str] = set()                 # cards drawn for this save already
        self.definition = None
        self.previews = CardPreviews(bleed)
        self.error = ""

    def start(self) -> None:
        from .outputs.watch_page import can_open_browser

        self.server.start()
        self.say(_("preview page: {url} (it reloads by itself on every save)").format(url=self.server.url))
        if self.browser and can_open_browser():
            import webbrowser

            webbrowser.open(self.server.url)

    def stop(self) -> None:
        self.server.stop()

    def cards_first(self, reason: str, changed: set[Path] | None = None) -> bool:
        """Load and check the game and show the cards whose fields changed; False (the error
        shown) if the game does not load. ``changed``: the files saved (None: unknown)."""
        from engine.check import check_game

        self.state.building(reason)
        self.shown = set()
        try:
            self.definition = load_game(self.game)
            cards = dict(check_game(self.definition).raise_if_problems().cards)
        except CardpressError as exc:
            self.failed(reason, str(exc))
            return False
        self._font(self.definition.name + "".join(c.id + c.name for c in cards.values()))
        folder = self.definition.card_data_dir.resolve()
        data = (folder / "cards", folder / "decks")
        if changed is None or not all(any(d in p.resolve().parents for d in data) for p in changed):
            self.previews.forget()             # a template, the style, art or game.yaml: all afresh
        if self.cards is not None:
            self._show([cid for cid, card in cards.items() if self.cards.get(cid) != card], cards)
        self.cards = cards
        return True

    def _show(self, ids: list[str], cards: dict[str, Card], add: bool = False) -> None:
        from .outputs.watch_page import CARD_DPI, MAX_CARDS_SHOWN

        drawn = self.previews.draw(self.definition, cards, ids[:MAX_CARDS_SHOWN], CARD_DPI)
        self.shown.update(ids)
        self.state.changed_cards([(cid, cards[cid].name, png) for cid, png in drawn],
                                 max(0, len(ids) - MAX_CARDS_SHOWN), add)

    def built(self, done: str, result: BuildResult) -> None:
        from .outputs.manifest import read_manifest
        from .outputs.watch_page import Sheet

        faces = read_manifest(result.manifest) if result.manifest is not None else {}
        if self.faces is not None and self.cards is not None:
            later = [cid for cid, digest in faces.items()
                     if self.faces.get(cid) != digest and cid not in self.shown and cid in self.cards]
            if later:
                self._show(later, self.cards, add=bool(self.shown))
        first, self.faces = self.faces is None, faces
        self.state.built(done, [Sheet(f.paper, f.pages, f.path.read_bytes()) for f in result.files])
        if first and self.cards:
            self._warm_up({card.type: cid for cid, card in reversed(self.cards.items())}.values())

    def _warm_up(self, card_ids) -> None:
        """Draw one card of each type once, unseen, after the first build: the first preview of
        a type lays out and fits every card of that type (0.5–1 s for duel), and the first save
        should not pay it."""
        from .outputs.watch_page import CARD_DPI

        self.previews.draw(self.definition, self.cards, list(card_ids), CARD_DPI)

    def _font(self, text: str) -> None:
        from .outputs.watch_page import PageFont

        if self.state.font is None:
            self.state.font = PageFont(str(self.state.game) + text, ready=self.state.touch)

    def failed(self, reason: str, error: str) -> None:
        self._font(error)
        self.error = error
        self.state.failed(_("{reason}: the build failed").format(reason=reason), error)
