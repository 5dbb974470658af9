"""The live-game tracker's kernel: commands → events → state → store. It knows no game (each
lives in ``engine.games``) and no session (``engine.live``: a stored game played, its read
models, the table page's taps).

- ``events``: frozen past-tense facts; ``state``: the pure reducer that folds them;
- ``core``: commands and the turn flow (phase hooks come from each game's ``rules``);
- ``store``: the SQLite event log (chained digests, damage reported); ``replay``: the fold and
  its verified snapshots; ``codec``: the checked, data-only (de)serialisation of events and state.
"""

from .core import Context, GameOver, IllegalCommand, TrackerError, UnknownCommand
from .state import State, apply, fold
from .store import DiskFull, NotAStore, Store, StoreDamaged, StoreError, StoreUnavailable, UnknownGame

__all__ = [
    "Context", "GameOver", "IllegalCommand", "TrackerError", "UnknownCommand",
    "State", "apply", "fold", "Store", "UnknownGame",
    "StoreError", "StoreDamaged", "StoreUnavailable", "DiskFull", "NotAStore",
]
