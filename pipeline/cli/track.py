"""``cardpress track``: the rules assistant at the table. Thin adapters over ``engine.tracker``.

Every command opens the store (``--db PATH``, default in the user's data directory), calls one
library function, prints what happened, and turns a ``CardpressError`` into ``error: …`` and
exit code 1. A command acts on the game ``--game ID`` (or ``CARDPRESS_GAME``) names, else on the
store's only game in progress; with two games in progress it is refused (``pick_game``).
"""

from __future__ import annotations

import inspect
import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Callable, Iterator, Optional

import typer

from engine.errors import CardpressError
from engine.i18n import _, N_, using
from engine.i18n import _ as tr  # help made from the declarations' N_-marked texts
from engine.limits import MAX_IMPORT_BYTES
from engine.paths import read_bounded
from engine.tracker import Store
from engine.live import LiveGame
from engine.live.script import complete, parse_line
from engine.tracker.core import commands_of
from engine.tracker.kit import CommandSpec, Param, declared_commands, fill, shipped_numbers
from engine.live.session import FIRST_RANDOM, GAME_ENV, activity_time, import_game, intact_export, parse_log

from ..atomic import atomic_write, reason_of
from .common import TRACK_HELP
from .lang import compose
from .track_view import (Failed, NotRead, board, log_json_text, log_text, open_live, opened_store,
                         outcome_lines, read_words, run_declared, status_json_text)

app = typer.Typer(
    help=TRACK_HELP,
    no_args_is_help=True,
    rich_markup_mode="rich",
)
chain_app = typer.Typer(help="backrooms: the effect chain (push a link, negate one, resolve last-in-first-out).",
                        no_args_is_help=True)
app.add_typer(chain_app, name="chain", rich_help_panel="backrooms")

GAMES, TURN, BACKROOMS, DUEL, RIDM = "Games", "Turn", "backrooms", "duel", "ridm"


Db = Annotated[Optional[Path], typer.Option("--db", envvar="CARDPRESS_DB", help="Event store file (default: user data dir).")]
GAME_HELP = (f"Game id (default: the store's only game in progress). Two tables on one store: set "
             f"{GAME_ENV}=ID in each terminal.")
GameId = Annotated[Optional[str], typer.Option("--game", "-g", envvar=GAME_ENV, help=GAME_HELP)]
OpId = Annotated[Optional[str], typer.Option("--op-id", help="Operation id: a retried command with the same id applies once.")]
Player = Annotated[str, typer.Argument(help="Player name or seat number (1, 2).")]
Why = Annotated[str, typer.Option("--why", help="Reason to record in the log (the card or effect).")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _fail(message: str) -> None:
    typer.secho(_("error: {message}").format(message=message), err=True, fg=typer.colors.RED)
    raise typer.Exit(1)


@contextmanager
def _store(db: Path | None) -> Iterator[Store]:
    try:
        with opened_store(db) as store:
            yield store
    except Failed as exc:
        _fail(str(exc))


def _live(store: Store, game: str | None) -> LiveGame:
    return open_live(store, game, lambda text: typer.secho(text, err=True))


def _use_line(game_id: str) -> str:
    return _("export {variable}={game}    # this terminal's commands then go to this game").format(
        variable=GAME_ENV, game=game_id)


# ---------------------------------------------------------------------------- games


def parse_decks(decks: list[str]) -> dict[str, Path]:
    out = {}
    for item in decks:
        name, sep, path = item.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise typer.BadParameter(_("expected PLAYER=FILE, got {item!r}").format(item=item), param_hint="--deck")
        out[name.strip()] = Path(path.strip())
    return out


@app.command(rich_help_panel=GAMES, context_settings={"allow_extra_args": True})
def new(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game id (backrooms, duel, ridm) or a game folder.")],
    players: Annotated[list[str], typer.Option("--players", "-p", help="Player names, in seat order (repeat or comma-separate).")],
    first: Annotated[Optional[str], typer.Option("--first", help=f"Who goes first: a player, a seat number or "
                                                 f"'{FIRST_RANDOM}' (drawn once and logged; default: the first player).")] = None,
    levels: Annotated[str, typer.Option("--levels", help="backrooms: public level pile, card ids or names, comma-separated.")] = "",
    deck: Annotated[list[str], typer.Option("--deck", help="PLAYER=FILE: the player's deck, a file or a deck of the game by name (checked; backrooms levels, duel deck size).")] = [],
    no_check: Annotated[bool, typer.Option("--no-check", help="Accept decks that break the construction rules.")] = False,
    db: Db = None,
    op_id: OpId = None,
) -> None:
    """Start a game; print its id, the line that points this terminal at it, and the board.

    Example: cardpress track new backrooms --players A B --levels "level-0,level-1,level-2"

    Example: cardpress track new duel -p 甲,乙 --first random
    """
    # "--players A B": B is left over as an extra argument; "-p A -p B" and "-p A,B" work too.
    extra = [a for a in ctx.args if not a.startswith("-")]
    if len(extra) != len(ctx.args):
        raise typer.BadParameter(_("unexpected {words}").format(words=" ".join(ctx.args)), param_hint="--players")
    names = [n.strip() for p in [*players, *extra] for n in p.replace("，", ",").split(",") if n.strip()]
    pile = tuple(x.strip() for x in levels.replace("，", ",").split(",") if x.strip())
    with _store(db) as store:
        live = LiveGame.new(store, game, names, first=first, levels=pile, decks=parse_decks(deck),
                            op_id=op_id, check_decks=not no_check)
        typer.echo(live.id)
        typer.echo(_use_line(live.id))
        typer.echo(board(live))


@app.command("list", rich_help_panel=GAMES)
def list_games(db: Db = None, as_json: AsJson = False) -> None:
    """List the stored games, most recent first: in progress or finished, and last activity.

    Example: cardpress track list --json
    """
    with _store(db) as store:
        rows = store.games()
        ended = store.ended()
        if as_json:
            typer.echo(json.dumps([{"id": r.id, "game": r.ruleset, "players": list(r.players), "entries": n,
                                    "in_progress": r.id not in ended, "last_activity": last}
                                   for r, n, last in rows], ensure_ascii=False))
            return
        if not rows:
            typer.echo(_("no games yet: cardpress track new GAME --players A --players B"))
        for r, n, last in rows:
            state = _("finished") if r.id in ended else _("in progress")
            typer.echo(_("{game}  {ruleset}  {players}  {state}, last activity {time} ({entries} entries)").format(
                game=r.id, ruleset=r.ruleset, players=_(" vs ").join(r.players), state=state,
                time=activity_time(last), entries=n))


@app.command("resume", rich_help_panel=GAMES)
def resume_cmd(game_id: Annotated[str, typer.Argument(help="Game id from `track list`.")], db: Db = None) -> None:
    """Show a stored game's board, and the line that points this terminal at it.

    Example: cardpress track resume backrooms-1a2b3c
    """
    with _store(db) as store:
        live = _live(store, game_id)
        typer.echo(board(live))
        typer.echo(_use_line(live.id))



@app.command("status", rich_help_panel=GAMES)
def status(db: Db = None, game: GameId = None, as_json: AsJson = False) -> None:
    """Show the board (turn, round, phase, every player's resources, reminders).

    Example: cardpress track status --json
    """
    with _store(db) as store:
        live = _live(store, game)
        if as_json:
            typer.echo(status_json_text(live))
        else:
            typer.echo(board(live))


@app.command("log", rich_help_panel=GAMES)
def log(db: Db = None, game: GameId = None, tail: Annotated[int, typer.Option(help="Only the last N entries.")] = 0,
        as_json: AsJson = False) -> None:
    """The history: each command, what it did and why (automatic effects included).

    Example: cardpress track log --tail 5
    """
    with _store(db) as store:
        live = _live(store, game)
        if as_json:
            typer.echo(log_json_text(live, tail))
        else:
            typer.echo(log_text(live, tail or None))


@app.command("export", rich_help_panel=GAMES)
def export(game_id: Annotated[str, typer.Argument(help="Game id.")], db: Db = None,
           output: Annotated[Optional[Path], typer.Option("--output", "-o", help="File (default: stdout).")] = None,
           intact: Annotated[bool, typer.Option("--intact", help="A damaged game: save the entries before the damage.")] = False) -> None:
    """Write a game's whole log as JSON (the file is replaced only once it is complete).

    Example: cardpress track export backrooms-1a2b3c -o game.json
    """
    with _store(db) as store:
        if intact:
            data, kept, why = intact_export(store, game_id)
        else:
            data, kept, why = LiveGame(store, game_id).export(), 0, ""
        text = json.dumps(data, ensure_ascii=False, indent=1) + "\n"
        if output:
            try:
                with atomic_write(output) as tmp:
                    tmp.write_text(text, encoding="utf-8")
            except OSError as exc:  # a full disk is atomic_write's WriteError; this is anything else
                _fail(_("cannot write {file}: {reason}; the previous file (if any) is unchanged").format(
                    file=output, reason=reason_of(exc)))
            typer.echo(_("wrote {file}").format(file=output))
        else:
            typer.echo(text, nl=False)
        if intact:
            tail = _(" (it stops there: {why})").format(why=why) if why else _(" (the whole log)")
            typer.secho(_("saved entries 1..{kept} of game {game}{tail}").format(kept=kept, game=game_id, tail=tail),
                        err=True)


@app.command("import", rich_help_panel=GAMES)
def import_(file: Annotated[Path, typer.Argument(help="A JSON log from `track export`.", exists=True, dir_okay=False)],
            db: Db = None, as_id: Annotated[Optional[str], typer.Option("--as", help="Store under this id.")] = None) -> None:
    """Store a game log exported elsewhere (checked completely first); print its id and the line to use it.

    Example: cardpress track import game.json --as table-2
    """
    with _store(db) as store:
        data = parse_log(read_bounded(file, MAX_IMPORT_BYTES, "game log"), file)
        live = import_game(store, data, as_id, source=file)
        typer.echo(live.id)
        typer.echo(_use_line(live.id))


# ---------------------------------------------------------------------------- turn


@app.command(rich_help_panel=TURN)
def undo(steps: Annotated[int, typer.Argument(min=1, help="How many commands to take back.")] = 1,
         db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Take back the last command and everything it triggered (undo is itself logged).

    Example: cardpress track undo 2
    """
    with _store(db) as store:
        live = _live(store, game)
        for k in range(steps):
            op = f"{op_id}:{k}" if op_id else None
            for line in outcome_lines(live, live.undo(op)):
                typer.echo(line)


@app.command(rich_help_panel=TURN)
def redo(db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Re-apply the last undone command.

    Example: cardpress track redo
    """
    with _store(db) as store:
        live = _live(store, game)
        for line in outcome_lines(live, live.redo(op_id)):
            typer.echo(line)


# ---------------------------------------------------------------------------- game commands
#
# Every game command is generated from its declaration (engine.tracker.kit): the same names,
# parameters, help and examples as table mode and the phone page. Arguments arrive as text and
# are read by the declaration, so "-3" is a number here as at the table.

PANELS = {"core": TURN, "backrooms": BACKROOMS, "duel": DUEL, "ridm": RIDM, "generic": "your own game"}
for _game in (BACKROOMS, DUEL, RIDM):
    compose(_game, lambda game=_game: game, ())  # a game's id: the same in every language
#: "-3" is an argument, not an unknown option.
_COMMAND_SETTINGS = {"ignore_unknown_options": True}


def _typer_default(p: Param, numbers: dict[str, Any]) -> tuple[Any, Any]:
    """(annotation, typer.Argument/Option) for one declared parameter."""
    help_text = _declared_help(p.help, numbers)
    default = ... if p.required else p.default
    if p.kind == "flag":
        return bool, typer.Option(bool(p.default), p.flag_name, *([p.short] if p.short else []), help=help_text)
    if p.kind == "tristate":
        negative = "--no-" + p.name.replace("_", "-")
        decl = f"{p.flag_name}/{negative}"
        return Optional[bool], typer.Option(p.default, decl, help=help_text, show_default=False)
    # Positionals are named in the usage line (ATTACK TARGET); options say what they take.
    number = p.kind in ("count", "int", "signed")
    metavar = p.metavar or (("N" if number else "TEXT") if p.option else p.name.upper())
    annotation = str if p.required or p.default is not None else Optional[str]
    shown = None if p.default is None or p.required else str(p.default)
    if p.option:
        return annotation, typer.Option(shown if shown is not None else None, p.flag_name,
                                        *([p.short] if p.short else []), help=help_text, metavar=metavar,
                                        show_default=shown is not None and shown != "")
    return annotation, typer.Argument(default if p.required else shown, help=help_text, metavar=metavar,
                                      show_default=shown is not None and shown != "")


def _declared_help(text: str, numbers: dict[str, Any]) -> str:
    """A declaration's help (an N_-marked msgid) with the game's numbers filled in, in English for
    Typer, and in the language in force when the help is shown (``lang.compose``)."""
    english = fill(text, numbers)
    if text.strip():
        compose(english, lambda: fill(tr(text), numbers), (text,))
    return english


def _examples(examples) -> str:
    return "\n\n".join(_("Example: {command}").format(command=f"cardpress track {e}") for e in examples)


def _run_declared(spec: CommandSpec, db: Path | None, game: str | None, op_id: str | None,
                  given: dict[str, Any]) -> None:
    raw = {k: v for k, v in given.items() if v is not None}
    with _store(db) as store:
        code = run_declared(_live(store, game), spec, raw, op_id, typer.echo)
    if code:
        raise typer.Exit(code)


def _declared_command(spec: CommandSpec, numbers: dict[str, Any]) -> Callable[..., None]:
    """A Typer command function for ``spec``, with a signature Typer reads."""

    def command(**given: Any) -> None:
        db, game, op_id = given.pop("db"), given.pop("game"), given.pop("op_id", None)
        _run_declared(spec, db, game, op_id, given)

    params, annotations = [], {}
    for p in spec.params:
        annotation, default = _typer_default(p, numbers)
        params.append(inspect.Parameter(p.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=annotation))
        annotations[p.name] = annotation
    common = [("db", Optional[Path], typer.Option(None, "--db", envvar="CARDPRESS_DB",
                                                  help="Event store file (default: user data dir).")),
              ("game", Optional[str], typer.Option(None, "--game", "-g", envvar=GAME_ENV, help=GAME_HELP))]
    if not spec.query:
        common.append(("op_id", Optional[str], typer.Option(
            None, "--op-id", help="Operation id: a retried command with the same id applies once.")))
    for name, annotation, default in common:
        params.append(inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation))
        annotations[name] = annotation
    command.__signature__ = inspect.Signature(params)
    command.__annotations__ = annotations
    command.__name__ = spec.name
    with using("en"):
        english = f"{spec.help_text(numbers)}\n\n{_examples(spec.examples)}"
    command.__doc__ = compose(english, lambda: f"{fill(tr(spec.help), numbers)}\n\n{_examples(spec.examples)}",
                              (spec.help, "Example: {command}"))
    return command


def _signature(spec: CommandSpec) -> tuple:
    """What a command's words read (two games may declare the same words alike, or not)."""
    return spec.query, tuple((p.name, p.kind, p.option, p.short, p.required, repr(p.default), p.choices, p.minimum)
                             for p in spec.params)


def _shared_command(words: tuple[str, ...], declared: list[tuple[str, CommandSpec]]) -> Callable[..., None]:
    """A command whose words several games declare with different parameters (``attack UNIT
    TARGET`` in backrooms, ``attack FIGHTER TARGET --pierce`` in duel): its arguments are read
    by the declaration of the game the command goes to, once that game is known."""

    def command(ctx: typer.Context,
                args: Annotated[Optional[list[str]], typer.Argument(metavar="ARGS...", show_default=False,
                                                                    help="As the game's own declaration reads them.")] = None,
                db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
        with _store(db) as store:
            live = _live(store, game)
            spec = next((s for s in commands_of(live.ctx).values() if s.words == words), None)
            if spec is None:
                live.do(declared[0][1].name)   # refused as every command the game lacks is
                return
            if spec.query and op_id is not None:
                raise typer.BadParameter(_("a query takes no --op-id"), param_hint="--op-id")
            try:
                raw = read_words(spec, list(args or []))
            except NotRead as exc:
                raise typer.BadParameter(f"{spec.cli_name} ({live.defn.id}): {exc}", ctx=ctx) from None
            code = run_declared(live, spec, raw, op_id, typer.echo)
        if code:
            raise typer.Exit(code)

    def doc() -> str:
        usages = []
        for ruleset, spec in declared:
            params = " ".join(p.name.upper() if not p.option and p.kind not in ("flag", "tristate")
                              else f"[{p.flag_name}/--no-{p.flag_name[2:]}]" if p.kind == "tristate"
                              else f"[{p.flag_name}]" if p.kind == "flag" else f"[{p.flag_name} {p.metavar or 'X'}]"
                              for p in spec.params)
            usages.append(f"{ruleset}: {' '.join(words)} {params} — {fill(tr(spec.help), shipped_numbers(ruleset))}")
        examples = _examples([e for _ruleset, spec in declared for e in spec.examples])
        return _("The game decides how its arguments read.") + "\n\n" + "\n\n".join(usages) + "\n\n" + examples

    with using("en"):
        english = doc()
    command.__doc__ = compose(english, doc, ("The game decides how its arguments read.", "Example: {command}",
                                             *(spec.help for _ruleset, spec in declared)))
    command.__name__ = "_".join(words)
    return command


def _register_declared() -> None:
    groups: dict[str, typer.Typer] = {"chain": chain_app}
    by_words: dict[tuple[str, ...], list[tuple[str, CommandSpec]]] = {}
    for ruleset, commands in declared_commands():
        for spec in commands:
            by_words.setdefault(spec.words, []).append((ruleset, spec))
    for words, declared in by_words.items():
        ruleset, spec = declared[0]
        if len({_signature(s) for _ruleset, s in declared}) == 1:   # one reading of these words: generated as declared
            fn, panel = _declared_command(spec, shipped_numbers(ruleset)), PANELS.get(ruleset, ruleset)
        else:
            rulesets = [r for r, _spec in declared]
            fn = _shared_command(words, declared)
            panel = compose(" · ".join(PANELS.get(r, r) for r in rulesets),
                            lambda rulesets=rulesets: " · ".join(tr(PANELS.get(r, r)) for r in rulesets), ())
        target, word = (groups[words[0]], words[1]) if len(words) == 2 else (app, words[0])
        target.command(word, rich_help_panel=None if target is not app else panel,
                       context_settings=_COMMAND_SETTINGS)(fn)


# ---------------------------------------------------------------------------- play

PLAY_HELP = N_("""Enter or n: next phase · u: undo · r: redo · l: log · s: board · q: quit · h: help
Actions: COMMAND ARGS… (e.g. "spend A 3", "damage B 5 outpost=2", "push B 无效 --negates 1", "resolve")""")


#: Words a card-naming parameter may complete to (the card data's names).
_CARD_PARAMS = ("operator", "skill", "name", "requirement")


def _line_reader(live: LiveGame, commands: dict[str, CommandSpec]) -> Callable[[], str | None]:
    """``read()`` → the next table line, or None at the end. At a terminal: line editing,
    history (kept in the data folder) and Tab completion of commands, players, choices, options
    and card names, all from the declarations; from a pipe: plain lines."""
    if not sys.stdin.isatty():
        def read_pipe() -> str | None:
            typer.echo("> ", nl=False)
            return sys.stdin.readline() or None

        return read_pipe
    import atexit
    import readline

    from engine.paths import user_data_dir

    history = user_data_dir() / "play-history"
    try:
        readline.read_history_file(history)
    except OSError:
        pass
    readline.set_history_length(1000)
    atexit.register(_save_history, readline, history)
    players = tuple(p.name for p in live.state.players)
    cards: dict[str, tuple[str, ...]] = {}

    def words_for() -> dict[str, tuple[str, ...]]:
        if not cards:
            try:
                names = tuple(sorted({c.name for c in live.ctx.cards.values()}))
            except CardpressError:
                names = ()  # card data unavailable (a moved folder): commands still complete
            cards.update({name: names for name in _CARD_PARAMS}, card=names)
        return {**cards, "piece": tuple(p.id for p in live.state.pieces)}

    def completer(text: str, index: int) -> str | None:
        line = readline.get_line_buffer()[:readline.get_endidx()]
        found = complete(line, commands, players, words_for())
        if len(found) == 1:
            found = [found[0] + " "]  # a whole word: the next one can be typed at once
        return found[index] if index < len(found) else None

    readline.set_completer_delims(" \t")
    readline.set_completer(completer)
    readline.parse_and_bind("tab: complete")

    def read_tty() -> str | None:
        try:
            return input("> ")
        except EOFError:
            return None

    return read_tty


def _save_history(readline: Any, path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        readline.write_history_file(path)
    except OSError:
        pass  # history is a convenience; a read-only home must not break the table


@app.command(rich_help_panel=GAMES)
def play(db: Db = None, game: GameId = None) -> None:
    """Table mode: Enter (or n) advances the phase, short commands act, the board is redrawn after each.

    Reads commands from standard input, one per line; q (or end of input) quits.

    Example: printf 'n\\nspend A 3\\nu\\nq\\n' | cardpress track play
    """
    with _store(db) as store:
        live = _live(store, game)
        commands = commands_of(live.ctx)
        typer.echo(board(live))
        typer.echo(tr(PLAY_HELP))
        read = _line_reader(live, commands)
        while True:
            line = read()
            if line is None:
                typer.echo("")
                break
            cmd = line.strip()
            if cmd in ("q", "quit", "exit"):
                break
            try:
                if cmd in ("", "n", "next"):
                    outcome = live.do("next")
                elif cmd in ("u", "undo"):
                    outcome = live.undo()
                elif cmd in ("r", "redo"):
                    outcome = live.redo()
                elif cmd in ("l", "log"):
                    typer.echo(log_text(live, 10))
                    continue
                elif cmd in ("s", "status", "b", "board"):
                    typer.echo(board(live))
                    continue
                elif cmd in ("h", "help", "?"):
                    typer.echo(tr(PLAY_HELP))
                    typer.echo(_("Commands: {commands}").format(
                        commands=", ".join(sorted("-".join(s.words) for s in commands.values()))))
                    continue
                else:
                    spec, args = parse_line(cmd, commands)
                    if spec.query:
                        typer.echo(live.query(spec.name, **args)[1])
                        continue
                    outcome = live.do(spec.name, **args)
            except (CardpressError, ValueError) as exc:
                typer.secho(_("error: {message}").format(message=exc), err=True, fg=typer.colors.RED)
                continue
            for out in outcome_lines(live, outcome):
                typer.echo(out)
            typer.echo(board(live))


_register_declared()
