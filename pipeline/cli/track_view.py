"""What ``cardpress track`` prints, and a path that runs one track command without Typer. No Typer here.

The text of the board, outcomes and the log is made here for both ways a command runs: the
Typer app (``pipeline.cli.track``) and the fast path (``fast_track``), so the two cannot print
different things. The engine is imported inside the functions: the fast path must choose how
definitions are built (``engine.CHECKED_RECORDS``) before any of it is imported.
"""

from __future__ import annotations

import json
import os
import re
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from engine.i18n import _

if TYPE_CHECKING:  # pragma: no cover
    from engine.tracker.kit import CommandSpec, Param
    from engine.live.session import LiveGame, Outcome
    from engine.tracker.store import Store

#: ``CARDPRESS_FAST=0`` runs every command through the Typer app (the fast path's fallback sets it
#: for the process it re-runs, so that one never loops back here).
FAST_ENV = "CARDPRESS_FAST"
DB_ENV = "CARDPRESS_DB"


def board(live: "LiveGame") -> str:
    """The compact board shown after every command in play mode and by ``status``."""
    from engine.live.view import live_status

    s = live_status(live)
    names = {p.id: p.name for p in live.defn.phases}
    phases = " ▸ ".join(f"【{names[p]}】" if p == s["phase"] else names[p] for p in s["phases"])
    lines = [f"{s['game_name']} · {s['id']}",
             f"{live.ctx.turn_label(s['turn'], s['round'])} 行动方：{s['active']}",
             f"阶段：{phases}"]
    if live.definition_note:  # a folder game whose folder moved: say what the board runs on
        lines.insert(1, f"⚠ {live.definition_note}")
    lines += live.ctx.rules.board_lines(s, live.ctx)
    for r in s["reminders"]:
        lines.append(f"  • {r}")
    if s["over"]:
        lines.append(_ending(s))
    return "\n".join(lines)


def _ending(s: dict[str, Any]) -> str:
    """The end of the game as the board says it (``s``: ``live_status``)."""
    return f"对局结束：{s['winner'] + '获胜' if s['winner'] else '平局'}（{s['end_reason']}）"


def outcome_lines(live: "LiveGame", outcome: "Outcome") -> list[str]:
    """What one command did, as shown after it runs."""
    from engine.tracker.describe import describe

    entry = outcome.entry
    if outcome.repeated:
        return [_("operation {op} was already applied as #{seq}: nothing changed").format(op=entry.op_id, seq=entry.seq)]
    if entry.kind in ("undo", "redo"):
        target = live.replay.entries[entry.target]
        verb = "撤销" if entry.kind == "undo" else "重做"
        from engine.live.view import entry_title

        return [f"{verb} #{target.seq}（{entry_title(live, target)}）"] + [
            f"  {describe(e, live.row.players, live.ctx.phase_name, live.ctx.turn_label)}" for e in target.events]
    return [describe(e, live.row.players, live.ctx.phase_name, live.ctx.turn_label) + (f" —— {e.reason}" if e.reason else "")
            for e in entry.events]


def command_lines(live: "LiveGame", outcome: "Outcome") -> list[str]:
    """A command's outcome, and the end of the game when it ended it (``track <command>``)."""
    lines = outcome_lines(live, outcome)
    if live.state.over:
        from engine.live.view import live_status

        lines.append(_ending(live_status(live)))
    return lines


def log_text(live: "LiveGame", tail: int | None = None) -> str:
    from engine.live.view import log_lines

    return "\n".join(l.text() for l in log_lines(live, tail or None))


def status_json_text(live: "LiveGame") -> str:
    """``track status --json``."""
    from engine.live.view import live_status

    data = live_status(live)
    data["stored_definition"] = live.definition_note or None
    return json.dumps(data, ensure_ascii=False, indent=2)


def log_json_text(live: "LiveGame", tail: int) -> str:
    """``track log --json``."""
    from engine.live.view import log_lines

    lines = log_lines(live, tail or None)
    return json.dumps([{"seq": l.seq, "title": l.title, "lines": list(l.lines), "in_effect": l.in_effect}
                       for l in lines], ensure_ascii=False, indent=2)


# ---------------------------------------------------------------------------- shared by both paths


class Failed(Exception):
    """A command failed with ``error: <message>`` and exit code 1."""


def default_db() -> Path:
    from engine.paths import user_data_dir

    return user_data_dir() / "games.sqlite"


@contextmanager
def opened_store(db: Path | None) -> Iterator["Store"]:
    """The store a command uses; its errors, and the command's own, become ``Failed``."""
    import sqlite3

    from engine.errors import CardpressError
    from engine.tracker.store import Store

    try:
        if db is None:
            db = default_db()
            # Only our own default folder is created; a --db in a missing folder is a typo to report.
            db.parent.mkdir(parents=True, exist_ok=True)
        with Store(db) as store:
            yield store
    except CardpressError as exc:
        raise Failed(str(exc)) from None
    except sqlite3.Error as exc:   # anything the store did not already name
        raise Failed(_("{db}: {reason}").format(db=db, reason=exc)) from None


def open_live(store: "Store", game: str | None, note: Callable[[str], None]) -> "LiveGame":
    """The game a command acts on (``pick_game``); ``note`` prints what the player should know on stderr."""
    from engine.live.session import GAME_ENV, LiveGame, pick_game
    from engine.tracker.store import UnknownGame

    try:
        live = LiveGame(store, pick_game(store, game))
    except UnknownGame as exc:
        if game and os.environ.get(GAME_ENV) == game:   # a stale variable, or another store's game
            raise UnknownGame(_("{error} ({variable}={game} is set in this terminal)").format(
                error=exc, variable=GAME_ENV, game=game)) from None
        raise
    if game is None and len(store.game_ids()) > 1:
        # Chosen because it is the only one in progress: say which, so a table whose own game
        # just ended sees at once that this command went to another table's game.
        note(_("→ game {game} (the only game in progress in this store; --game or {variable} picks another)").format(
            game=live.id, variable=GAME_ENV))
    if live.definition_note:
        note(live.definition_note)
    return live


def run_declared(live: "LiveGame", spec: "CommandSpec", raw: dict[str, Any], op_id: str | None,
                 echo: Callable[[str], None]) -> int:
    """A declared command with its raw arguments (text, as typed): prints what it did; the exit code."""
    args = spec.parse_args(raw)
    if spec.query:
        ok, text = live.query(spec.name, **args)
        echo(text)
        return 0 if ok else 1
    for line in command_lines(live, live.do(spec.name, op_id=op_id, **args)):
        echo(line)
    return 0


# ---------------------------------------------------------------------------- the fast path
#
# ``cardpress track <command> …`` without Typer, Click, Rich or pydantic: ~0.1 s instead of
# ~0.45 s. It reads exactly the command lines the Typer app reads (the declared commands with
# their parameters, ``--db``/``--game``/``--op-id`` and their environment variables, and
# ``status``/``log``/``undo``/``redo``), and anything else — ``--help``, a typo, an argument
# Typer would refuse, a command it does not know — goes to the Typer app, which prints what it
# always printed. Before the engine is imported (``fast_track`` returns None) that is a plain
# call; after, the process re-runs itself with ``CARDPRESS_FAST=0`` (``_full_path``), as it does
# when a game's definition is not in the checked cache yet (the full path then writes it).

#: Typer commands the fast path leaves to Typer (they are not what a table types between moves).
_TYPER_ONLY = frozenset({"new", "list", "resume", "export", "import", "play"})
_NUMBER = re.compile(r"^[+\-−]\d+$")
_COUNT = re.compile(r"^\d+$")
_RED, _RESET = "\033[31m", "\033[0m"


class NotRead(Exception):
    """Words a declared command does not read (the Typer app then words the error, as Click does)."""


def _echo(text: str, err: bool = False) -> None:
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n")
    stream.flush()


def _error(message: str) -> None:
    """``typer.secho(f"error: …", err=True, fg=RED)``: red only on a terminal."""
    _error_plain(_("error: {message}").format(message=message))


def _env(name: str) -> str | None:
    return os.environ.get(name) or None   # Click: an empty variable is not set


class _Line:
    """The words after ``track``: common options taken out, the rest left in order. ``flags``:
    options known to take no value."""

    def __init__(self, words: list[str], common: dict[str, str], flags: frozenset[str] = frozenset()):
        self.given: dict[str, str] = {}
        self.rest: list[str] = []
        i = 0
        while i < len(words):
            word = words[i]
            name, eq, value = word.partition("=") if word.startswith("--") else (word, "", "")
            if name in common:
                before = words[i - 1] if i else ""
                if (before.startswith("-") and not _NUMBER.match(before) and "=" not in before
                        and before not in common and before not in flags):
                    # ``--why -g x``: Click may take this option as the value of the one before.
                    raise NotRead(_("{option} right after {before}").format(option=name, before=before))
                if not eq:
                    i += 1
                    if i >= len(words):
                        raise NotRead("option needs a value")
                    value = words[i]
                if not value or (value.startswith("-") and not _NUMBER.match(value)):
                    raise NotRead("option value that Click reads otherwise")
                self.given[common[name]] = value
            else:
                self.rest.append(word)
            i += 1


def read_words(spec: "CommandSpec", words: list[str], common: frozenset[str] = frozenset()) -> dict[str, Any]:
    """A declared command's words (after its name) as its Typer command reads them: raw values by
    parameter, with every default Typer passes (flags as booleans, other defaults as their
    text). ``common`` options (``--db X``…) are skipped with their value. Raises ``NotRead``
    with what Click would object to; a value is never taken that Click might read as an option."""
    options: dict[str, tuple["Param", bool | None]] = {}
    for p in spec.params:
        if p.kind in ("flag", "tristate"):
            options[p.flag_name] = (p, True)
            if p.kind == "flag" and p.short:
                options[p.short] = (p, True)
            if p.kind == "tristate":
                options["--no-" + p.name.replace("_", "-")] = (p, False)
        elif p.option:
            options[p.flag_name] = (p, None)
            if p.short:
                options[p.short] = (p, None)
    positional = [p for p in spec.params if not p.option and p.kind not in ("flag", "tristate")]
    raw: dict[str, Any] = {}
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and not _NUMBER.match(word):
            name, eq, value = word.partition("=") if word.startswith("--") else (word, "", "")
            if name not in options and name not in common:
                raise NotRead(_("no such option: {option}").format(option=name))
            param, flag = options.get(name, (None, None))
            if flag is not None:
                if eq:
                    raise NotRead(_("option {option} does not take a value").format(option=name))
                raw[param.name] = flag
            else:
                if not eq:
                    i += 1
                    if i >= len(words):
                        raise NotRead(_("option {option} requires a value").format(option=name))
                    value = words[i]
                if value.startswith("-") and not _NUMBER.match(value):
                    raise NotRead(_("option {option} requires a value, not {value!r}").format(option=name, value=value))
                if param is not None:
                    raw[param.name] = value
        else:
            slot = next((p for p in positional if p.name not in raw), None)
            if slot is None:
                raise NotRead(_("unexpected extra argument ({word})").format(word=word))
            raw[slot.name] = word
        i += 1
    for p in spec.params:
        if p.name in raw:
            continue
        if p.kind == "flag":
            raw[p.name] = bool(p.default)
        elif p.required and not p.option and p.kind != "tristate":
            raise NotRead(_("missing argument {name}").format(name=p.name.upper()))
        elif not p.required and p.default is not None:
            raw[p.name] = p.default if p.kind == "tristate" else str(p.default)
    return raw


def _declared(live: "LiveGame", words: list[str]) -> tuple["CommandSpec", list[str]]:
    """The game's command the words name exactly as Typer names it (``draw-skill``, ``chain push``)."""
    from engine.tracker.core import commands_of

    for spec in commands_of(live.ctx).values():
        n = len(spec.words)
        if list(spec.words) == words[:n]:
            return spec, words[n:]
    raise NotRead("not a command of this game")


def fast_track(argv: list[str]) -> int | None:
    """Run ``cardpress track …`` (``argv`` without the program name) on the fast path: the exit
    code, or None when the Typer app should run it (nothing was imported or printed)."""
    if (len(argv) < 2 or argv[0] != "track" or argv[1].startswith("-") or argv[1] in _TYPER_ONLY
            or os.environ.get(FAST_ENV) == "0" or any(w in ("-h", "--help", "--") for w in argv)):
        return None
    if "engine.model" in sys.modules:   # definitions already built by pydantic: not a fresh process
        return None
    import gc

    # One short command: reference counting frees what it drops, and the cycle collector's
    # passes over the ~100 modules being imported cost ~7% of the command (measured).
    gc.disable()
    import engine

    engine.CHECKED_RECORDS = True
    try:
        return _fast(argv[1:])
    except NotRead:
        _full_path()
    except KeyboardInterrupt:
        _error_plain(_("interrupted: nothing half-written was kept"))
        return 130
    except MemoryError:
        _error_plain(_("error: out of memory (an input far larger than any card game needs?)"))
        return 1
    except OSError as exc:
        from ..atomic import reason_of

        where = f" ({exc.filename})" if exc.filename else ""
        _error_plain(_("error: {message}").format(message=_("{reason}; nothing half-written was kept").format(
            reason=f"{reason_of(exc)}{where}")))
        return 1
    except Exception as exc:  # noqa: BLE001 - a bug of ours: said as main() says it
        from engine.model import NotChecked

        if isinstance(exc, NotChecked):
            _full_path()
        _error_plain(_("error: internal error ({kind}: {exc}); this is a bug in cardpress, please report it with "
                       "the command you ran").format(kind=type(exc).__name__, exc=exc))
        return 2
    return None  # pragma: no cover - _full_path does not return


def _error_plain(text: str) -> None:
    _echo(f"{_RED}{text}{_RESET}" if sys.stderr.isatty() else text, err=True)


def _fast(words: list[str]) -> int:
    import sqlite3

    from engine.errors import CardpressError

    command = words[0]
    common = {"--db": "db", "--game": "game", "-g": "game"}
    if command not in ("status", "log"):
        common["--op-id"] = "op_id"
    if command == "log":
        common["--tail"] = "tail"
    line = _Line(words, common, frozenset({"--json"}) if command in ("status", "log") else frozenset())
    rest = line.rest[1:]
    flags = {w for w in rest if w == "--json"} if command in ("status", "log") else set()
    rest = [w for w in rest if w not in flags]
    steps = 1
    if command in ("status", "log", "redo") and rest:
        raise NotRead("extra argument")
    if command == "undo":
        if len(rest) > 1 or (rest and (not _COUNT.match(rest[0]) or int(rest[0]) < 1)):
            raise NotRead("Click checks the steps")
        steps = int(rest[0]) if rest else 1
    tail = 0
    if "tail" in line.given:
        if not _COUNT.match(line.given["tail"]):
            raise NotRead("Click reads the tail")
        tail = int(line.given["tail"])
    db_text = line.given.get("db") or _env(DB_ENV)
    db = Path(db_text) if db_text else None
    game = line.given.get("game") or _env("CARDPRESS_GAME")
    op_id = line.given.get("op_id")
    out = _Output()
    try:
        with opened_store(db) as store:
            live = before = None
            try:
                # Typer reads the whole command line before the game is opened; here the game's
                # own commands read it, so what opening says waits for the first thing printed.
                live = open_live(store, game, out.note)
                if command not in ("status", "log", "undo", "redo"):
                    # Read from the words as typed, common options included: a word Click would
                    # take as an option's value (``--why -g``) must stop the fast path, not be read twice.
                    spec, after = _declared(live, words)
                    if spec.query and op_id is not None:
                        raise NotRead("a query takes no --op-id")
                    raw = read_words(spec, after, frozenset(common))
                before = store.last_seq(live.id)
                if command == "status":
                    out(status_json_text(live) if flags else board(live))
                elif command == "log":
                    out(log_json_text(live, tail) if flags else log_text(live, tail or None))
                elif command in ("undo", "redo"):
                    for k in range(steps):
                        if command == "undo":
                            outcome = live.undo(f"{op_id}:{k}" if op_id else None)
                        else:
                            outcome = live.redo(op_id)
                        for text in outcome_lines(live, outcome):
                            out(text)
                else:
                    return run_declared(live, spec, raw, op_id, out)
            except (NotRead, CardpressError, OSError, sqlite3.Error):
                raise
            except Exception as exc:
                # Not a refusal: a bug, or something the checked records lack. While nothing is
                # printed or stored yet, the full path runs the command instead, and says which.
                if not out.printed and (live is None or before is None or store.last_seq(live.id) == before):
                    raise NotRead(f"{type(exc).__name__} on the fast path") from exc
                raise
    except Failed as exc:
        out.error(str(exc))
        return 1
    return 0


class _Output:
    """stdout and stderr of a fast command, with the notes opening the game gave held back until
    the first line is printed (Typer prints them before running the command, after reading it)."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.printed = False

    def note(self, text: str) -> None:
        self.notes.append(text)

    def _flush_notes(self) -> None:
        self.printed = True
        for text in self.notes:
            _echo(text, err=True)
        self.notes.clear()

    def __call__(self, text: str) -> None:
        self._flush_notes()
        _echo(text)

    def error(self, message: str) -> None:
        self._flush_notes()
        _error(message)


def _full_path() -> None:
    """Re-run this process with the fast path off: Typer reads the command line afresh."""
    sys.stdout.flush()
    sys.stderr.flush()
    env = {**os.environ, FAST_ENV: "0"}
    argv = list(getattr(sys, "orig_argv", None) or [sys.executable, *sys.argv])
    if os.name == "nt":  # pragma: no cover - no exec there: run it and pass its exit code on
        import subprocess

        raise SystemExit(subprocess.call([sys.executable, *argv[1:]], env=env))
    os.execve(sys.executable, [argv[0], *argv[1:]], env)
