"""A live game as people use it: ``session`` (``LiveGame``: a stored game played, undone,
exported), ``view`` (its read models: status as JSON, the readable log), ``board`` (the board as
the table page draws it), ``script`` (the table line parser), ``taps`` and ``forms`` (the phone
page's taps and forms). Built on the kernel (``engine.tracker``), which knows nothing of them."""

from .session import LiveGame, NothingToRedo, NothingToUndo, Outcome, import_game, resume

__all__ = ["LiveGame", "NothingToRedo", "NothingToUndo", "Outcome", "import_game", "resume"]
