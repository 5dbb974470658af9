"""``cardpress table``: serve a game to every phone at the table (``pipeline.table``)."""

from __future__ import annotations

import secrets
import socket
from pathlib import Path
from typing import Annotated, Optional

import typer

from engine.errors import CardpressError
from engine.i18n import _

from . import completion
from .common import fail

DEFAULT_PORT = 8765


def _lan_address() -> str:
    """This machine's address on the local network (the route a packet out would take; no
    packet is sent), or loopback when there is no network."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))
        return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def _bind(host: str, port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit it: without it a kept-alive connection's answer (headers,
    # then body) waits 40 ms for the phone's delayed ACK (Nagle), on every tap after the first.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise typer.BadParameter(_("cannot listen on {host}:{port} ({reason}); pick another with --port "
                                   "(0: any free port)").format(host=host, port=port, reason=exc.strerror),
                                 param_hint="--port") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _qr(url: str) -> str:
    import io

    import segno

    buf = io.StringIO()
    segno.make(url, error="m").terminal(out=buf, compact=True, border=2)
    return buf.getvalue()


def table(
    ctx: typer.Context,
    game: Annotated[Optional[str], typer.Argument(
        help="Start a new game: a game id (backrooms, duel, ridm) or a game folder. Leave out to go on with "
             "--game ID (or the store's only game in progress).", show_default=False,
        autocompletion=completion.games)] = None,
    players: Annotated[list[str], typer.Option("--players", "-p", help="New game: player names, in seat order.")] = [],
    deck: Annotated[list[str], typer.Option("--deck", help="New game: PLAYER=FILE, the player's deck: a file or a deck of the game by name (checked).")] = [],
    first: Annotated[Optional[str], typer.Option("--first", help="New game: who goes first (a player, a seat number or 'random').")] = None,
    levels: Annotated[str, typer.Option("--levels", help="New backrooms game: public level pile, comma-separated.")] = "",
    no_check: Annotated[bool, typer.Option("--no-check", help="New game: accept decks that break the construction rules.")] = False,
    game_id: Annotated[Optional[str], typer.Option("--game", "-g", envvar="CARDPRESS_GAME",
                                                   help="Go on with this stored game (id from `cardpress track list`).")] = None,
    db: Annotated[Optional[Path], typer.Option("--db", envvar="CARDPRESS_DB", help="Event store file (default: user data dir).")] = None,
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="Port to listen on (0: any free port).")] = DEFAULT_PORT,
    lan: Annotated[bool, typer.Option("--lan", help="Listen on every interface so phones on this network can join; "
                                      "requests must carry the join token in the QR code (403 otherwise).")] = False,
    https: Annotated[bool, typer.Option("--https", help="Serve HTTPS with a self-signed certificate the tool makes (kept "
                                        "in the data dir): phones then keep the screen awake. Trust it once on each phone.")] = False,
) -> None:
    """Serve a game to every phone at the table: prints the address and a QR code to scan.

    The board updates on every phone within a second of any tap; `cardpress track …` in a terminal
    works on the same game at the same time. Stop with Ctrl-C; start again with --game ID and the
    phones reconnect by themselves.

    Example: cardpress table duel --players 甲 乙 --deck 甲=card_data/duel/decks/swords.yaml --deck 乙=card_data/duel/decks/artillery.yaml

    Example: cardpress table --game duel-94e779 --lan

    Example: cardpress table --lan --https --port 8443
    """
    from engine.paths import user_data_dir
    from engine.live import LiveGame

    from ..table.server import make_app
    from .track import parse_decks
    from .track_view import Failed, open_live, opened_store

    extra = [a for a in ctx.args if not a.startswith("-")]
    if len(extra) != len(ctx.args):
        raise typer.BadParameter(_("unexpected {words}").format(words=" ".join(ctx.args)))
    names = [n.strip() for p in [*players, *extra] for n in p.replace("，", ",").split(",") if n.strip()]
    if game is None and (names or deck or levels or first):
        raise typer.BadParameter(_("--players, --deck, --first and --levels start a new game: name the game "
                                   "(e.g. `cardpress table duel --players 甲 乙`)"))
    if game is not None and game_id is not None:
        raise typer.BadParameter(_("give a game to start or --game ID to go on with, not both"))
    try:
        with opened_store(db) as store:
            if game is not None:
                live = LiveGame.new(store, game, names, first=first, decks=parse_decks(deck), check_decks=not no_check,
                                    levels=tuple(x.strip() for x in levels.replace("，", ",").split(",") if x.strip()))
            else:
                live = open_live(store, game_id, lambda text: typer.secho(text, err=True))
            gid, path = live.id, store.path
    except Failed as exc:
        typer.secho(_("error: {message}").format(message=exc), err=True, fg=typer.colors.RED)
        raise typer.Exit(1)

    token = secrets.token_urlsafe(18) if lan else None
    host = "0.0.0.0" if lan else "127.0.0.1"
    address = _lan_address() if lan else "127.0.0.1"
    sock = _bind(host, port)
    port = sock.getsockname()[1]
    ssl = {}
    if https:
        from ..table.cert import certificate

        cert, key = certificate(user_data_dir() / "table", [address])
        ssl = {"ssl_certfile": str(cert), "ssl_keyfile": str(key)}
    try:
        app = make_app(path, gid, token, progress=lambda text: typer.echo(text, err=True))
    except CardpressError as exc:
        sock.close()
        fail(exc)
    url = f"{'https' if https else 'http'}://{address}:{port}/" + (f"?t={token}" if token else "")
    typer.echo(_("game {game} at the table: {url}").format(game=gid, url=url))
    typer.echo(_qr(url))
    if lan and not https:
        typer.echo(_("note: on plain HTTP a phone's screen may sleep (browsers keep it awake only on HTTPS); "
                     "--https serves it with a certificate to trust once."))
    if not lan:
        typer.echo(_("only this computer can open it; --lan lets phones on this network join."))
    typer.echo(_("Ctrl-C stops the table; every acknowledged tap is already stored."), err=True)

    import uvicorn

    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=1, **ssl)
    uvicorn.Server(config).run(sockets=[sock])


def register(app: typer.Typer) -> None:
    app.command(rich_help_panel="Play", context_settings={"allow_extra_args": True})(table)
