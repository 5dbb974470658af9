"""Card sheets on the web: a published CSV URL listed in ``game.yaml``, fetched and cached.

A designer who keeps cards in a Google Sheet publishes it "to the web as CSV" and lists the
address under ``card_sources:``::

    card_sources:
      - url: https://docs.google.com/spreadsheets/d/e/…/pub?output=csv
        name: units.csv          # how messages name it (default: the URL)

``fetch_source`` gets the bytes (``engine.cards`` reads them like a local CSV):

- only ``http``/``https``, redirects followed only to ``http``/``https`` (no ``file:``, ``ftp:``,
  ``data:``); a deadline for the whole download (``CARDPRESS_FETCH_TIMEOUT`` seconds, 10 by
  default) and a size cap (``MAX_SOURCE_BYTES``): a server that trickles or floods is cut off;
- an HTML page (a sign-in page, a sheet not published as CSV) is refused, not read as cards;
- each copy is kept under the user cache (``$CARDPRESS_CACHE`` or the platform's cache dir):
  ``sources/<sha256 of the URL>.csv`` and a ``.json`` beside it (URL, when fetched, ``ETag``,
  ``Last-Modified``, the copy's sha256), both written atomically; a copy that does not match its
  JSON is not used. The next fetch sends ``If-None-Match`` /
  ``If-Modified-Since``; a ``304`` uses the copy silently;
- offline, a timeout or a server error (5xx, 429) with a copy in the cache: the copy is used and
  a notice says so (``offline: using the copy of units.csv fetched 3 h ago (…)``). Without a
  copy, or for an answer that says the address is wrong (404, 403…), ``FetchError``;
- ``CARDPRESS_OFFLINE=1`` (or ``cardpress build/check --offline``) uses the cache, fetches nothing.

Notices go to the callback ``reporting`` installs (the CLI prints them to stderr), else they
wait in a list ``take_notices`` empties. Engine code never prints.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import os
import secrets
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.utils import formatdate
from pathlib import Path
from typing import Callable, Iterator

from ..i18n import _
from ..paths import remove_leftovers

#: The largest card sheet cardpress downloads (a 600-card sheet is well under 1 MB).
MAX_SOURCE_BYTES = 8 * 1024 * 1024
#: Seconds the whole download may take, unless ``CARDPRESS_FETCH_TIMEOUT`` says otherwise.
DEFAULT_TIMEOUT = 10.0
SCHEMES = ("http", "https")
MAX_URL_CHARS = 2048
_USER_AGENT = "cardpress (card sheet fetcher)"
_CHUNK = 64 * 1024
#: A cached meta file larger than this is not ours.
_META_MAX_BYTES = 64 * 1024


class FetchError(Exception):
    """A source could not be fetched and no cached copy can stand in; ``reason`` says why."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


@dataclass(frozen=True)
class Fetched:
    data: bytes
    #: What the user should hear (a cached copy stood in), or None.
    notice: str | None = None


# ---------------------------------------------------------------------------- the URL


def url_problem(url: str) -> str | None:
    """Why ``url`` may not be a card source, or None (used when ``game.yaml`` is read)."""
    if len(url) > MAX_URL_CHARS:
        return _("a URL of at most {limit} characters, got {count:,}").format(limit=MAX_URL_CHARS, count=len(url))
    if any(c.isspace() or ord(c) < 32 for c in url):
        return _("a URL cannot contain spaces or control characters")
    try:
        parts = urllib.parse.urlsplit(url)
    except ValueError as exc:
        return _("not a URL ({reason})").format(reason=exc)
    if parts.scheme.lower() not in SCHEMES:
        shown = f"{parts.scheme}:" if parts.scheme else _("no scheme")
        return _("only http:// and https:// URLs can be card sources, not {scheme} ({url})").format(
            scheme=shown, url=url[:80])
    try:
        host = parts.hostname
        parts.port  # noqa: B018 - raises ValueError for a port that is not a number
    except ValueError as exc:
        return _("not a URL ({reason})").format(reason=exc)
    if not host:
        return _("the URL names no host ({url})").format(url=url[:80])
    return None


# ---------------------------------------------------------------------------- notices


_callback: Callable[[str], None] | None = None
_pending: list[str] = []
_offline_forced = False


@contextlib.contextmanager
def reporting(callback: Callable[[str], None], offline: bool = False) -> Iterator[None]:
    """While inside, give each notice to ``callback`` as it happens; ``offline`` uses the cache
    only (as ``CARDPRESS_OFFLINE=1`` does)."""
    global _callback, _offline_forced
    before = _callback, _offline_forced
    _callback, _offline_forced = callback, offline or _offline_forced
    try:
        yield
    finally:
        _callback, _offline_forced = before


#: Notices kept for ``take_notices`` (a long ``watch`` with no listener keeps only the latest).
_PENDING_KEEP = 100


def _notice(text: str) -> None:
    if _callback is not None:
        _callback(text)
    else:
        _pending.append(text)
        del _pending[:-_PENDING_KEEP]


def take_notices() -> list[str]:
    """Notices given while no ``reporting`` callback was installed (the list is emptied)."""
    taken = list(_pending)
    _pending.clear()
    return taken


def offline() -> bool:
    return _offline_forced or os.environ.get("CARDPRESS_OFFLINE", "").strip().lower() in ("1", "true", "yes")


def timeout_seconds() -> float:
    """The download deadline: ``CARDPRESS_FETCH_TIMEOUT`` (seconds) or 10."""
    text = os.environ.get("CARDPRESS_FETCH_TIMEOUT", "").strip()
    try:
        value = float(text) if text else DEFAULT_TIMEOUT
    except ValueError:
        return DEFAULT_TIMEOUT
    return value if 0 < value <= 600 else DEFAULT_TIMEOUT


# ---------------------------------------------------------------------------- the cache


def cache_root() -> Path:
    """``<cache>/sources``: ``$CARDPRESS_CACHE`` or the platform's user cache dir (as the fonts)."""
    env = os.environ.get("CARDPRESS_CACHE")
    if env:
        return Path(env) / "sources"
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("cardpress")) / "sources"


def cache_files(url: str) -> tuple[Path, Path]:
    """(the cached CSV, its meta JSON) of ``url``."""
    key = hashlib.sha256(url.encode("utf-8")).hexdigest()
    root = cache_root()
    return root / f"{key}.csv", root / f"{key}.json"


def _write_atomic(path: Path, data: bytes) -> None:
    """Temp file beside ``path`` (named as every cardpress writer names them), then rename."""
    tmp = path.parent / f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _read_cache(url: str) -> tuple[bytes, dict] | None:
    """(bytes, meta) of the cached copy of ``url``, or None when there is no usable one."""
    data_path, meta_path = cache_files(url)
    try:
        with open(meta_path, "rb") as fh:
            meta = json.loads(fh.read(_META_MAX_BYTES + 1).decode("utf-8"))
        if not isinstance(meta, dict) or meta.get("url") != url:
            return None
        with open(data_path, "rb") as fh:
            data = fh.read(MAX_SOURCE_BYTES + 1)
    except (OSError, ValueError):
        return None
    if len(data) > MAX_SOURCE_BYTES or meta.get("sha256") != hashlib.sha256(data).hexdigest():
        return None  # cut short or replaced (a fetch killed between the two files): not the copy meant
    return data, meta


def _store(url: str, data: bytes, headers, fetched_at: float) -> None:
    """Keep the copy; best effort (a cache that cannot be written only costs the next fetch)."""
    data_path, meta_path = cache_files(url)
    meta = {"url": url, "fetched_at": fetched_at, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "etag": headers.get("ETag"), "last_modified": headers.get("Last-Modified")}
    try:
        data_path.parent.mkdir(parents=True, exist_ok=True)
        remove_leftovers(data_path.parent)  # temp files of a fetch that was killed
        _write_atomic(data_path, data)
        _write_atomic(meta_path, json.dumps(meta, ensure_ascii=False).encode("utf-8"))
    except OSError:
        pass


def _touch(url: str, meta: dict, fetched_at: float) -> None:
    """A 304: the copy is current as of now."""
    _data_path, meta_path = cache_files(url)
    with contextlib.suppress(OSError):
        _write_atomic(meta_path, json.dumps({**meta, "fetched_at": fetched_at}, ensure_ascii=False).encode("utf-8"))


def age_text(seconds: float) -> str:
    """``just now``, ``5 min``, ``3 h``, ``2 days`` ago, as a person says it."""
    seconds = max(0.0, seconds)
    if seconds < 60:
        return _("just now")
    if seconds < 3600:
        return _("{minutes} min ago").format(minutes=int(seconds // 60))
    if seconds < 2 * 86400:
        return _("{hours} h ago").format(hours=int(seconds // 3600))
    return _("{days} days ago").format(days=int(seconds // 86400))


# ---------------------------------------------------------------------------- fetching


class _Refused(Exception):
    """A reason not to use the answer at all (even with a cached copy)."""


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects to http/https only (urllib alone would follow one to ftp:)."""

    max_redirections = 5

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        scheme = urllib.parse.urlsplit(newurl).scheme.lower()
        if scheme not in SCHEMES:
            raise _Refused(_("the server redirected to {url}, which is not http:// or https://").format(url=newurl[:120]))
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _opener() -> urllib.request.OpenerDirector:
    """http and https only: no file:, ftp: or data: handler exists to be redirected to."""
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.HTTPHandler(), urllib.request.HTTPSHandler(),
                    _Redirects(), urllib.request.HTTPDefaultErrorHandler(), urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    return opener


class _Timeout(Exception):
    pass


def _header_value(value: object) -> bool:
    """A value from the cache's meta file that may go into a request header as it is."""
    return isinstance(value, str) and 0 < len(value) <= 256 and value.isprintable() and value.isascii()


def _download(url: str, meta: dict | None, timeout: float) -> tuple[int, bytes, object]:
    """(status, body, headers). Raises ``urllib.error.HTTPError``/``URLError``, ``_Timeout``
    (the whole download took longer than ``timeout``) or ``_Refused``."""
    headers = {"User-Agent": _USER_AGENT, "Accept": "text/csv, text/plain;q=0.9, */*;q=0.5"}
    if meta:
        if _header_value(meta.get("etag")):
            headers["If-None-Match"] = meta["etag"]
        if _header_value(meta.get("last_modified")):
            headers["If-Modified-Since"] = meta["last_modified"]
        elif isinstance(meta.get("fetched_at"), (int, float)):
            headers["If-Modified-Since"] = formatdate(meta["fetched_at"], usegmt=True)
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(url, headers=headers)
    try:
        response = _opener().open(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 304:
            exc.close()
            return 304, b"", exc.headers
        raise
    with response:
        length = response.headers.get("Content-Length")
        if length and length.strip().isdigit() and int(length) > MAX_SOURCE_BYTES:
            raise _Refused(_("the server announces {size:,.1f} MB; cardpress downloads at most "
                             "{limit} MB for a card sheet").format(size=int(length) / 1e6,
                                                                  limit=MAX_SOURCE_BYTES // (1024 * 1024)))
        kind = (response.headers.get_content_type() or "").lower()
        if kind in ("text/html", "application/xhtml+xml"):
            raise _Refused(_("the server sent a web page (HTML), not CSV: is the sheet published to the web "
                             "as CSV (File → Share → Publish to web → CSV)?"))
        chunks, size = [], 0
        while True:
            if time.monotonic() > deadline:
                raise _Timeout()
            chunk = response.read1(_CHUNK)  # what has arrived: read() would wait for all of it
            if not chunk:
                break
            size += len(chunk)
            if size > MAX_SOURCE_BYTES:
                raise _Refused(_("the sheet is larger than {limit} MB; "
                                 "cardpress refuses card sheets this large").format(limit=MAX_SOURCE_BYTES // (1024 * 1024)))
            chunks.append(chunk)
        if time.monotonic() > deadline:
            raise _Timeout()
        return response.status, b"".join(chunks), response.headers


def _looks_like_html(data: bytes) -> bool:
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<?xml"))


def fetch_source(url: str, name: str | None = None) -> Fetched:
    """The bytes of card source ``url`` (``name`` is how notices name it). See the module doc."""
    shown = name or url
    problem = url_problem(url)
    if problem:
        raise FetchError(problem)
    cached = _read_cache(url)
    if offline():
        if cached is None:
            raise FetchError(_("offline (CARDPRESS_OFFLINE or --offline) and no copy of it in the cache yet; "
                               "run once online"))
        return _stand_in(url, shown, cached, _("offline"), _("--offline or CARDPRESS_OFFLINE: nothing fetched"))
    timeout = timeout_seconds()
    try:
        status, data, headers = _download(url, cached[1] if cached else None, timeout)
    except _Refused as exc:
        raise FetchError(str(exc)) from None
    except urllib.error.HTTPError as exc:
        reason = f"HTTP {exc.code} {exc.reason or ''}".strip()
        exc.close()
        if cached is not None and (exc.code >= 500 or exc.code in (408, 429)):
            return _stand_in(url, shown, cached, _("server error"), _("the server answered {reason}").format(reason=reason))
        raise FetchError(_("the server answered {reason}").format(reason=reason)) from None
    except (_Timeout, TimeoutError, socket.timeout):
        return _failed(url, shown, cached, _("timeout after {seconds:g} s").format(seconds=timeout))
    except urllib.error.URLError as exc:
        why = exc.reason
        if isinstance(why, (TimeoutError, socket.timeout)):
            return _failed(url, shown, cached, _("timeout after {seconds:g} s").format(seconds=timeout))
        text = getattr(why, "strerror", None) or str(why)
        return _failed(url, shown, cached, _("cannot connect ({reason})").format(reason=text))
    except (OSError, ValueError, http.client.HTTPException) as exc:  # a connection cut mid-answer
        return _failed(url, shown, cached, _("the download failed ({reason})").format(reason=exc or type(exc).__name__))
    now = time.time()
    if status == 304 and cached is not None:
        _touch(url, cached[1], now)
        return Fetched(cached[0])
    if status == 304:
        raise FetchError(_("the server answered 304 Not Modified to a request without a cached copy"))
    if _looks_like_html(data):
        raise FetchError(_("the server sent a web page (HTML), not CSV: is the sheet published to the web as CSV?"))
    _store(url, data, headers, now)
    return Fetched(data)


def _age(meta: dict) -> str:
    fetched = meta.get("fetched_at")
    return age_text(time.time() - fetched) if isinstance(fetched, (int, float)) else _("some time ago")


def _stand_in(url: str, shown: str, cached: tuple[bytes, dict], lead: str, why: str) -> Fetched:
    """``offline: using the copy of units.csv fetched 3 h ago (https://…: timeout after 10 s)``."""
    source = _("{url}: {reason}").format(url=url, reason=why) if shown != url else why
    return Fetched(cached[0], _("{lead}: using the copy of {name} fetched {age} ({reason})").format(
        lead=lead, name=shown, age=_age(cached[1]), reason=source))


def _failed(url: str, shown: str, cached: tuple[bytes, dict] | None, why: str) -> Fetched:
    if cached is None:
        raise FetchError(_("{reason}, and there is no cached copy to use").format(reason=why))
    return _stand_in(url, shown, cached, _("offline"), why)


def fetch(url: str, name: str | None = None) -> bytes:
    """``fetch_source`` with its notice given (see ``reporting``)."""
    got = fetch_source(url, name)
    if got.notice:
        _notice(got.notice)
    return got.data
