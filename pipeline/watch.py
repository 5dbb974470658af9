"""``cardpress watch GAME``: rebuild the sheets on every save (the designer's loop).

It watches what a build reads (the game's definition, cards, decks and art, its own templates
and style, and the shipped templates it may include) with ``watchfiles`` (the OS's file events,
Rust-backed, with a debounce so an editor's save-and-rename is one change), rebuilds, and says
what changed and what was written. A build that fails (a typo in a card, a template error) is
shown and the watcher waits for the next save: the previous PDFs stay as they were, since a
build writes nothing unless it succeeds.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from engine.definitions import load_game
from engine.errors import CardpressError
from engine.paths import templates_root

from .build import BuildOptions, BuildResult, build_sheets

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
          stop: threading.Event | None = None, progress=None) -> None:
    """Build ``game`` now and after every change, until ``stop`` is set (or Ctrl-C)."""
    import watchfiles

    out = options.out_dir

    def once(reason: str) -> BuildResult | None:
        started = time.perf_counter()
        try:
            result = build_sheets(game, replace(options, changed_since=None), progress)
        except CardpressError as exc:
            say(f"{reason}: the build failed, the previous sheets are kept; waiting for the next save\n  {exc}")
            return None
        files = ", ".join(str(f.path) for f in result.files)
        say(f"{reason}: {result.cards} cards built in {time.perf_counter() - started:.1f} s → {files}")
        return result

    paths = watched_paths(game)
    once("first build")
    say("watching " + ", ".join(str(p) for p in paths) + " (Ctrl-C to stop)")
    for changes in watchfiles.watch(*paths, watch_filter=_relevant(out), debounce=DEBOUNCE_MS, stop_event=stop,
                                    raise_interrupt=False):
        names = sorted({Path(path).name for _, path in changes})
        shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        once(f"changed {shown}")
