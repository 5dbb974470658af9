"""A tap from a phone at the table: what it asks, applied once, and the board it gets back.

The phone page is generated from the same command declarations as the CLI (``forms``) and sends
each tap as JSON: ``{"op": "…", "seen": 41, "command": "attack", "args": {"unit": "A2", …}}``.
Nothing in it is trusted: ``read_tap`` checks its shape and size before anything runs.

- ``op`` is the phone's operation id, made once per tap and kept across retries: the store
  applies an operation once (``LiveGame`` finds it inside the store's transaction), so a tap
  retried after a lost answer, or queued while the phone was offline, never applies twice.
- ``seen`` is the log position the phone's board showed. A tap is a command, never a board to
  write back, so a phone that was behind does not overwrite anything: its command is decided on
  the current board (inside the transaction, after catching up with other phones and the CLI),
  and it gets the new board back. ``seen`` only says whether it had missed entries (``was_behind``).
"""

from __future__ import annotations

from engine.i18n import _
import json
import re
from dataclasses import dataclass
from typing import Any

from ..limits import MAX_TAP_BYTES
from ..tracker.core import commands_of
from ..tracker.errors import BadArgument, TrackerError

#: An operation id a phone makes (``crypto.getRandomValues`` as hex, or any short token).
_OP = re.compile(r"^[A-Za-z0-9_-]{8,64}$")
#: Commands every game has beside its declared ones.
UNDO, REDO = "undo", "redo"


class BadTap(TrackerError):
    """A tap that is not one: wrong shape, too big, an unknown command or argument."""


@dataclass(frozen=True, slots=True)
class Tap:
    op: str
    seen: int
    command: str
    args: dict[str, Any]


def read_tap(body: bytes) -> Tap:
    """The tap in a request body, checked: raises ``BadTap`` saying what is wrong."""
    if len(body) > MAX_TAP_BYTES:
        raise BadTap(_("a tap is at most {MAX_TAP_BYTES} bytes").format(MAX_TAP_BYTES=MAX_TAP_BYTES))
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise BadTap(_("a tap is a JSON object")) from None
    if type(data) is not dict:
        raise BadTap(_("a tap is a JSON object"))
    op, seen, command, args = data.get("op"), data.get("seen", 0), data.get("command"), data.get("args", {})
    if type(op) is not str or not _OP.match(op):
        raise BadTap(_("op must be an operation id of 8–64 letters, digits, '-' or '_'"))
    if type(seen) is not int or seen < 0:
        raise BadTap(_("seen must be the log position the board showed (a whole number ≥ 0)"))
    if type(command) is not str or not command or len(command) > 64:
        raise BadTap(_("command must name a command"))
    if type(args) is not dict or not all(type(k) is str for k in args):
        raise BadTap(_("args must be an object of the command's parameters"))
    for key, value in args.items():
        if value is not None and type(value) not in (str, int, bool):
            raise BadTap(_("{key}: a value is text, a whole number or true/false").format(key=key))
    return Tap(op, seen, command, dict(args))


def apply_tap(live: Any, tap: Tap) -> dict[str, Any]:
    """Apply ``tap`` once to ``live`` (a ``LiveGame``) and say what happened.

    Returns ``{"seq", "repeated", "was_behind"}``; raises ``BadTap`` for a command or argument the
    game does not declare, and the rules' ``IllegalCommand`` for a refused move (nothing stored).
    """
    live.refresh()
    behind = tap.seen < live.replay.last_seq
    if tap.command in (UNDO, REDO):
        if tap.args:
            raise BadTap(_("{command} takes no arguments").format(command=tap.command))
        outcome = (live.undo if tap.command == UNDO else live.redo)(op_id=tap.op)
    else:
        spec = commands_of(live.ctx).get(tap.command)   # the form's ``command``: the declared name
        if spec is None or spec.query:
            raise BadTap(_("{id} has no command {command!r}").format(id=live.defn.id, command=tap.command))
        try:
            args = spec.parse_args(tap.args)
        except BadArgument as exc:
            raise BadTap(str(exc)) from None
        outcome = live.do(spec.name, op_id=tap.op, **args)
    return {"seq": live.replay.last_seq, "repeated": outcome.repeated, "was_behind": behind}
