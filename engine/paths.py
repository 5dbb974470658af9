"""Where shipped games, templates and per-user data live."""

from __future__ import annotations

from pathlib import Path

from .errors import GameNotFound

_REPO = Path(__file__).resolve().parent.parent


def _first_existing(*candidates: Path) -> Path:
    for c in candidates:
        if c.is_dir():
            return c
    return candidates[0]


def shipped_root() -> Path:
    """Folder holding the shipped ``card_data/`` and ``templates/`` (repo checkout or wheel)."""
    wheel = _REPO / "pipeline" / "_shipped"
    return _REPO if (_REPO / "card_data").is_dir() else wheel


def card_data_root() -> Path:
    return shipped_root() / "card_data"


def templates_root() -> Path:
    return shipped_root() / "templates"


def shipped_games() -> list[str]:
    """Ids of the games shipped with cardpress, sorted."""
    root = card_data_root()
    return sorted(p.name for p in root.iterdir() if (p / "game.yaml").is_file()) if root.is_dir() else []


def resolve_game_dir(game: str | Path) -> Path:
    """Turn ``GAME`` (a shipped id or a folder path) into the folder holding ``game.yaml``.

    A path wins over an id when both could match (``./duel`` is the folder, ``duel`` the id
    unless a folder named ``duel`` with a ``game.yaml`` exists in the working directory).
    """
    as_path = Path(game).expanduser()
    if (as_path / "game.yaml").is_file():
        return as_path.resolve()
    if as_path.name == "game.yaml" and as_path.is_file():
        return as_path.parent.resolve()
    shipped = card_data_root() / str(game)
    if "/" not in str(game) and (shipped / "game.yaml").is_file():
        return shipped
    known = ", ".join(shipped_games()) or "none"
    raise GameNotFound(
        f"no game {str(game)!r}: not a shipped game id ({known}) and not a folder with a game.yaml"
    )
