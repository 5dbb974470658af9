"""The event store and the session: op ids, undo/redo as entries, replay, export/import, layering."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from engine.errors import DataError
from engine.tracker import Store, UnknownGame
from engine.live import LiveGame, NothingToRedo, NothingToUndo, import_game, resume
from engine.tracker.state import fold
from engine.live.session import WhichGame

from track_helpers import advance_to, new_game


def test_store_uses_wal_and_full_sync(tmp_path):
    live = new_game(tmp_path)
    conn = live.store.conn
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_a_retried_operation_id_applies_once(tmp_path):
    live = new_game(tmp_path)
    advance_to(live, 1, "main")
    first = live.do("spend", player="A", amount=2, op_id="op-1")
    again = live.do("spend", player="A", amount=2, op_id="op-1")
    assert not first.repeated and again.repeated and again.entry.seq == first.entry.seq
    assert live.state.players[0].cost == 4
    # Another process (a second LiveGame on the same file) retrying the same op id.
    other = LiveGame(Store(tmp_path / "games.sqlite"), live.id)
    assert other.do("spend", player="A", amount=2, op_id="op-1").repeated
    assert other.state.players[0].cost == 4


def test_two_devices_see_each_others_commands(tmp_path):
    live = new_game(tmp_path)
    other = LiveGame(Store(tmp_path / "games.sqlite"), live.id)
    live.do("next")
    other.do("next")                  # catches up inside its transaction before deciding
    assert other.state.phase == "main"
    assert live.refresh().phase == "main"


def test_undo_redo_are_entries_and_history_is_kept(tmp_path):
    live = new_game(tmp_path)
    with pytest.raises(NothingToUndo):
        live.undo()
    with pytest.raises(NothingToRedo):
        live.redo()
    s0 = live.state
    live.do("next")
    s1 = live.state
    live.undo()
    assert live.state == s0
    live.redo()
    assert live.state == s1
    live.undo()
    live.do("gain", player="A", amount=1)        # a new command drops the redo stack
    with pytest.raises(NothingToRedo):
        live.redo()
    kinds = [e.kind for e in live.entries()]
    assert kinds == ["start", "command", "undo", "redo", "undo", "command"]
    assert live.store.last_seq(live.id) == 6


def test_resume_replays_the_log_to_the_same_state(tmp_path):
    live = new_game(tmp_path)
    advance_to(live, 4, "battle")
    live.do("damage", player="A", amount=3)
    live.undo()
    live.do("damage", player="A", amount=4)
    again = resume(Store(tmp_path / "games.sqlite"))
    assert again.id == live.id and again.state == live.state
    assert [a for a, _ in again.replay.applied] == [a for a, _ in live.replay.applied]


def test_state_is_the_fold_of_the_entries_in_effect(tmp_path):
    live = new_game(tmp_path, "duel")
    live.do("skill", player="A", kind="pierce")
    live.do("life", player="B", delta=-2)
    live.undo()
    events = [e for seq, _ in live.replay.applied for e in live.replay.entries[seq].events]
    assert fold(events) == live.state


def test_export_import_round_trip_and_bad_logs(tmp_path):
    live = new_game(tmp_path, "ridm")
    advance_to(live, 3, "main")
    live.do("sanity", player="B", delta=-1)
    data = json.loads(json.dumps(live.export()))
    other = Store(tmp_path / "other.sqlite")
    copy = import_game(other, data)
    assert copy.state == live.state and copy.id == live.id
    with pytest.raises(Exception, match="already exists"):
        import_game(other, data)
    assert import_game(other, data, game_id="copy-2").state == live.state
    with pytest.raises(DataError, match="not a cardpress game log"):
        import_game(other, {"format": "x"})
    broken = json.loads(json.dumps(data))
    broken["entries"][3]["seq"] = 99
    with pytest.raises(DataError, match="gap"):
        import_game(other, broken, game_id="broken")
    with pytest.raises(UnknownGame):
        LiveGame(other, "broken")


def test_list_and_no_current_game(tmp_path):
    a = new_game(tmp_path, "duel")
    store = a.store
    assert resume(store).id == a.id, "the store's only game needs no id"
    b = LiveGame.new(store, "ridm", ("X", "Y"))
    assert {r.id for r, _, _ in store.games()} == {a.id, b.id}
    # Starting b did not make it the target of commands that name no game.
    with pytest.raises(WhichGame, match=f"{b.id}.*\\n.*{a.id}"):
        resume(store)
    assert resume(store, a.id).id == a.id
    with pytest.raises(WhichGame):
        resume(store)


def test_a_refused_command_writes_nothing(tmp_path):
    live = new_game(tmp_path)
    n = sqlite3.connect(tmp_path / "games.sqlite").execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    with pytest.raises(Exception):
        live.do("spend", player="A", amount=99)
    with pytest.raises(Exception):
        live.do("no_such_command")
    assert sqlite3.connect(tmp_path / "games.sqlite").execute("SELECT COUNT(*) FROM entries").fetchone()[0] == n


def test_engine_never_imports_the_pipeline_or_rendering_libraries():
    code = ("import sys, engine.tracker, engine.games, engine.live.view, engine.tracker.describe; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('reportlab','jinja2','PIL','typer','pipeline')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_snapshots_are_only_a_cache_undo_reaches_past_them(tmp_path, monkeypatch):
    from engine.live import session

    monkeypatch.setattr(session, "SNAPSHOT_EVERY", 4)
    live = new_game(tmp_path)
    states = [live.state]
    for _ in range(13):
        live.do("next")
        states.append(live.state)
    assert live.store.latest_snapshot(live.id) is not None
    resumed = LiveGame(Store(tmp_path / "games.sqlite"), live.id, cards={})
    assert resumed.replay.applied[0][1] is None, "resumed from the snapshot, not from the start"
    for expected in reversed(states[:-1]):
        resumed.undo()
        assert resumed.state == expected
    assert len(resumed.entries()) == resumed.replay.last_seq == 27
    full = LiveGame(Store(tmp_path / "games.sqlite"), live.id, cards={}, use_snapshots=False)
    assert full.state == resumed.state == states[0]
    live.store.conn.execute("UPDATE snapshots SET data = x'00'")
    assert LiveGame(Store(tmp_path / "games.sqlite"), live.id, cards={}).state == states[0]


def test_the_tail_of_a_log_is_the_end_of_the_whole_log(tmp_path):
    from engine.live.view import log_lines

    live = new_game(tmp_path, "duel")
    for k in range(12):
        live.do("note", text=f"第{k}条")
    live.undo()
    whole = log_lines(live)
    for tail in (1, 3, 14, 15, 99):
        assert log_lines(live, tail) == whole[-tail:]
