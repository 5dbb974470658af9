"""The table server: every phone at the table reads and changes one game of a store.

- ``GET /api/board`` — the board as ``status --json`` has it, the log's last lines and the log
  position (``seq``);
- ``GET /api/forms`` — the game's commands as forms (``engine.live.forms``);
- ``POST /api/tap`` — one tap (``engine.live.taps``): applied once per operation id, inside the
  store's transaction, so two phones tapping at once both apply, in some order;
- ``GET /api/events`` — server-sent events: the board again each time the log grows, whoever
  wrote it (a phone, or ``cardpress track`` in a terminal); a reconnecting phone sends
  ``Last-Event-ID`` (the ``seq`` it last had) and gets the board at once if it missed entries.

- ``GET /`` — the page (``static/``: plain JS and CSS, no build step), ``/font.css`` and
  ``/font/…woff2`` its font subsets (``webfont``), ``POST /api/query`` a rules question that
  changes nothing (ridm ``playable``), and ``/api/cards``, ``/api/card/ID.png``, ``/api/rules``
  the card and rules lookup (``library``), ``/api/deck/SEAT.svg`` a player's deck as
  ``cardpress deck`` draws it (the game's setup: who plays which deck).

Every answer carries a Content-Security-Policy that allows only this origin: the page loads
nothing from anywhere else, and text is never turned into markup.

With a join token (``--lan``), every request must carry it (``?t=…`` once, then a cookie),
compared in constant time; anything else is refused with 403. SQLite connections are not
shared between threads: each worker thread opens the game (and its store) itself.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from engine import i18n
from engine.errors import CardpressError
from engine.i18n import _
from engine.limits import MAX_TAP_BYTES
from engine.live.board import table_view
from engine.live.forms import forms
from engine.live.taps import BadTap, apply_tap, read_tap
from engine.tracker import IllegalCommand, Store
from engine.live import LiveGame
from engine.tracker.core import commands_of
from engine.tracker.errors import BadArgument
from engine.live.view import live_status, log_lines

from ..localweb import LOOPBACK, SecurityHeaders, host_name
from .library import Library
from .webfont import WebFont

STATIC = Path(__file__).with_name("static")
#: Only this origin, for everything; ``data:`` for nothing but images (none used today).
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; font-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")

#: How often the event stream looks for new log entries, in seconds (a tap shows on the other
#: phones within this, plus the time to send).
POLL_SECONDS = 0.1
#: A comment line this often keeps proxies and phones from closing an idle stream.
KEEPALIVE_SECONDS = 15.0
#: The shortest time between two pushes (a burst of taps goes out in fewer, fuller boards).
PUSH_GAP_SECONDS = 0.02
#: How soon a phone's EventSource tries again when the stream breaks (the server restarted).
RECONNECT_MS = 1000
#: Log entries a board carries.
LOG_TAIL = 12
COOKIE = "cardpress_table"
#: The language of every message the table sends: its page is Simplified Chinese (RULES.md).
TABLE_LANGUAGE = "zh_CN"
#: Longest card search or rules term a phone may send.
MAX_QUERY_CHARS = 100
#: Most cards one search answers with.
MAX_CARDS_SHOWN = 200


class TableServer:
    """The state behind the app: which store and game, and each thread's open game."""

    def __init__(self, db: Path, game_id: str, token: str | None = None, library: Library | None = None):
        self.db, self.game_id, self.token = Path(db), game_id, token
        self._local = threading.local()
        self._library = library
        self._webfont: WebFont | None = None
        self._deck_svgs: dict[int, str] | None = None
        self._lock = threading.Lock()
        #: Taps are applied by one thread, in the order they came: they queue here instead of
        #: meeting SQLite's lock (whose busy handler sleeps up to 100 ms between retries), and
        #: its one open game only catches up with what others wrote (``cardpress track``), never
        #: with the other phones' taps. The store's transaction still decides against any process.
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="table-taps")

    @property
    def library(self) -> Library:
        """The cards and rules of the stored game's definition (made on first use)."""
        with self._lock:
            if self._library is None:
                self._library = Library(self.live().defn)
            return self._library

    def webfont(self, progress=None) -> WebFont:
        """The page's font: a subset of everything the game can show before play (made once)."""
        library, pictures = self.library, self.deck_svgs()
        with self._lock:
            if self._webfont is None:
                from pipeline.render.charts import picture_text

                if progress:
                    progress("preparing the page's font …")
                live = self.live()
                known = [library.text_of_everything(), json.dumps(forms(live.ctx), ensure_ascii=False),
                         json.dumps(table_view(live), ensure_ascii=False), _engine_text(live),
                         *(picture_text(svg) for svg in pictures.values() if isinstance(svg, str)),
                         *(f.read_text(encoding="utf-8") for f in sorted(STATIC.iterdir()) if f.suffix in (".html", ".js"))]
                font = WebFont("".join(known))
                font.woff2(font.base_key)        # cut now, not while the first phone waits
                self._webfont = font
            return self._webfont

    def deck_svgs(self) -> dict[int, str | CardpressError]:
        """Each seat's deck picture (inline SVG, set in the page's font), made once: the deck
        lists are fixed when the game is set up. A seat without a deck list has none; one that
        cannot be drawn (a label the font lacks) has the error, which the page shows."""
        with self._lock:
            if self._deck_svgs is None:
                self._deck_svgs = _deck_pictures(self.live())
            return self._deck_svgs

    def live(self) -> LiveGame:
        """This thread's open game (SQLite connections stay in their thread)."""
        live = getattr(self._local, "live", None)
        if live is None:
            live = self._local.live = LiveGame(Store(self.db), self.game_id)
        return live

    def last_seq(self) -> int:
        return self.live().store.last_seq(self.game_id)

    def board(self, live: LiveGame | None = None, status: bool = True) -> dict[str, Any]:
        """The board as phones show it (``view``, the last lines of the ``log``), and with
        ``status`` the board as programs read it (``status --json``); without ``live``, this
        thread's game caught up first. The pushes leave ``status`` out: the page draws ``view``,
        and eight phones need not get every number twice."""
        if live is None:
            live = self.live()
            live.refresh()
        data = {"seq": live.replay.last_seq, "view": table_view(live), "can_undo": live.can_undo,
                "can_redo": live.can_redo,
                "log": [{"seq": l.seq, "title": l.title, "lines": list(l.lines), "in_effect": l.in_effect}
                        for l in log_lines(live, LOG_TAIL)]}
        if status:
            data["board"] = live_status(live)
        font = self._webfont
        if font is not None:                    # what play brought that the page's font lacks
            text = json.dumps([data["view"], data["log"]], ensure_ascii=False)
            data["font_extra"], data["missing_glyphs"] = font.coverage(text)
        return data

    def allowed(self, request: Request) -> bool:
        if self.token is None:
            return True
        given = request.query_params.get("t") or request.cookies.get(COOKIE) or ""
        return hmac.compare_digest(given.encode(), self.token.encode())


def make_app(db: Path, game_id: str, token: str | None = None, library: Library | None = None,
             progress=None) -> Starlette:
    """The Starlette app serving game ``game_id`` of the store at ``db``. ``library``: the cards
    and rules the page looks up; by default the stored game's own definition's (made on first use).
    With ``progress`` (``cardpress table``), the page's font is prepared before it returns."""
    table = TableServer(db, game_id, token, library)
    watcher = Watcher(table)
    if progress is not None:
        table.webfont(progress)

    def board(request: Request) -> Response:
        return JSONResponse(table.board())

    def form_list(request: Request) -> Response:
        return JSONResponse(forms(table.live().ctx))

    async def tap(request: Request) -> Response:
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > MAX_TAP_BYTES:
                return JSONResponse({"error": _("a tap is at most {MAX_TAP_BYTES} bytes").format(MAX_TAP_BYTES=MAX_TAP_BYTES)}, status_code=413)
        try:
            parsed = read_tap(body)
        except BadTap as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        # run_in_executor does not carry the request's context (its language): _apply sets it.
        answer = await asyncio.get_running_loop().run_in_executor(table.writer, _apply, parsed)
        watcher.poke()                          # the other phones get it now, not at the next poll
        return answer

    def _apply(parsed) -> Response:
        with i18n.using(TABLE_LANGUAGE):
            return _apply_here(parsed)

    def _apply_here(parsed) -> Response:
        live = table.live()      # apply_tap catches it up inside the store's transaction
        try:
            done = apply_tap(live, parsed)
        except BadTap as exc:
            return JSONResponse({"error": str(exc), **table.board(live)}, status_code=400)
        except IllegalCommand as exc:
            # Refused by the rules: nothing was stored; the phone gets the board as it is.
            return JSONResponse({"error": str(exc), "refused": True, **table.board(live)}, status_code=409)
        return JSONResponse({**done, **table.board(live)})

    async def events(request: Request) -> Response:
        try:
            after = int(request.headers.get("last-event-id") or request.query_params.get("after") or -1)
        except ValueError:
            after = -1

        async def stream():
            nonlocal after
            yield f"retry: {RECONNECT_MS}\n\n"       # a phone whose server restarts is back within a second
            while True:
                text = await watcher.after(after, KEEPALIVE_SECONDS)
                if text is None:
                    yield ": keep-alive\n\n"
                    continue
                after = watcher.seq
                yield text

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    def query(request: Request) -> str:
        q = request.query_params.get("q", "").strip()
        if len(q) > MAX_QUERY_CHARS:
            raise ValueError(_("a search is at most {MAX_QUERY_CHARS} characters").format(MAX_QUERY_CHARS=MAX_QUERY_CHARS))
        return q

    async def looked_up(work) -> Response:
        try:
            return await asyncio.to_thread(work)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        except CardpressError as exc:       # the game itself cannot be read or drawn
            return JSONResponse({"error": str(exc)}, status_code=500)

    async def cards(request: Request) -> Response:
        def work() -> Response:
            q, limit = query(request), request.query_params.get("limit", "20")
            if not limit.isdigit() or not 1 <= int(limit) <= MAX_CARDS_SHOWN:
                raise ValueError(_("limit must be a number from 1 to {MAX_CARDS_SHOWN}").format(MAX_CARDS_SHOWN=MAX_CARDS_SHOWN))
            lib = table.library
            return JSONResponse(lib.search_cards(q, int(limit)) if q else lib.catalogue())
        return await looked_up(work)

    async def card_face(request: Request) -> Response:
        def work() -> Response:
            w = request.query_params.get("w", "600")
            if not w.isdigit():
                raise ValueError(_("w must be a whole number of pixels"))
            try:
                png = table.library.face_png(request.path_params["card_id"], int(w))
            except KeyError:
                return JSONResponse({"error": _("no such card")}, status_code=404)
            return Response(png, media_type="image/png", headers={"Cache-Control": "public, max-age=86400"})
        return await looked_up(work)

    async def rules(request: Request) -> Response:
        def work() -> Response:
            q, lib = query(request), table.library
            if not q:
                return JSONResponse({"term": "", "entries": [], "mentions": [], "suggestions": [],
                                     "glossary": lib.glossary()})
            return JSONResponse(lib.rules(q))
        return await looked_up(work)

    async def deck_picture(request: Request) -> Response:
        def work() -> Response:
            seat = request.path_params["seat"]
            n = ord(seat) - ord("A") if len(seat) == 1 and "A" <= seat <= "Z" else -1
            svg = table.deck_svgs().get(n)
            if svg is None:
                return JSONResponse({"error": _("seat {seat} has no deck list (give one with --deck at the start)").format(seat=seat[:8])},
                                    status_code=404)
            if isinstance(svg, CardpressError):
                raise svg
            return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "no-cache"})
        return await looked_up(work)

    async def page(request: Request) -> Response:
        font = await asyncio.to_thread(table.webfont)
        html = (STATIC / "index.html").read_text(encoding="utf-8")
        html = html.replace("{{FONT}}", font.base_key).replace("{{VERSION}}", _static_version())
        html = html.replace("<body>", f'<body data-game="{_attr(game_id)}">', 1)
        return Response(html, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-store"})

    async def font_css(request: Request) -> Response:
        font = await asyncio.to_thread(table.webfont)
        css = (f'@font-face{{font-family:"Cardpress Sans SC";font-display:swap;'
               f'src:url(/font/{font.base_key}.woff2) format("woff2")}}')
        return Response(css, media_type="text/css", headers={"Cache-Control": "public, max-age=31536000, immutable"})

    async def font_file(request: Request) -> Response:
        key = request.path_params["key"].removeprefix("extra-")
        font = await asyncio.to_thread(table.webfont)
        data = await asyncio.to_thread(font.woff2, key) if key.isalnum() and len(key) <= 64 else None
        if data is None:
            return JSONResponse({"error": _("no such font")}, status_code=404)
        return Response(data, media_type="font/woff2", headers={"Cache-Control": "public, max-age=31536000, immutable"})

    async def ask(request: Request) -> Response:
        body = await request.body()
        if len(body) > MAX_TAP_BYTES:
            return JSONResponse({"error": _("a question is at most {MAX_TAP_BYTES} bytes").format(MAX_TAP_BYTES=MAX_TAP_BYTES)}, status_code=413)

        def work() -> Response:
            try:
                data = json.loads(body.decode("utf-8"))
                command, args = data.get("command"), data.get("args", {})
                live = table.live()
                spec = commands_of(live.ctx).get(command) if type(command) is str else None
                if spec is None or not spec.query or type(args) is not dict:
                    return JSONResponse({"error": _("{game} has no question {command!r}").format(game=live.defn.id, command=command)}, status_code=400)
                live.refresh()
                ok, text = live.query(spec.name, **spec.parse_args(args))
            except (UnicodeDecodeError, json.JSONDecodeError, AttributeError):
                return JSONResponse({"error": _("a question is a JSON object")}, status_code=400)
            except (BadArgument, IllegalCommand) as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)
            return JSONResponse({"ok": ok, "text": text})
        return await asyncio.to_thread(work)

    return Starlette(routes=[Route("/", page), Route("/font.css", font_css), Route("/font/{key}.woff2", font_file),
                             Mount("/static", StaticFiles(directory=STATIC), name="static"),
                             Route("/api/query", ask, methods=["POST"]),
                             Route("/api/board", board), Route("/api/forms", form_list),
                             Route("/api/tap", tap, methods=["POST"]), Route("/api/events", events),
                             Route("/api/cards", cards), Route("/api/card/{card_id}.png", card_face),
                             Route("/api/rules", rules), Route("/api/deck/{seat}.svg", deck_picture)],
                     middleware=[Middleware(TableLanguage), Middleware(SecurityHeaders, csp=CSP),
                                 Middleware(OwnOrigin, table=table), Middleware(JoinToken, table=table)])


class TableLanguage:
    """Every message of a request is in ``TABLE_LANGUAGE`` (refusals, errors, command help),
    whatever the host's locale: the table page is Simplified Chinese (RULES.md), its players read
    Chinese. The language is a context variable: it follows the request into Starlette's
    threadpool and the executor (``copy_context``) and into the tasks it starts."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        with i18n.using(TABLE_LANGUAGE):
            await self.app(scope, receive, send)


class Watcher:
    """One watch over the log for all the phones: it looks for new entries every
    ``POLL_SECONDS`` (or at once, when a tap here ``poke``s it), builds the board once per change
    and wakes every event stream with the same text — so eight phones cost one board, not eight."""

    def __init__(self, table: TableServer):
        self.table = table
        self.seq, self.text = -1, ""
        self._changed: asyncio.Event | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task | None = None

    def _start(self) -> None:
        if self._task is None:                   # on the server's event loop, at the first stream
            self._changed, self._wake = asyncio.Event(), asyncio.Event()
            self._task = asyncio.get_running_loop().create_task(self._run())

    def poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    def _board_if_changed(self) -> dict[str, Any] | None:
        with i18n.using(TABLE_LANGUAGE):     # this task may outlive the request that started it
            return self.table.board(None, False) if self.table.last_seq() != self.seq else None

    async def _run(self) -> None:
        while True:
            try:
                data = await asyncio.to_thread(self._board_if_changed)
                if data is not None:
                    text = f"id: {data['seq']}\nevent: board\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
                    self.seq, self.text = data["seq"], text
                    changed, self._changed = self._changed, asyncio.Event()
                    changed.set()
                    # Taps that land meanwhile go out together in the next push: under a burst the
                    # phones get a board every PUSH_GAP_SECONDS, not one per tap each.
                    await asyncio.sleep(PUSH_GAP_SECONDS)
            except Exception as exc:              # a locked or unreadable store: try again next time
                print(_("cardpress table: the board could not be read ({exc}); trying again").format(exc=exc), file=sys.stderr)
                await asyncio.sleep(POLL_SECONDS)
            try:
                await asyncio.wait_for(self._wake.wait(), POLL_SECONDS)
            except TimeoutError:
                pass
            self._wake.clear()

    async def after(self, seq: int, timeout: float) -> str | None:
        """The board's event text once the log is at another position than ``seq`` (``None``
        after ``timeout`` seconds without a change)."""
        self._start()
        if self.seq >= 0 and self.seq != seq:
            return self.text
        changed = self._changed
        try:
            await asyncio.wait_for(changed.wait(), timeout)
        except TimeoutError:
            return None
        return self.text if self.seq != seq else None


class JoinToken:
    """Refuses (403) every request without the table's join token; the join link's ``?t=`` sets
    a cookie, so the page's own requests carry it from then on."""

    def __init__(self, app: Any, table: TableServer):
        self.app, self.table = app, table

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or self.table.token is None:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        if not self.table.allowed(request):
            refused = PlainTextResponse(_("this table needs its join link (scan the QR code again)"), status_code=403)
            await refused(scope, receive, send)
            return
        if not request.query_params.get("t"):
            await self.app(scope, receive, send)
            return
        cookie = f"{COOKIE}={self.table.token}; HttpOnly; SameSite=Strict; Path=/".encode()

        async def send_with_cookie(message: dict) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
            await send(message)

        await self.app(scope, receive, send_with_cookie)


class OwnOrigin:
    """What a web page elsewhere could make a browser at the table send is refused:

    - without a join token (loopback only), a request must name this computer (``Host:``
      127.0.0.1, ``localhost`` or ``::1``): a site whose name was made to point at 127.0.0.1 (DNS
      rebinding) is refused (403);
    - a tap or question must say it is JSON (415 otherwise): a form or ``text/plain`` POST from
      another site cannot be one, and a JSON one from there needs a CORS preflight this server
      never answers; an ``Origin:`` other than this server's own is refused (403).
    """


    def __init__(self, app: Any, table: TableServer):
        self.app, self.table = app, table

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        host = request.headers.get("host", "")
        refused = None
        if self.table.token is None and host_name(host) not in LOOPBACK:
            refused = PlainTextResponse(_("this table answers only on this computer's own address, not {host!r}").format(host=host),
                                        status_code=403)
        elif scope["method"] == "POST":
            origin = request.headers.get("origin")
            if origin is not None and origin not in (f"http://{host}", f"https://{host}"):
                refused = PlainTextResponse("a tap must come from this table's own page", status_code=403)
            elif request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
                refused = PlainTextResponse("a tap is sent as application/json", status_code=415)
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _attr(text: str) -> str:
    from html import escape

    return escape(text, quote=True)


def _static_version() -> str:
    """Changes when a static file does, so a phone never runs an old script with a new server."""
    import hashlib

    digest = hashlib.sha256()
    for f in sorted(STATIC.iterdir()):
        digest.update(f.name.encode() + f.read_bytes())
    return digest.hexdigest()[:12]


def _deck_pictures(live: LiveGame) -> dict[int, str | CardpressError]:
    """Seat → the picture of the deck list stored at the game's start. Its name is the deck
    file's when that file still holds the same list (else the file's name, or the player's)."""
    from engine.data.stats import deck_stats
    from engine.decks import Deck
    from pipeline.render.charts import inline_svg

    players = live.state.players
    named: dict[str, str] = {}
    try:
        named = dict(live.store.entries(live.id)[0].args.get("decks") or {})
    except (CardpressError, IndexError, AttributeError, TypeError, ValueError):
        pass
    out = {}
    for n, entries in enumerate(live.state.decks):
        if not entries:
            continue
        player = _player_name(players[n]) if n < len(players) else chr(ord("A") + n)
        deck = _stored_deck(live, named.get(player), tuple(entries)) or Deck(f"{player}的卡组", tuple(entries))
        try:
            out[n] = inline_svg(deck_stats(live.defn, live.ctx.cards, deck), ident=f"deck-{chr(ord('A') + n)}")
        except CardpressError as exc:
            out[n] = exc
    return out


def _player_name(player: Any) -> str:
    return str(getattr(player, "name", player))


def _stored_deck(live: LiveGame, path: str | None, entries: tuple) -> Any:
    """The deck file named at the start, if it still holds ``entries`` (for its name and
    description); ``None`` when there is none, it is gone, unreadable or changed since."""
    from engine.decks import Deck, find_deck, read_deck
    from engine.paths import UnsafePath, check_regular

    if not path:
        return None
    try:
        file = find_deck(live.defn, path)
        check_regular(file, "deck file")
        deck = read_deck(file)
    except (CardpressError, UnsafePath, OSError):
        return None
    if deck.entries != entries:
        return Deck(Path(path).stem, entries)
    return deck


def _engine_text(live: LiveGame) -> str:
    """The Chinese the engine writes into boards and logs for this game: every string literal of
    the kernel's and the game's modules (sentences, tags, reminders), read from their sources."""
    import engine.live
    import engine.tracker

    folders = [Path(engine.tracker.__file__).parent, Path(engine.live.__file__).parent,
               Path(live.ctx.rules.__file__).parent]
    return "".join(ch for folder in folders for f in sorted(folder.glob("*.py"))
                   for ch in f.read_text(encoding="utf-8") if ord(ch) > 0x7F)
