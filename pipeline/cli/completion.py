"""Shell completion of GAME and --paper (``cardpress --install-completion`` sets it up).

Kept free of heavy imports: the shell runs ``cardpress`` on every Tab.
"""

from __future__ import annotations

import os
from pathlib import Path


def games(incomplete: str) -> list[str]:
    """Shipped game ids starting with ``incomplete``, then folders at that path (a game folder
    ends with ``/`` like any other, so the user can go on typing into it)."""
    from engine.paths import shipped_games

    found = [game for game in shipped_games() if game.startswith(incomplete)]
    head, tail = os.path.split(incomplete)
    try:
        entries = sorted(os.scandir(head or "."), key=lambda e: e.name)
    except OSError:
        return found
    for entry in entries:
        if entry.name.startswith(tail) and not entry.name.startswith(".") and entry.is_dir():
            found.append(str(Path(head) / entry.name) + os.sep if head else entry.name + os.sep)
    return found


def papers(incomplete: str) -> list[str]:
    from engine.presets import papers

    return [paper for paper in papers() if paper.startswith(incomplete.lower())]
