"""The table server: taps from several phones over one store, each applied once, never lost."""

from __future__ import annotations

import json
import threading
import time

import httpx2 as httpx
import pytest
import uvicorn
from starlette.testclient import TestClient

from engine.tracker import Store

from engine.live import LiveGame
from pipeline.table.server import make_app

LEVELS = ("Level 0", "Level 1")
JSON = {"Content-Type": "application/json"}


@pytest.fixture
def game(tmp_path):
    db = tmp_path / "games.sqlite"
    with Store(db) as store:
        live = LiveGame.new(store, "backrooms", ("甲", "<b>乙</b>"), levels=LEVELS)
        gid = live.id
    return db, gid


def tap(client, op, command, seen=0, **args):
    return client.post("/api/tap", content=json.dumps({"op": op, "seen": seen, "command": command, "args": args}),
                       headers=JSON)


def entries(db, gid) -> int:
    with Store(db) as store:
        return store.last_seq(gid)


def test_a_tap_applies_once_per_operation_id_and_returns_the_new_board(game):
    db, gid = game
    client = TestClient(base_url="http://127.0.0.1", app=make_app(db, gid))
    start = client.get("/api/board").json()
    assert start["board"]["phase"] == "draw" and start["seq"] == 1
    first = tap(client, "op-next-0001", "next", seen=1)
    assert first.status_code == 200 and first.json()["seq"] == 2 and first.json()["board"]["phase"] == "prepare"
    again = tap(client, "op-next-0001", "next", seen=1)        # the answer was lost: the phone retries
    assert again.status_code == 200 and again.json()["repeated"] and again.json()["seq"] == 2
    assert entries(db, gid) == 2


def test_a_phone_that_was_behind_gets_the_new_board_and_overwrites_nothing(game):
    db, gid = game
    a, b = TestClient(base_url="http://127.0.0.1", app=make_app(db, gid)), TestClient(base_url="http://127.0.0.1", app=make_app(db, gid))
    assert tap(a, "op-a-000001", "next", seen=1).json()["seq"] == 2
    with Store(db) as store:                                   # the CLI at the same table
        LiveGame(store, gid).do("note", text="终端里的备注")
    late = tap(b, "op-b-000001", "next", seen=1).json()         # b still shows the board at seq 1
    assert late["was_behind"] and late["seq"] == 4 and late["board"]["phase"] == "main"
    assert [l["title"] for l in late["log"]][-3:] == ["下一阶段", "备注 内容终端里的备注", "下一阶段"]


def test_a_refused_tap_stores_nothing_and_says_why(game):
    db, gid = game
    client = TestClient(base_url="http://127.0.0.1", app=make_app(db, gid))
    refused = tap(client, "op-spend-0001", "spend", player="甲", amount="99")
    assert refused.status_code == 409 and "不能花费 99 点" in refused.json()["error"]
    assert refused.json()["board"]["players"][0]["cost"] == 5 and entries(db, gid) == 1
    for body, message in [(b"[1]", "JSON 对象"), (b"{", "JSON 对象"),
                          (json.dumps({"op": "x", "command": "next"}).encode(), "操作编号"),
                          (json.dumps({"op": "op-000000001", "command": "fly"}).encode(), "没有命令 'fly'"),
                          (json.dumps({"op": "op-000000002", "command": "spend", "args": {"colour": 1}}).encode(),
                           "没有参数 'colour'"),
                          (b"{" + b" " * 70000 + b"}", "最多")]:
        answer = client.post("/api/tap", content=body, headers=JSON)
        assert answer.status_code in (400, 413) and message in answer.json()["error"], (body[:40], answer.text)
    assert entries(db, gid) == 1


def test_forms_come_from_the_declarations(game):
    db, gid = game
    forms = {f["command"]: f for f in TestClient(base_url="http://127.0.0.1", app=make_app(db, gid)).get("/api/forms").json()}
    assert forms["next"]["label"] == "下一阶段" and {"undo", "redo", "summon", "attack"} <= set(forms)
    attack = {p["name"]: p for p in forms["attack"]["params"]}
    assert attack["unit"]["kind"] == "piece" and attack["unit"]["label"] == "攻击者"
    assert "{n." not in forms["summon"]["help"]


def test_undo_from_any_phone(game):
    db, gid = game
    a, b = TestClient(base_url="http://127.0.0.1", app=make_app(db, gid)), TestClient(base_url="http://127.0.0.1", app=make_app(db, gid))
    tap(a, "op-a-000001", "next")
    undone = tap(b, "op-b-000001", "undo").json()
    assert undone["board"]["phase"] == "draw" and not undone["board"]["can_undo"]
    assert a.get("/api/board").json()["board"]["phase"] == "draw"


def test_with_a_join_token_every_request_without_it_is_refused(game):
    db, gid = game
    client = TestClient(base_url="http://127.0.0.1", app=make_app(db, gid, token="s3cret-token"))
    assert client.get("/api/board").status_code == 403
    assert client.get("/api/board?t=wrong").status_code == 403
    assert tap(client, "op-000000001", "next").status_code == 403 and entries(db, gid) == 1
    assert client.get("/api/board?t=s3cret-token").status_code == 200
    assert client.get("/api/board").status_code == 200          # the cookie the join link set


def test_player_names_reach_the_board_as_data_not_markup(game):
    db, gid = game
    board = TestClient(base_url="http://127.0.0.1", app=make_app(db, gid)).get("/api/board")
    assert board.headers["content-type"].startswith("application/json")
    assert [p["name"] for p in board.json()["board"]["players"]] == ["甲", "<b>乙</b>"]


# ---------------------------------------------------------------------------- a real server


@pytest.fixture
def server(game):
    db, gid = game
    config = uvicorn.Config(make_app(db, gid), host="127.0.0.1", port=0, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.02)
    port = srv.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}", db, gid
    srv.should_exit = True
    thread.join(timeout=5)


def test_two_phones_tapping_at_once_lose_and_double_nothing(server):
    url, db, gid = server
    errors = []

    def phone(name: str) -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            for k in range(50):
                op = f"{name}-{k:04d}-op"
                for _ in range(2):                          # every tap sent twice, as a retry would
                    answer = tap(client, op, "note", text=f"{name}{k}")
                    if answer.status_code != 200:
                        errors.append(answer.text)

    threads = [threading.Thread(target=phone, args=(n,)) for n in ("phoneA", "phoneB")]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not errors
    with Store(db) as store:
        notes = [e.args["text"] for e in LiveGame(store, gid).entries() if e.command == "note"]
    assert len(notes) == 100 and len(set(notes)) == 100


def test_the_event_stream_pushes_every_new_board_and_resumes_from_last_event_id(server):
    url, db, gid = server
    with httpx.Client(base_url=url, timeout=10) as client:
        with client.stream("GET", "/api/events", headers={"Last-Event-ID": "1"}) as stream:
            lines = stream.iter_lines()
            tap(client, "op-next-000001", "next")               # another phone's tap
            started = time.monotonic()
            event = _next_event(lines)
            assert event["id"] == "2" and json.loads(event["data"])["view"]["phase"] == "prepare"
            assert time.monotonic() - started < 1.0
        # A phone that slept through seq 3 reconnects with the last id it had: it gets the board now.
        with Store(db) as store:
            LiveGame(store, gid).do("note", text="睡着时的备注")
        with client.stream("GET", "/api/events", headers={"Last-Event-ID": "2"}) as stream:
            event = _next_event(stream.iter_lines())
            assert event["id"] == "3" and json.loads(event["data"])["log"][-1]["title"] == "备注 内容睡着时的备注"


def _next_event(lines) -> dict[str, str]:
    event: dict[str, str] = {}
    for line in lines:
        if not line:
            if "data" in event:
                return event
            continue
        if line.startswith(":"):
            continue
        key, _, value = line.partition(": ")
        event[key] = value
    raise AssertionError("the stream ended")


def test_a_second_table_on_the_same_store_cannot_act_on_this_tables_game(game):
    db, gid = game
    with Store(db) as store:
        other = LiveGame.new(store, "duel", ("丙", "丁")).id
    mine, theirs = TestClient(base_url="http://127.0.0.1", app=make_app(db, gid)), TestClient(base_url="http://127.0.0.1", app=make_app(db, other))
    assert tap(theirs, "op-theirs-001", "next").status_code == 200
    assert tap(theirs, "op-theirs-002", "summon", card="x").status_code == 400      # not a duel command
    assert entries(db, gid) == 1 and mine.get("/api/board").json()["board"]["game"] == "backrooms"
    assert theirs.get("/api/board").json()["board"]["id"] == other
    # The same operation id at the other table is another tap: ids are per game.
    assert tap(mine, "op-theirs-001", "next").json()["repeated"] is False and entries(db, gid) == 2


def test_cardpress_table_refuses_clearly_before_serving_anything(game):
    import socket

    from typer.testing import CliRunner

    from pipeline.cli.app import app

    db, gid = game
    runner = CliRunner()
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        taken = runner.invoke(app, ["table", "--game", gid, "--db", str(db), "--port", str(busy.getsockname()[1])])
    finally:
        busy.close()
    assert taken.exit_code == 2 and "cannot listen on 127.0.0.1" in taken.output and "--port" in taken.output
    stray = runner.invoke(app, ["table", "--players", "甲,乙", "--db", str(db)])
    assert stray.exit_code == 2 and "start a new game" in stray.output
    unknown = runner.invoke(app, ["table", "--game", "nope-000000", "--db", str(db)])
    assert unknown.exit_code == 1 and "nope-000000" in unknown.output
    assert "Traceback" not in taken.output + stray.output + unknown.output


def test_a_page_elsewhere_cannot_make_a_browser_at_the_table_tap(game):
    db, gid = game
    app = make_app(db, gid)
    body = json.dumps({"op": "op-csrf-00001", "command": "next"})
    local = TestClient(base_url="http://127.0.0.1:8765", app=app)
    # A form or text/plain POST (no CORS preflight) from another site: not a tap.
    assert local.post("/api/tap", content=body, headers={"Content-Type": "text/plain"}).status_code == 415
    assert local.post("/api/tap", content=body, headers={**JSON, "Origin": "https://evil.example"}).status_code == 403
    # A name of someone else's made to point at 127.0.0.1 (DNS rebinding).
    rebound = TestClient(base_url="http://evil.example:8765", app=app)
    assert rebound.get("/api/board").status_code == 403 and rebound.get("/").status_code == 403
    assert entries(db, gid) == 1
    same = local.post("/api/tap", content=body, headers={**JSON, "Origin": "http://127.0.0.1:8765"})
    assert same.status_code == 200 and entries(db, gid) == 2
    for name in ("localhost", "[::1]"):
        assert TestClient(base_url=f"http://{name}:8765", app=app).get("/api/board").status_code == 200
    # Every answer forbids anything but this origin.
    csp = local.get("/api/board").headers["content-security-policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp
