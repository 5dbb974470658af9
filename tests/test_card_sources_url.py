"""A card file may be a published CSV URL listed in game.yaml (issue 12 §2): fetched with a
deadline and a size cap, cached, and the cached copy used with a notice when offline.

Every test serves the sheet from a real ``http.server`` on 127.0.0.1 (a thread, port 0)."""

from __future__ import annotations

import http.server
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.cards import load_cards
from engine.data import remote
from engine.definitions import load_game
from pipeline.cli.app import app
from pipeline.outputs.spreadsheet import export_cards

runner = CliRunner()


class Sheet(http.server.ThreadingHTTPServer):
    """Serves ``routes[path] = (status, headers, body)``; ``delay`` seconds before answering;
    remembers each request's headers. ``etag`` makes ``/cards.csv`` answer 304 when it matches."""

    daemon_threads = True

    def __init__(self):
        self.routes: dict[str, tuple[int, dict[str, str], bytes]] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.delay = 0.0
        self.trickle = False
        super().__init__(("127.0.0.1", 0), _Handler)
        self.thread = threading.Thread(target=self.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def url(self, path: str = "/cards.csv") -> str:
        return f"http://127.0.0.1:{self.server_address[1]}{path}"

    def stop(self) -> None:
        self.shutdown()
        self.server_close()


class _Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):  # quiet
        pass

    def do_GET(self):  # noqa: N802
        server: Sheet = self.server  # type: ignore[assignment]
        server.requests.append((self.path, dict(self.headers)))
        status, headers, body = server.routes.get(self.path, (404, {}, b"not found"))
        etag = headers.get("ETag")
        if etag and self.headers.get("If-None-Match") == etag:
            self.send_response(304)
            self.end_headers()
            return
        if server.delay:
            time.sleep(server.delay)
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        if "Content-Length" not in headers:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            if server.trickle:
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(0.05)
            else:
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture
def sheet():
    server = Sheet()
    yield server
    server.stop()


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """The sheet cache of this test only (the font cache stays the run's: cutting the font again
    would cost a minute); no proxy between the test and 127.0.0.1; online."""
    monkeypatch.setattr(remote, "cache_root", lambda: tmp_path / "cache" / "sources")
    for name in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                 "CARDPRESS_OFFLINE", "CARDPRESS_FETCH_TIMEOUT"):
        monkeypatch.delenv(name, raising=False)
    remote.take_notices()


def _gbk_sheet(tmp_path: Path) -> bytes:
    """duel's cards as Chinese Excel saves a CSV: GBK, headers the field labels (编号, 名称…)."""
    game = load_game("duel")
    path = tmp_path / "export.csv"
    export_cards(game, load_cards(game), path, headers="labels")
    text = path.read_bytes().decode("utf-8-sig")
    assert "编号" in text.splitlines()[0]
    return text.encode("gbk")


def _web_game(game_copy, url: str, name: str | None = "units.csv") -> Path:
    """duel with no local card files: every card comes from ``url``."""
    folder = game_copy("duel")
    for f in (folder / "cards").iterdir():
        f.unlink()
    entry = f"  - url: {url}\n" + (f"    name: {name}\n" if name else "")
    with open(folder / "game.yaml", "a", encoding="utf-8") as fh:
        fh.write("\n# the cards live in a published sheet\ncard_sources:\n" + entry)
    return folder


def _entry_line(folder: Path) -> int:
    lines = (folder / "game.yaml").read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith("  - url:"))


def _check(folder: Path, *extra: str):
    return runner.invoke(app, ["check", str(folder), "--no-render", *extra])


def test_a_gbk_sheet_with_chinese_headers_checks_and_builds_from_its_url(sheet, game_copy, tmp_path):
    body = _gbk_sheet(tmp_path)
    sheet.routes["/cards.csv"] = (200, {"Content-Type": "text/csv", "ETag": '"v1"'}, body)
    folder = _web_game(game_copy, sheet.url())

    result = _check(folder)
    assert result.exit_code == 0, result.output
    assert f"{len(load_cards(load_game('duel')))} cards" in result.stdout and "All good" in result.stdout
    assert "notice" not in result.stderr
    data, meta = remote.cache_files(sheet.url())
    assert data.read_bytes() == body
    assert meta.is_file() and sheet.url() in meta.read_text(encoding="utf-8")

    out = tmp_path / "dist"
    result = runner.invoke(app, ["build", str(folder), "--paper", "a4", "--jobs", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "cards-a4.pdf").stat().st_size > 10_000
    # the second read asked whether the sheet changed; the 304 used the copy without a word
    assert sheet.requests[-1][1].get("If-None-Match") == '"v1"'
    assert "notice" not in result.stderr


def test_offline_with_a_cached_copy_checks_with_a_notice(sheet, game_copy, tmp_path):
    sheet.routes["/cards.csv"] = (200, {"Content-Type": "text/csv"}, _gbk_sheet(tmp_path))
    url = sheet.url()
    folder = _web_game(game_copy, url)
    assert _check(folder).exit_code == 0
    sheet.stop()

    result = _check(folder)
    assert result.exit_code == 0, result.output
    assert "All good" in result.stdout
    notice = result.stderr
    assert "notice: offline: using the copy of units.csv fetched just now" in notice
    assert url in notice and "cannot connect" in notice


def test_offline_flag_fetches_nothing(sheet, game_copy, tmp_path):
    sheet.routes["/cards.csv"] = (200, {"Content-Type": "text/csv"}, _gbk_sheet(tmp_path))
    folder = _web_game(game_copy, sheet.url())
    assert _check(folder).exit_code == 0
    asked = len(sheet.requests)
    result = _check(folder, "--offline")
    assert result.exit_code == 0, result.output
    assert len(sheet.requests) == asked
    assert "using the copy of units.csv" in result.stderr


def test_a_server_error_uses_the_cached_copy(sheet, game_copy, tmp_path):
    sheet.routes["/cards.csv"] = (200, {"Content-Type": "text/csv"}, _gbk_sheet(tmp_path))
    folder = _web_game(game_copy, sheet.url())
    assert _check(folder).exit_code == 0
    sheet.routes["/cards.csv"] = (503, {}, b"busy")
    result = _check(folder)
    assert result.exit_code == 0, result.output
    assert "HTTP 503" in result.stderr and "using the copy of units.csv" in result.stderr


def _refused(folder: Path, url: str, *why: str) -> None:
    result = _check(folder)
    assert result.exit_code == 1, result.output
    err = result.stderr
    assert f"{folder / 'game.yaml'}, line {_entry_line(folder)}" in err, err
    assert url in err
    for text in why:
        assert text in err, err
    assert "Traceback" not in result.output


def test_no_server_and_no_cache_is_one_error_naming_the_entry(sheet, game_copy):
    url = sheet.url()
    sheet.stop()
    folder = _web_game(game_copy, url)
    _refused(folder, url, "cannot connect", "no cached copy")


def test_not_found_is_an_error(sheet, game_copy):
    folder = _web_game(game_copy, sheet.url("/gone.csv"))
    _refused(folder, sheet.url("/gone.csv"), "HTTP 404")


def test_a_slow_server_times_out_instead_of_hanging(sheet, game_copy, tmp_path, monkeypatch):
    monkeypatch.setenv("CARDPRESS_FETCH_TIMEOUT", "0.5")
    sheet.routes["/cards.csv"] = (200, {"Content-Type": "text/csv"}, _gbk_sheet(tmp_path))
    sheet.delay = 3
    folder = _web_game(game_copy, sheet.url())
    start = time.monotonic()
    _refused(folder, sheet.url(), "timeout after 0.5 s")
    assert time.monotonic() - start < 2.5


def test_a_trickling_server_is_cut_off_at_the_deadline(sheet, game_copy, tmp_path, monkeypatch):
    """Each byte comes in time, but the whole sheet would take minutes: the deadline is the download's."""
    monkeypatch.setenv("CARDPRESS_FETCH_TIMEOUT", "0.5")
    sheet.routes["/cards.csv"] = (200, {"Content-Type": "text/csv"}, _gbk_sheet(tmp_path))
    sheet.trickle = True
    folder = _web_game(game_copy, sheet.url())
    start = time.monotonic()
    _refused(folder, sheet.url(), "timeout after 0.5 s")
    assert time.monotonic() - start < 2.5


def test_a_too_big_sheet_is_refused(sheet, game_copy, monkeypatch):
    monkeypatch.setattr(remote, "MAX_SOURCE_BYTES", 100_000)
    sheet.routes["/cards.csv"] = (200, {"Content-Type": "text/csv"}, b"id,name\n" + b"x" * 200_000)
    folder = _web_game(game_copy, sheet.url())
    _refused(folder, sheet.url(), "the server announces 0.2 MB")
    assert not remote.cache_files(sheet.url())[0].exists()


def test_a_stream_larger_than_the_cap_is_refused(game_copy, monkeypatch):
    """No Content-Length at all: the cap counts what arrives."""
    monkeypatch.setattr(remote, "MAX_SOURCE_BYTES", 100_000)

    class Endless(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def log_message(self, *args):
            pass

        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/csv")
            self.end_headers()
            try:
                self.wfile.write(b"id,name\n" + b"a,b\n" * 100_000)
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Endless)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/cards.csv"
        folder = _web_game(game_copy, url)
        _refused(folder, url, "larger than")
    finally:
        server.shutdown()
        server.server_close()


def test_a_web_page_is_not_a_card_sheet(sheet, game_copy):
    sheet.routes["/cards.csv"] = (200, {"Content-Type": "text/html; charset=utf-8"},
                                  b"<!DOCTYPE html><html><body>Sign in</body></html>")
    folder = _web_game(game_copy, sheet.url())
    _refused(folder, sheet.url(), "HTML", "published to the web as CSV")


def test_a_redirect_to_ftp_is_refused(sheet, game_copy):
    sheet.routes["/cards.csv"] = (302, {"Location": "ftp://127.0.0.1/cards.csv"}, b"")
    folder = _web_game(game_copy, sheet.url())
    _refused(folder, sheet.url(), "redirected to ftp://127.0.0.1/cards.csv")


def test_a_redirect_to_http_is_followed(sheet, game_copy, tmp_path):
    sheet.routes["/moved.csv"] = (200, {"Content-Type": "text/csv"}, _gbk_sheet(tmp_path))
    sheet.routes["/cards.csv"] = (301, {"Location": sheet.url("/moved.csv")}, b"")
    result = _check(_web_game(game_copy, sheet.url()))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("url", ["file:///etc/passwd", "ftp://example.com/cards.csv"])
def test_file_and_ftp_urls_are_refused_naming_the_line(game_copy, url):
    folder = _web_game(game_copy, url)
    result = _check(folder)
    assert result.exit_code == 1, result.output
    err = result.stderr
    assert f"{folder / 'game.yaml'}, line {_entry_line(folder)}" in err, err
    assert "only http:// and https://" in err and "card_sources" in err
    assert "Traceback" not in result.output


def test_a_bad_row_in_the_sheet_names_the_url_and_row(sheet, game_copy, tmp_path):
    lines = _gbk_sheet(tmp_path).decode("gbk").splitlines()
    header = lines[0].split(",")
    row = lines[2].split(",")
    row[header.index("阶级")] = "九"
    lines[2] = ",".join(row)
    sheet.routes["/cards.csv"] = (200, {"Content-Type": "text/csv"}, "\n".join(lines).encode("gbk"))
    folder = _web_game(game_copy, sheet.url(), name=None)
    result = _check(folder)
    assert result.exit_code == 1, result.output
    assert f"{sheet.url()}, row 3" in result.stderr and "rank" in result.stderr, result.stderr


def test_the_library_names_the_cache_and_keeps_notices_without_a_listener(sheet, tmp_path):
    sheet.routes["/cards.csv"] = (200, {"Content-Type": "text/csv", "Last-Modified": "Tue, 01 Dec 2026 10:00:00 GMT"},
                                  b"id,name\na,b\n")
    assert remote.fetch(sheet.url(), "a.csv") == b"id,name\na,b\n"
    assert remote.take_notices() == []
    remote.fetch(sheet.url(), "a.csv")
    assert sheet.requests[-1][1].get("If-Modified-Since") == "Tue, 01 Dec 2026 10:00:00 GMT"
    sheet.stop()
    assert remote.fetch(sheet.url(), "a.csv") == b"id,name\na,b\n"
    [notice] = remote.take_notices()
    assert notice.startswith("offline: using the copy of a.csv fetched just now")


def test_the_cache_is_under_cardpress_cache(monkeypatch, tmp_path):
    monkeypatch.undo()  # the real cache_root
    monkeypatch.setenv("CARDPRESS_CACHE", str(tmp_path))
    data, meta = remote.cache_files("https://example.com/pub?output=csv")
    assert data.parent == meta.parent == tmp_path / "sources"
    assert data.suffix == ".csv" and meta.suffix == ".json" and len(data.stem) == 64


def test_a_damaged_cached_copy_is_not_used(sheet, game_copy, tmp_path):
    sheet.routes["/cards.csv"] = (200, {"Content-Type": "text/csv"}, _gbk_sheet(tmp_path))
    folder = _web_game(game_copy, sheet.url())
    assert _check(folder).exit_code == 0
    data, _meta = remote.cache_files(sheet.url())
    data.write_bytes(data.read_bytes()[:-40])  # cut short, say by a full disk
    sheet.stop()
    _refused(folder, sheet.url(), "no cached copy")
