"""``cardpress track``: the rules assistant at the table. Thin adapters over ``engine.tracker``.

Every command opens the store (``--db PATH``, default in the user's data directory), calls one
library function, prints what happened, and turns a ``CardpressError`` into ``error: …`` and
exit code 1. Commands act on the current game unless ``--game ID`` names another.
"""

from __future__ import annotations

import errno
import inspect
import json
import shlex
import sqlite3
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Iterator, Optional

import typer

from engine.errors import CardpressError
from engine.limits import MAX_IMPORT_BYTES
from engine.paths import read_bounded
from engine.tracker import LiveGame, Store, resume
from engine.tracker.core import CORE_COMMANDS
from engine.tracker.session import import_game, intact_export, parse_log
from engine.tracker.view import live_status, log_lines

from .atomic import atomic_write
from .track_view import board, log_text, outcome_lines

app = typer.Typer(
    help="Track a live game at the table: turns, phases, resources, reminders, undo and a log that never loses a game.",
    no_args_is_help=True,
    rich_markup_mode="rich",
)
chain_app = typer.Typer(help="backrooms: the effect chain (push a link, negate one, resolve last-in-first-out).",
                        no_args_is_help=True)
app.add_typer(chain_app, name="chain", rich_help_panel="backrooms")

GAMES, TURN, BACKROOMS, DUEL, RIDM = "Games", "Turn", "backrooms", "duel", "ridm"


def default_db() -> Path:
    from engine.paths import user_data_dir

    return user_data_dir() / "games.sqlite"


Db = Annotated[Optional[Path], typer.Option("--db", envvar="CARDPRESS_DB", help="Event store file (default: user data dir).")]
GameId = Annotated[Optional[str], typer.Option("--game", "-g", help="Game id (default: the current game).")]
OpId = Annotated[Optional[str], typer.Option("--op-id", help="Operation id: a retried command with the same id applies once.")]
Player = Annotated[str, typer.Argument(help="Player name or seat number (1, 2).")]
Why = Annotated[str, typer.Option("--why", help="Reason to record in the log (the card or effect).")]
AsJson = Annotated[bool, typer.Option("--json", help="Print JSON.")]


def _fail(message: str) -> None:
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(1)


@contextmanager
def _store(db: Path | None) -> Iterator[Store]:
    try:
        if db is None:
            db = default_db()
            # Only our own default folder is created; a --db in a missing folder is a typo to report.
            db.parent.mkdir(parents=True, exist_ok=True)
        with Store(db) as store:
            yield store
    except CardpressError as exc:
        _fail(str(exc))
    except sqlite3.Error as exc:   # anything the store did not already name
        _fail(f"{db}: {exc}")


def _live(store: Store, game: str | None) -> LiveGame:
    return LiveGame(store, game) if game else resume(store)


def _act(db: Path | None, game: str | None, op_id: str | None, command: str, **args: Any) -> None:
    with _store(db) as store:
        live = _live(store, game)
        outcome = live.do(command, op_id=op_id, **args)
        for line in outcome_lines(live, outcome):
            typer.echo(line)
        if live.state.over:
            s = live_status(live)
            typer.echo(f"对局结束：{s['winner'] + '获胜' if s['winner'] else '平局'}（{s['end_reason']}）")


# ---------------------------------------------------------------------------- games


def _parse_decks(decks: list[str]) -> dict[str, Path]:
    out = {}
    for item in decks:
        name, sep, path = item.partition("=")
        if not sep or not name.strip() or not path.strip():
            raise typer.BadParameter(f"expected PLAYER=FILE, got {item!r}", param_hint="--deck")
        out[name.strip()] = Path(path.strip())
    return out


@app.command(rich_help_panel=GAMES, context_settings={"allow_extra_args": True})
def new(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="Game id (backrooms, duel, ridm) or a game folder.")],
    players: Annotated[list[str], typer.Option("--players", "-p", help="Player names, in seat order (repeat or comma-separate).")],
    first: Annotated[Optional[str], typer.Option("--first", help="Who goes first (default: the first player).")] = None,
    levels: Annotated[str, typer.Option("--levels", help="backrooms: public level pile, card ids or names, comma-separated.")] = "",
    deck: Annotated[list[str], typer.Option("--deck", help="PLAYER=FILE: the player's deck (checked; backrooms levels, duel deck size).")] = [],
    no_check: Annotated[bool, typer.Option("--no-check", help="Accept decks that break the construction rules.")] = False,
    db: Db = None,
    op_id: OpId = None,
) -> None:
    """Start a game, print its id and make it current.

    Example: cardpress track new backrooms --players A B --levels "level-0,level-1,level-2"
    """
    # "--players A B": B is left over as an extra argument; "-p A -p B" and "-p A,B" work too.
    extra = [a for a in ctx.args if not a.startswith("-")]
    if len(extra) != len(ctx.args):
        raise typer.BadParameter(f"unexpected {' '.join(ctx.args)}", param_hint="--players")
    names = [n.strip() for p in [*players, *extra] for n in p.replace("，", ",").split(",") if n.strip()]
    pile = tuple(x.strip() for x in levels.replace("，", ",").split(",") if x.strip())
    with _store(db) as store:
        live = LiveGame.new(store, game, names, first=first, levels=pile, decks=_parse_decks(deck),
                            op_id=op_id, check_decks=not no_check)
        typer.echo(live.id)
        typer.echo(board(live))


@app.command("list", rich_help_panel=GAMES)
def list_games(db: Db = None, as_json: AsJson = False) -> None:
    """List the stored games, most recent first (* = current).

    Example: cardpress track list --json
    """
    with _store(db) as store:
        current = store.current()
        rows = store.games()
        if as_json:
            typer.echo(json.dumps([{"id": r.id, "game": r.ruleset, "players": list(r.players), "entries": n,
                                    "current": r.id == current} for r, n, _ in rows], ensure_ascii=False))
            return
        if not rows:
            typer.echo("no games yet: cardpress track new GAME --players A --players B")
        for r, n, _ in rows:
            typer.echo(f"{'*' if r.id == current else ' '} {r.id}  {r.ruleset}  {' vs '.join(r.players)}  ({n} entries)")


@app.command("resume", rich_help_panel=GAMES)
def resume_cmd(game_id: Annotated[str, typer.Argument(help="Game id from `track list`.")], db: Db = None) -> None:
    """Make a stored game current again and show its board.

    Example: cardpress track resume backrooms-1a2b3c
    """
    with _store(db) as store:
        typer.echo(board(resume(store, game_id)))



@app.command("status", rich_help_panel=GAMES)
def status(db: Db = None, game: GameId = None, as_json: AsJson = False) -> None:
    """Show the board (turn, round, phase, every player's resources, reminders).

    Example: cardpress track status --json
    """
    with _store(db) as store:
        live = _live(store, game)
        typer.echo(json.dumps(live_status(live), ensure_ascii=False, indent=2) if as_json else board(live))


@app.command("log", rich_help_panel=GAMES)
def log(db: Db = None, game: GameId = None, tail: Annotated[int, typer.Option(help="Only the last N entries.")] = 0,
        as_json: AsJson = False) -> None:
    """The history: each command, what it did and why (automatic effects included).

    Example: cardpress track log --tail 5
    """
    with _store(db) as store:
        live = _live(store, game)
        if as_json:
            lines = log_lines(live)[-tail:] if tail else log_lines(live)
            typer.echo(json.dumps([{"seq": l.seq, "title": l.title, "lines": list(l.lines), "in_effect": l.in_effect}
                                   for l in lines], ensure_ascii=False, indent=2))
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
            except OSError as exc:
                reason = "the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
                _fail(f"cannot write {output}: {reason}; the previous file (if any) is unchanged")
            typer.echo(f"wrote {output}")
        else:
            typer.echo(text, nl=False)
        if intact:
            tail = f" (it stops there: {why})" if why else " (the whole log)"
            typer.secho(f"saved entries 1..{kept} of game {game_id}{tail}", err=True)


@app.command("import", rich_help_panel=GAMES)
def import_(file: Annotated[Path, typer.Argument(help="A JSON log from `track export`.", exists=True, dir_okay=False)],
            db: Db = None, as_id: Annotated[Optional[str], typer.Option("--as", help="Store under this id.")] = None) -> None:
    """Store a game log exported elsewhere (checked completely first) and make it current.

    Example: cardpress track import game.json --as table-2
    """
    with _store(db) as store:
        data = parse_log(read_bounded(file, MAX_IMPORT_BYTES, "game log"), file)
        live = import_game(store, data, as_id, source=file)
        typer.echo(live.id)


# ---------------------------------------------------------------------------- turn


@app.command("next", rich_help_panel=TURN)
def next_(db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Advance one phase (after the last phase: the next player's turn), with its automatic effects.

    Example: cardpress track next
    """
    _act(db, game, op_id, "next")


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


@app.command(rich_help_panel=TURN)
def concede(player: Player, db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """A player concedes; the other wins.

    Example: cardpress track concede B
    """
    _act(db, game, op_id, "concede", player=player)


@app.command(rich_help_panel=TURN)
def note(text: Annotated[str, typer.Argument(help="Anything worth remembering.")],
         db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Write a note into the log.

    Example: cardpress track note "B used the G.O.I special win condition"
    """
    _act(db, game, op_id, "note", text=text)


# ---------------------------------------------------------------------------- backrooms


@app.command(rich_help_panel=BACKROOMS)
def spend(player: Player, amount: Annotated[int, typer.Argument(help="Cost to pay.")], why: Why = "",
          db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Pay cost from a player's pool (refused beyond what the pool holds).

    Example: cardpress track spend A 3 --why "summon Smiler"
    """
    _act(db, game, op_id, "spend", player=player, amount=amount, why=why)


@app.command(rich_help_panel=BACKROOMS)
def gain(player: Player, amount: Annotated[int, typer.Argument(help="Cost gained.")], why: Why = "",
         db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Gain cost from a card effect (the prepare-phase gain is automatic).

    Example: cardpress track gain B 2 --why "Almond Water"
    """
    _act(db, game, op_id, "gain", player=player, amount=amount, why=why)


Outpost = Annotated[int, typer.Option("--outpost", "-o", help="Which outpost (1 = first on the board).")]


@app.command(rich_help_panel=BACKROOMS)
def damage(player: Player, amount: Annotated[int, typer.Argument(help="Damage dealt.")], outpost: Outpost = 1,
           why: Why = "", db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Damage one of a player's outposts (destroyed at 0 HP; 3 destroyed or none standing loses).

    Example: cardpress track damage B 7 --outpost 1
    """
    _act(db, game, op_id, "damage", player=player, amount=amount, outpost=outpost, why=why)


@app.command(rich_help_panel=BACKROOMS)
def repair(player: Player, amount: Annotated[int, typer.Argument(help="HP restored.")], outpost: Outpost = 1,
           why: Why = "", db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Repair one of a player's outposts.

    Example: cardpress track repair A 5
    """
    _act(db, game, op_id, "repair", player=player, amount=amount, outpost=outpost, why=why)


@app.command(rich_help_panel=BACKROOMS)
def place(player: Player, db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Place an outpost (free; after a level cut each player must place one or carry).

    Example: cardpress track place A
    """
    _act(db, game, op_id, "place", player=player)


@app.command(rich_help_panel=BACKROOMS)
def carry(player: Player, outpost: Outpost = 1, db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """After a level cut, carry an outpost into the new level instead of placing one (3 per game).

    Example: cardpress track carry B
    """
    _act(db, game, op_id, "carry", player=player, outpost=outpost)


@chain_app.command("push")
def chain_push(player: Player, text: Annotated[str, typer.Argument(help="The effect, as said at the table.")],
               negates: Annotated[Optional[int], typer.Option("--negates", help="Link number this effect negates.")] = None,
               db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Activate an effect or respond to the chain with one.

    Example: cardpress track chain push B "negate an effect" --negates 1
    """
    _act(db, game, op_id, "chain_push", player=player, text=text, negates=negates)


@chain_app.command("negate")
def chain_negate(link: Annotated[int, typer.Argument(help="Link number.")], db: Db = None, game: GameId = None,
                 op_id: OpId = None) -> None:
    """Negate a link now; it still resolves, as nothing.

    Example: cardpress track chain negate 1
    """
    _act(db, game, op_id, "chain_negate", link=link)


@chain_app.command("resolve")
def chain_resolve(one: Annotated[bool, typer.Option("--one", help="Resolve only the last link.")] = False,
                  db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Resolve the chain last-in-first-out and show the order.

    Example: cardpress track chain resolve
    """
    _act(db, game, op_id, "chain_resolve", one=one)


# ---------------------------------------------------------------------------- duel


#: Lets "-3" through as a value instead of an unknown option.
SIGNED = {"ignore_unknown_options": True}


@app.command(rich_help_panel=DUEL, context_settings=SIGNED)
def life(player: Player, delta: Annotated[str, typer.Argument(help="Change, e.g. -3 or +2.")], why: Why = "",
         db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Change a player's life by an effect (0 loses).

    Example: cardpress track life B -3 --why "fighter effect"
    """
    _act(db, game, op_id, "life", player=player, delta=delta, why=why)


@app.command(rich_help_panel=DUEL)
def battle(player: Player, amount: Annotated[int, typer.Argument(help="Battle damage taken.")],
           db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """A player takes battle damage (0 on the first player's first turn).

    Example: cardpress track battle B 4
    """
    _act(db, game, op_id, "battle", player=player, amount=amount)


@app.command(rich_help_panel=DUEL)
def draw(player: Player, cards: Annotated[int, typer.Argument(help="How many.")] = 1, why: Why = "",
         db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Draw by a card effect (hand limit → netherworld; an empty deck loses).

    Example: cardpress track draw A 2
    """
    _act(db, game, op_id, "draw", player=player, cards=cards, why=why)


@app.command("draw-skill", rich_help_panel=DUEL)
def draw_skill(player: Player, kind: Annotated[str, typer.Argument(help="draw1 or fill.")] = "draw1",
               db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """The draw phase's draw skill, once per turn: draw 1 or fill the hand up to 3.

    Example: cardpress track draw-skill A fill
    """
    _act(db, game, op_id, "draw_skill", player=player, kind=kind)


@app.command(rich_help_panel=DUEL)
def skill(player: Player, kind: Annotated[str, typer.Argument(help="send2, send3, sendall or pierce.")],
          db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """An in-turn skill (at most 2 per turn).

    Example: cardpress track skill A send2
    """
    _act(db, game, op_id, "skill", player=player, kind=kind)


@app.command(rich_help_panel=DUEL)
def descend(player: Player, rank: Annotated[int, typer.Option("--rank", help="The card's rank (0 or 1).")] = 0,
            db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Descend a rank 0–1 card as a fighter (2 per turn, at most 5 fighters).

    Example: cardpress track descend A --rank 1
    """
    _act(db, game, op_id, "descend", player=player, rank=rank)


@app.command("rank-up", rich_help_panel=DUEL)
def rank_up(player: Player, rank: Annotated[int, typer.Option("--rank", help="The new card's rank.")] = 2,
            db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Rank up onto a ready fighter of one rank less (unlimited, not a descent).

    Example: cardpress track rank-up A --rank 2
    """
    _act(db, game, op_id, "rank_up", player=player, rank=rank)


@app.command(rich_help_panel=DUEL)
def slain(player: Player, fighters: Annotated[int, typer.Argument(help="Fighters that died.")] = 1,
          assists: Annotated[int, typer.Option("--assists", help="Assist cards that died with them.")] = 0,
          db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Fighters of a player died (they and their assists go to the netherworld).

    Example: cardpress track slain B --assists 1
    """
    _act(db, game, op_id, "slain", player=player, fighters=fighters, assists=assists)


@app.command(rich_help_panel=DUEL)
def move(player: Player, source: Annotated[str, typer.Argument(help="deck, hand, field or netherworld.")],
         dest: Annotated[str, typer.Argument(help="deck, hand, field or netherworld.")],
         cards: Annotated[int, typer.Argument(help="How many.")] = 1, why: Why = "",
         db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Move cards between zones by a card effect.

    Example: cardpress track move A netherworld hand 1 --why "revive"
    """
    _act(db, game, op_id, "move", player=player, source=source, dest=dest, cards=cards, why=why)


@app.command(rich_help_panel=DUEL)
def attack(player: Player,
           attack: Annotated[int, typer.Argument(help="The attacking fighter's attack (with its assists).")],
           target: Annotated[int, typer.Argument(help="The target's attack, or its guard with --guard.")],
           guard: Annotated[bool, typer.Option("--guard", help="The target is in guard state (sideways).")] = False,
           pierce: Annotated[Optional[bool], typer.Option("--pierce/--no-pierce", help="The attack pierces "
                             "(default: if the pierce skill was used this turn).", show_default=False)] = None,
           wounded: Annotated[bool, typer.Option("--wounded", help="The target is already wounded.")] = False,
           assists: Annotated[int, typer.Option("--assists", help="Assist cards behind the target (they die).")] = 0,
           db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Resolve an attack by the combat table: deaths, assists and battle damage are applied.

    Ready vs ready: the lower attack dies (both on a tie or less) and its player takes the
    difference; vs guard: wounded or slain, no damage unless piercing. First-turn damage is 0.

    Example: cardpress track attack A 5 3

    Example: cardpress track attack A 4 6 --guard --pierce --assists 1
    """
    _act(db, game, op_id, "attack", player=player, attack=attack, target=target, guard=guard, pierce=pierce,
         wounded=wounded, assists=assists)


GENERIC = "your own game"


@app.command(rich_help_panel=GENERIC, context_settings=SIGNED)
def counter(player: Player, name: Annotated[str, typer.Argument(help="Counter id or label from game.yaml.")],
            delta: Annotated[str, typer.Argument(help="Change, e.g. -3 or +2.")], why: Why = "",
            db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Change a player's counter (games tracked by the generic ruleset: rules.counters in game.yaml).

    Example: cardpress track counter A life -3 --why "spark"
    """
    _act(db, game, op_id, "counter", player=player, name=name, delta=delta, why=why)


# ---------------------------------------------------------------------------- ridm


@app.command(rich_help_panel=RIDM, context_settings=SIGNED)
def sanity(player: Player, delta: Annotated[str, typer.Argument(help="Change, e.g. -1 or +1.")], why: Why = "",
           db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Change a commander's sanity by an effect (0 loses).

    Example: cardpress track sanity B -1
    """
    _act(db, game, op_id, "sanity", player=player, delta=delta, why=why)


@app.command(rich_help_panel=RIDM)
def deploy(player: Player, operator: Annotated[str, typer.Argument(help="Operator codename.")],
           by_effect: Annotated[bool, typer.Option("--by-effect", help="Deployed by a card effect (not counted).")] = False,
           db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Deploy an operator (one active deployment per turn).

    Example: cardpress track deploy A 能天使
    """
    _act(db, game, op_id, "deploy", player=player, operator=operator, by_effect=by_effect)


@app.command(rich_help_panel=RIDM)
def charge(player: Player, cards: Annotated[int, typer.Argument(help="Hand cards put face down.")] = 1,
           db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Charge with hand cards face down (+1 each, then draw 1 each).

    Example: cardpress track charge A 2
    """
    _act(db, game, op_id, "charge", player=player, cards=cards)


@app.command("charge-skill", rich_help_panel=RIDM)
def charge_skill(player: Player, skill_name: Annotated[str, typer.Argument(metavar="SKILL", help="Skill card.")],
                 db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Once per turn: a skill card into the skill slot as a charge (then search its operator).

    Example: cardpress track charge-skill A "S2 真银斩"
    """
    _act(db, game, op_id, "charge_skill", player=player, skill=skill_name)


@app.command(rich_help_panel=RIDM)
def activate(player: Player, skill_name: Annotated[str, typer.Argument(metavar="SKILL", help="Skill card id or name.")],
             operator: Annotated[Optional[str], typer.Option("--operator", help="Its operator (default: from card data).")] = None,
             duration: Annotated[Optional[int], typer.Option("--duration", help="Turns (default: from card data).")] = None,
             cost: Annotated[Optional[int], typer.Option("--cost", help="Charges to pay (default: from card data).")] = None,
             db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Activate a skill: pay its charges and start its timer (ticks at the end of your turns).

    Example: cardpress track activate A S2 --operator 能天使 --duration 2 --cost 1
    """
    _act(db, game, op_id, "activate", player=player, skill=skill_name, operator=operator, duration=duration, cost=cost)


@app.command("end-skill", rich_help_panel=RIDM)
def end_skill(player: Player, skill_name: Annotated[str, typer.Argument(metavar="SKILL", help="Skill or operator.")],
              db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """A skill leaves before its timer runs out.

    Example: cardpress track end-skill A S2
    """
    _act(db, game, op_id, "end_skill", player=player, skill=skill_name)


@app.command(rich_help_panel=RIDM)
def invade(player: Player, present: Annotated[str, typer.Argument(help="yes: an enemy operator is in PLAYER's deploy zone; no: it left.")] = "yes",
           db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Record an enemy operator entering (or leaving) a player's deploy zone: −1 sanity at each turn end.

    Example: cardpress track invade B yes
    """
    _act(db, game, op_id, "invade", player=player, present=present)


@app.command(rich_help_panel=RIDM)
def fight(attack: Annotated[int, typer.Argument(help="Attacker's attack.")],
          defense: Annotated[int, typer.Argument(help="Defender's defense.")],
          target_attack: Annotated[int, typer.Argument(help="Defender's attack (for routing).")],
          db: Db = None, game: GameId = None) -> None:
    """Work out an exchange: who loses block, and whether the defender is routed (changes nothing).

    Example: cardpress track fight 6 3 2
    """
    with _store(db) as store:
        _, text = _live(store, game).query("fight", attack=attack, defense=defense, target_attack=target_attack)
    typer.echo(text)


@app.command("can-play", rich_help_panel=RIDM)
def can_play(player: Player, requirement: Annotated[str, typer.Argument(help="Sanity requirement, or an action card.")],
             db: Db = None, game: GameId = None) -> None:
    """Whether an action card is playable now (sanity ≤ its requirement). Exit code 1 when not.

    Example: cardpress track can-play A 2
    """
    with _store(db) as store:
        ok, text = _live(store, game).query("playable", player=player, requirement=requirement)
        typer.echo(text)
        if not ok:
            raise typer.Exit(1)


@app.command(rich_help_panel=RIDM)
def action(player: Player, name: Annotated[str, typer.Argument(help="Action card id or name.")],
           requirement: Annotated[Optional[int], typer.Option("--requirement", help="Sanity requirement (default: from card data).")] = None,
           db: Db = None, game: GameId = None, op_id: OpId = None) -> None:
    """Play an action card (refused while sanity is above its requirement).

    Example: cardpress track action A 紧急撤离 --requirement 2
    """
    _act(db, game, op_id, "action", player=player, name=name, requirement=requirement)


# ---------------------------------------------------------------------------- play

PLAY_HELP = """Enter or n: next phase · u: undo · r: redo · l: log · s: board · q: quit · h: help
Actions: COMMAND ARGS… (e.g. "spend A 3", "damage B 5 outpost=2", "push B 无效 --negates 1", "resolve")"""

ALIASES = {"push": "chain_push", "negate": "chain_negate", "resolve": "chain_resolve", "can": "can_play"}


def parse_play(line: str, commands: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """``"damage B 5 --outpost 2"`` → ``("damage", {"player": "B", "amount": "5", "outpost": "2"})``."""
    tokens = shlex.split(line)
    name = ALIASES.get(tokens[0], tokens[0].replace("-", "_"))
    fn = commands.get(name)
    if fn is None:
        raise CardpressError(f"unknown command {tokens[0]!r}; type h for help. Commands: {', '.join(sorted(commands))}")
    params = [p for p in inspect.signature(fn).parameters.values()][2:]
    names = [p.name for p in params]
    args: dict[str, Any] = {}
    positional = iter(names)
    rest = tokens[1:]
    i = 0
    while i < len(rest):
        tok = rest[i]
        if tok.startswith("--"):
            key = tok[2:].replace("-", "_")
            if key not in names:
                raise CardpressError(f"{name}: unknown option {tok}; options: {', '.join(names)}")
            param = next(p for p in params if p.name == key)
            if param.default is False:
                args[key] = True
            else:
                i += 1
                if i >= len(rest):
                    raise CardpressError(f"{name}: {tok} needs a value")
                args[key] = rest[i]
        elif "=" in tok and tok.split("=", 1)[0] in names:
            key, value = tok.split("=", 1)
            args[key] = value
        else:
            key = next((n for n in positional if n not in args), None)
            if key is None:
                raise CardpressError(f"{name}: too many arguments ({tok!r}); it takes {', '.join(names)}")
            args[key] = tok
        i += 1
    return name, args


@app.command(rich_help_panel=GAMES)
def play(db: Db = None, game: GameId = None) -> None:
    """Table mode: Enter (or n) advances the phase, short commands act, the board is redrawn after each.

    Reads commands from standard input, one per line; q (or end of input) quits.

    Example: printf 'n\\nspend A 3\\nu\\nq\\n' | cardpress track play
    """
    with _store(db) as store:
        live = _live(store, game)
        commands = {**CORE_COMMANDS, **live.ctx.rules.COMMANDS, "can_play": live.ctx.rules.playable
                    if hasattr(live.ctx.rules, "playable") else None}
        commands = {k: v for k, v in commands.items() if v is not None}
        typer.echo(board(live))
        typer.echo(PLAY_HELP)
        while True:
            typer.echo("> ", nl=False)
            line = sys.stdin.readline()
            if not line:
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
                    typer.echo(PLAY_HELP)
                    typer.echo("Commands: " + ", ".join(sorted(commands)))
                    continue
                else:
                    name, args = parse_play(cmd, commands)
                    if name == "can_play":
                        typer.echo(live.query("playable", **args)[1])
                        continue
                    outcome = live.do(name, **args)
            except (CardpressError, ValueError) as exc:
                typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
                continue
            for out in outcome_lines(live, outcome):
                typer.echo(out)
            typer.echo(board(live))
