"""The phone page's forms, generated from the command declarations (never written per command).

``forms(ctx)`` lists every command the game being played declares — the core's and its own —
as plain data the page turns into controls: a button per command (its Chinese label), and per
parameter a control chosen by its kind: players as seat buttons, counts and signed numbers as
+/− steppers (with their minimum), choices as segmented buttons, flags as toggles, cards as a
search over the player's deck list, pieces by tapping them on the board.
"""

from __future__ import annotations

from typing import Any

from ..i18n import N_
from ..i18n import _ as tr
from ..tracker.core import commands_of
from ..tracker.kit import REQUIRED, CommandSpec, Param
from .taps import REDO, UNDO

#: Help of the page's own undo and redo buttons.
UNDO_HELP = N_("Take back the last command and all it triggered.")
REDO_HELP = N_("Re-apply the last undone command.")


def _param(p: Param) -> dict[str, Any]:
    return {"name": p.name, "kind": p.kind, "label": p.label or p.name, "help": tr(p.help), "required": p.required,
            "default": None if p.default is REQUIRED else p.default, "option": p.option,
            "choices": list(p.choices),
            "choice_labels": list(p.choice_labels or p.choices), "minimum": p.minimum}


def _form(spec: CommandSpec, numbers: dict[str, Any]) -> dict[str, Any]:
    return {"command": spec.name, "words": list(spec.words), "label": spec.label, "help": spec.help_text(numbers),
            "game": spec.game, "query": spec.query, "params": [_param(p) for p in spec.params]}


def forms(ctx: Any) -> list[dict[str, Any]]:
    """Every command of the game being played, in declaration order (the core's first), plus
    undo and redo; ``help`` is in the language in force (``Param.help`` values are all N_-marked
    where declared), filled with the game's own numbers."""
    # ``model_fields`` names the fields of a pydantic model and of a checked record alike.
    numbers = {name: getattr(ctx.numbers, name) for name in type(ctx.numbers).model_fields}
    out = [_form(spec, numbers) for spec in commands_of(ctx).values()]
    out += [{"command": UNDO, "words": [UNDO], "label": "撤销", "help": tr(UNDO_HELP),
             "game": "core", "query": False, "params": []},
            {"command": REDO, "words": [REDO], "label": "重做", "help": tr(REDO_HELP),
             "game": "core", "query": False, "params": []}]
    return out
