"""``cardpress watch GAME --open``: a page on 127.0.0.1 that follows the watcher.

- ``GET /`` — the page (``watch_static/``: plain JS and CSS, no build step);
- ``GET /api/state`` — what the page shows, as JSON: the build's status, its error (if the last
  save failed), the cards the last save changed (their PNGs) and the sheets;
- ``GET /api/events`` — server-sent events: the state again on every change (the changed cards
  as soon as they are drawn, then again when the sheets are built). A page that reconnects gets
  the state at once, so it is never stale;
- ``GET /card/GEN/ID.png`` — a changed card at screen resolution (``outputs.preview``), drawn
  before the event that names it is sent;
- ``GET /sheet/GEN/PAPER/N.png`` — page N of a sheet PDF, rasterised with pdfium when the
  browser scrolls to it (measured: 55–90 ms a page at 100 dpi, so a 16-page sheet drawn in full
  would cost 1.5 s per paper per save; lazily, only what is looked at is paid for), and
  ``/sheet/GEN/PAPER.pdf`` the PDF itself;
- ``GET /font.css``, ``/font/KEY.woff2`` — the page's font (``PageFont``): subsets of the
  printing font, so the page shows no character as a box and names those the font lacks.

Everything shown is the game's output, so untrusted: the page puts text in with ``textContent``
(never markup), the Content-Security-Policy allows nothing but this origin, and a request that
names another host than this computer (DNS rebinding) is refused. The server binds 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.i18n import _

from ..localweb import LOOPBACK, SecurityHeaders, host_name

STATIC = Path(__file__).with_name("watch_static")
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; font-src 'self'; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'")
#: Resolution of the changed cards and of the sheets on screen.
CARD_DPI = 130
SHEET_DPI = 100
#: Most changed cards drawn for one save (the others are listed by name).
MAX_CARDS_SHOWN = 24
#: How often an event stream looks for a new state, in seconds.
POLL_SECONDS = 0.02
KEEPALIVE_SECONDS = 15.0
RECONNECT_MS = 1000
#: Longest error text sent to the page.
MAX_ERROR_CHARS = 20_000
#: Sheet pages kept rasterised.
_PAGE_CACHE = 64


@dataclass
class Sheet:
    paper: str
    pages: int
    pdf: bytes


@dataclass
class WatchState:
    """What the page shows; the watcher changes it (``changed_cards``, ``built``, ``failed``),
    the server reads it. ``gen`` grows with every change."""

    game: str = ""
    gen: int = 0
    status: str = "building"
    message: str = field(default_factory=lambda: _("first build"))
    error: str | None = None
    changed: list[dict[str, str]] = field(default_factory=list)
    changed_more: int = 0
    changed_at: str = ""
    sheets: list[Sheet] = field(default_factory=list)
    sheets_gen: int = 0
    #: Set when the server stops: the event streams end, so no open page holds the shutdown.
    closing: bool = False
    #: The page's font (``PageFont``): every character the page shows is drawn from it.
    font: "PageFont | None" = None
    cards: dict[tuple[int, str], bytes] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    _pages: OrderedDict = field(default_factory=OrderedDict)

    def _bump(self) -> None:
        self.gen += 1

    def touch(self) -> None:
        """Send the state again (the page's font is ready)."""
        with self.lock:
            self._bump()

    def building(self, message: str) -> None:
        with self.lock:
            self.status, self.message = "building", message
            self._bump()

    def changed_cards(self, shown: list[tuple[str, str, bytes]], more: int, add: bool = False) -> None:
        """The cards a save changed: ``(id, name, png)``; ``more`` changed but not drawn; ``add``:
        more of the same save's (found once the sheets were built). An empty list keeps the cards
        shown before (a save that changed no card's face)."""
        if not shown and not more:
            return
        with self.lock:
            self._bump()
            if not add:
                self.cards, self.changed, self.changed_more = {}, [], 0
            self.cards.update({(self.gen, cid): png for cid, _name, png in shown})
            self.changed += [{"id": cid, "name": name, "src": f"/card/{self.gen}/{_quote(cid)}.png"}
                             for cid, name, _png in shown]
            self.changed_more += more
            self.changed_at = time.strftime("%H:%M:%S")

    def built(self, message: str, sheets: list[Sheet]) -> None:
        with self.lock:
            self._bump()
            self.status, self.message, self.error = "ok", message, None
            self.sheets, self.sheets_gen = sheets, self.gen
            self._pages.clear()

    def failed(self, message: str, error: str) -> None:
        """The save did not build: the error is shown, the cards and sheets shown before stay."""
        with self.lock:
            self._bump()
            self.status, self.message = "failed", message
            self.error = error if len(error) <= MAX_ERROR_CHARS else error[:MAX_ERROR_CHARS] + " …"

    def view(self) -> dict[str, Any]:
        view = self._view()
        if self.font is not None:
            view["font"] = self.font.cover(json.dumps(view, ensure_ascii=False))
        return view

    def _view(self) -> dict[str, Any]:
        with self.lock:
            g = self.sheets_gen
            return {"gen": self.gen, "game": self.game, "status": self.status, "message": self.message,
                    "error": self.error, "changed": list(self.changed), "changed_more": self.changed_more,
                    "changed_at": self.changed_at,
                    "sheets": [{"paper": s.paper, "pdf": f"/sheet/{g}/{_quote(s.paper)}.pdf",
                                "pages": [f"/sheet/{g}/{_quote(s.paper)}/{n}.png" for n in range(1, s.pages + 1)]}
                               for s in self.sheets]}

    def card_png(self, gen: int, card_id: str) -> bytes | None:
        with self.lock:
            return self.cards.get((gen, card_id))

    def sheet(self, gen: int, paper: str) -> Sheet | None:
        with self.lock:
            if gen != self.sheets_gen:
                return None
            return next((s for s in self.sheets if s.paper == paper), None)

    def sheet_page(self, gen: int, paper: str, page: int) -> bytes | None:
        sheet = self.sheet(gen, paper)
        if sheet is None or not 1 <= page <= sheet.pages:
            return None
        key = (gen, paper, page)
        with self.lock:
            if key in self._pages:
                return self._pages[key]
        from ..render.raster import page_image, png_bytes

        png = png_bytes(page_image(sheet.pdf, page - 1, dpi=SHEET_DPI))
        with self.lock:
            self._pages[key] = png
            while len(self._pages) > _PAGE_CACHE:
                self._pages.popitem(last=False)
        return png


def _quote(text: str) -> str:
    from urllib.parse import quote

    return quote(text, safe="")


class PageFont:
    """The page's font: WOFF2 subsets of the printing font (``table.webfont``), so every name
    and message shows in the cards' own font and a character missing from it is named, not drawn
    as a box. The base subset (the page's own words and the game's card names and ids, given at
    the start) is cut in the background (~1.4 s the first time, then cached); a character only a
    later save brings (a new name, an error message) comes in a small extra subset (~0.5 s)."""

    def __init__(self, text: str, ready=None):
        self._on_ready = ready
        self._text = text + "".join(f.read_text(encoding="utf-8") for f in sorted(STATIC.iterdir())
                                    if f.suffix in (".html", ".js"))
        self._font = None
        self._ready = threading.Event()
        threading.Thread(target=self._prepare, name="cardpress-watch-font", daemon=True).start()

    def _prepare(self) -> None:
        try:
            from ..table.webfont import WebFont

            font = WebFont(self._text)
            font.woff2(font.base_key)
            self._font = font
        finally:
            self._ready.set()
        if self._on_ready is not None:
            self._on_ready()

    def font(self, timeout: float | None = None):
        self._ready.wait(timeout)
        return self._font

    def cover(self, text: str) -> dict[str, str | None]:
        """What the page needs for ``text``: the base subset's key, an extra subset's key for what
        the base lacks, and the characters the font itself lacks."""
        font = self._font
        if font is None:
            return {"base": None, "extra": None, "missing": ""}
        extra, missing = font.coverage(text)
        return {"base": font.base_key, "extra": extra, "missing": missing}


def make_app(state: WatchState):
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    def not_found() -> Response:
        return PlainTextResponse(_("not here (an older build: the page will show the new one)"), status_code=404)

    def png(data: bytes) -> Response:
        return Response(data, media_type="image/png", headers={"Cache-Control": "private, max-age=3600"})

    async def page(request: Request) -> Response:
        html = (STATIC / "index.html").read_text(encoding="utf-8")
        return Response(html, media_type="text/html; charset=utf-8", headers={"Cache-Control": "no-store"})

    async def current(request: Request) -> Response:
        return JSONResponse(state.view(), headers={"Cache-Control": "no-store"})

    async def events(request: Request) -> Response:
        async def stream():
            yield f"retry: {RECONNECT_MS}\n\n"
            seen, quiet = -1, 0.0
            while not state.closing:
                if state.gen != seen:
                    view = state.view()
                    seen = view["gen"]
                    yield f"id: {seen}\nevent: state\ndata: {json.dumps(view, ensure_ascii=False)}\n\n"
                    quiet = 0.0
                elif quiet >= KEEPALIVE_SECONDS:
                    yield ": keep-alive\n\n"
                    quiet = 0.0
                await asyncio.sleep(POLL_SECONDS)
                quiet += POLL_SECONDS

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def card(request: Request) -> Response:
        data = state.card_png(request.path_params["gen"], request.path_params["card_id"])
        return png(data) if data is not None else not_found()

    async def sheet_pdf(request: Request) -> Response:
        sheet = state.sheet(request.path_params["gen"], request.path_params["paper"])
        if sheet is None:
            return not_found()
        return Response(sheet.pdf, media_type="application/pdf", headers={"Cache-Control": "private, max-age=3600"})

    async def sheet_page(request: Request) -> Response:
        p = request.path_params
        data = await asyncio.to_thread(state.sheet_page, p["gen"], p["paper"], p["page"])
        return png(data) if data is not None else not_found()

    async def font_css(request: Request) -> Response:
        font = await asyncio.to_thread(state.font.font, 30) if state.font is not None else None
        if font is None:
            return Response("", media_type="text/css", headers={"Cache-Control": "no-store"})
        css = (f'@font-face{{font-family:"Cardpress Sans SC";font-display:swap;'
               f'src:url(/font/{font.base_key}.woff2) format("woff2")}}')
        return Response(css, media_type="text/css", headers={"Cache-Control": "no-store"})

    async def font_file(request: Request) -> Response:
        key = request.path_params["key"]
        font = await asyncio.to_thread(state.font.font, 30) if state.font is not None else None
        data = await asyncio.to_thread(font.woff2, key) if font is not None and key.isalnum() and len(key) <= 64 else None
        if data is None:
            return not_found()
        return Response(data, media_type="font/woff2", headers={"Cache-Control": "private, max-age=31536000, immutable"})

    return Starlette(routes=[Route("/", page), Route("/api/state", current), Route("/api/events", events),
                             Route("/font.css", font_css), Route("/font/{key}.woff2", font_file),
                             Route("/card/{gen:int}/{card_id}.png", card),
                             Route("/sheet/{gen:int}/{paper}.pdf", sheet_pdf),
                             Route("/sheet/{gen:int}/{paper}/{page:int}.png", sheet_page),
                             Mount("/static", StaticFiles(directory=STATIC), name="static")],
                     middleware=[_middleware(SecurityHeaders, csp=CSP), _middleware(_Guard)])


def _middleware(cls, **options):
    from starlette.middleware import Middleware

    return Middleware(cls, **options)


class _Guard:
    """Only this computer's own names (no DNS rebinding), GET only."""

    def __init__(self, app: Any):
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from starlette.requests import Request
        from starlette.responses import PlainTextResponse

        host = Request(scope).headers.get("host", "")
        refused = None
        if host_name(host) not in LOOPBACK:
            refused = PlainTextResponse(_("this page answers only on this computer's own address, not {host!r}")
                                        .format(host=host),
                                        status_code=403)
        elif scope["method"] not in ("GET", "HEAD"):
            refused = PlainTextResponse(_("this page only shows"), status_code=405)
        if refused is not None:
            await refused(scope, receive, send)
            return
        await self.app(scope, receive, send)


class PageServer:
    """The page's server on 127.0.0.1, in a thread of its own (the watcher keeps the main one)."""

    def __init__(self, state: WatchState, port: int = 0):
        import uvicorn

        self.state = state
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            self.sock.bind(("127.0.0.1", port))
        except OSError as exc:
            self.sock.close()
            from engine.errors import CardpressError

            raise CardpressError(_("cannot serve the preview page on 127.0.0.1:{port} ({error}); "
                                   "choose another --port, or 0 for any free one")
                                 .format(port=port, error=exc.strerror or exc)) from None
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/"
        config = uvicorn.Config(make_app(state), log_level="warning", access_log=False, timeout_graceful_shutdown=1,
                                lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       name="cardpress-watch-page", daemon=True)

    def start(self, timeout: float = 10.0) -> "PageServer":
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self.state.closing = True
        time.sleep(2 * POLL_SECONDS)             # the event streams see it and end
        self.server.should_exit = True
        self.thread.join(timeout=5)
        self.sock.close()


def can_open_browser() -> bool:
    """A browser can be shown: not on a Linux console or SSH session without a display."""
    import os
    import sys

    if sys.platform.startswith(("win", "darwin")):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class CardPreviews:
    """Cards drawn for the page as ``outputs.preview`` draws them (the same templates, painter and
    rules-text size shared by the card's type), fast from the second save on: one painter (its
    fitted text sizes, kept by content) and each card's laid-out face (kept while the card's
    fields are the same) live from save to save. A save of anything but card or deck files (a
    template, the style, art, game.yaml) starts afresh (``forget``). Measured on duel (48 cards
    of one type): 0.5–1 s a card afresh (every card of its type laid out and fitted), ~30 ms after.
    """

    def __init__(self, bleed_mm: float = 3.0):
        self.bleed_mm = bleed_mm
        self.forget()

    def forget(self) -> None:
        self.painter = self.layouts = None
        self.faces: dict[str, tuple[Any, list | None]] = {}    # id → (card, its face; None: cannot be laid out)

    def _face(self, card) -> list | None:
        from engine.errors import CardpressError

        known = self.faces.get(card.id)
        if known is None or known[0] != card:
            try:
                known = (card, self.layouts.face(card, self.bleed_mm))
            except CardpressError:
                known = (card, None)                # the build reports it
            self.faces[card.id] = known
        return known[1]

    def draw(self, definition, cards: dict, ids: list[str], dpi: int) -> list[tuple[str, bytes]]:
        """PNGs of the cards ``ids`` (of ``cards``, the checked game's), in order; a card that
        cannot be drawn is left out (the build says why)."""
        from engine.errors import CardpressError

        from ..layout import Layouts
        from ..render.fonts import register_fonts
        from ..render.painter import CardPainter
        from ..render.raster import face_pdf, page_image, png_bytes

        size, b = definition.card_size, self.bleed_mm
        if self.painter is None:
            self.layouts = Layouts(definition)
            self.painter = CardPainter(register_fonts(), size.width_mm, size.height_mm, definition.card_data_dir)
        for gone in set(self.faces) - set(cards):
            del self.faces[gone]
        out = []
        for cid in ids:
            card = cards[cid]
            elements = self._face(card)
            if elements is None:
                continue
            kin = [(c.type, face) for c in cards.values() if c.type == card.type
                   for face in [self._face(c)] if face is not None]
            self.painter.share_sizes(kin)
            try:  # at the card's own size (a card type may have one)
                pdf = face_pdf(self.painter, elements, card, card.id, definition.card_size_of(card.type).mm, b)
            except CardpressError:
                continue
            out.append((cid, png_bytes(page_image(pdf, dpi=dpi))))
        return out
