"""The live-game tracker: commands → events → state → store.

- ``events``: frozen past-tense facts; ``state``: the pure reducer that folds them;
- ``core``: commands and the turn flow (phase hooks come from ``engine.rules.<game>``);
- ``store``: the SQLite event log (chained digests, damage reported); ``session.LiveGame``: a game
  replayed from it, taking commands; ``replay``: the fold and its verified snapshots; ``codec``:
  the checked, data-only (de)serialisation of events and state;
- ``view``: status as JSON and the readable log.
"""

from .core import Context, GameOver, IllegalCommand, TrackerError, UnknownCommand
from .session import LiveGame, NothingToRedo, NothingToUndo, Outcome, import_game, resume
from .state import State, apply, fold
from .store import DiskFull, NotAStore, Store, StoreDamaged, StoreError, StoreUnavailable, UnknownGame

__all__ = [
    "Context", "GameOver", "IllegalCommand", "TrackerError", "UnknownCommand", "LiveGame", "NothingToRedo",
    "NothingToUndo", "Outcome", "import_game", "resume", "State", "apply", "fold", "Store", "UnknownGame",
    "StoreError", "StoreDamaged", "StoreUnavailable", "DiskFull", "NotAStore",
]
