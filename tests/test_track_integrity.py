"""The tracker's store never runs code from a file and never loses data silently.

Forged snapshot rows, damaged files (WAL, main database, truncation, 0 bytes, not SQLite), unusable
paths (a folder, a missing or read-only folder, a full disk), reused op ids and doctored imports:
each gives one message naming the file (and the game and last good entry), exit code 1, and for
damage a way to export what is intact.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pickle
import re
import shutil
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from engine.errors import CardpressError, DataError
from engine.tracker import Store
from engine.live import LiveGame, import_game
from engine.tracker import codec
from engine.live import session
from engine.live.session import OpIdReused, parse_log
from engine.tracker.store import DiskFull, NotAStore, StoreDamaged, StoreUnavailable
from engine.live.view import live_status
from pipeline.cli.track import app
from pipeline.cli.track_view import board, log_text

runner = CliRunner()


def cli(db: Path, *args: str):
    return runner.invoke(app, [*args, "--db", str(db)])


def notes_game(db: Path, n: int = 10, text: str = "note-{}") -> LiveGame:
    """A ridm game of ``n`` entries: the setup, then notes (always legal, so any count works)."""
    live = LiveGame.new(Store(db), "ridm", ("A", "B"), cards={}, op_id="op-1")
    for k in range(2, n + 1):
        live.do("note", text=text.format(k), op_id=f"op-{k}")
    return live


def damaged_message(db: Path, game_id: str, last_good: int, why: str) -> str:
    return (f"game {game_id} in {db} is damaged after entry {last_good} (the last good entry): {why}; "
            f"`cardpress track export {game_id} --intact -o {game_id}-intact.json` saves entries 1..{last_good}")


def intact_export(db: Path, game_id: str, out: Path) -> dict:
    result = cli(db, "export", game_id, "--intact", "-o", str(out))
    assert result.exit_code == 0, result.output
    return json.loads(out.read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------- forged snapshots


@pytest.fixture
def snapshotted(tmp_path, monkeypatch):
    """A backrooms game with a valid snapshot at its last entry; returns (live, db)."""
    monkeypatch.setattr(session, "SNAPSHOT_EVERY", 4)
    db = tmp_path / "g.sqlite"
    live = LiveGame.new(Store(db), "backrooms", ("A", "B"), levels=("L0", "L1"), cards={})
    for _ in range(3):
        live.do("gain", player="A", amount=2)
    assert live.store.latest_snapshot(live.id)[0] == live.replay.last_seq == 4
    return live, db


def _forge(db: Path, game_id: str, data) -> None:
    conn = sqlite3.connect(db)
    conn.execute("UPDATE snapshots SET data = ? WHERE game_id = ?", (data, game_id))
    conn.commit()
    conn.close()


def _body(db: Path, game_id: str) -> dict:
    raw = sqlite3.connect(db).execute("SELECT data FROM snapshots WHERE game_id = ?", (game_id,)).fetchone()[0]
    return json.loads(raw)["body"]


def _sealed(body: dict, key: bytes | None = None) -> bytes:
    """A snapshot sealed with this machine's key (default) or another: what passes the seal, so
    the checks behind it are what a test exercises."""
    from engine.tracker.replay import _checksum, seal_key

    checksum = _checksum(body, key or seal_key())
    return codec.canonical({"body": body, "checksum": checksum}).encode()


def test_a_resealed_forgery_from_another_machine_is_dropped(snapshotted):
    # A stranger can recompute any public checksum, and seal with their own key, but not ours.
    live, db = snapshotted
    body = _body(db, live.id)
    body["state"]["players"][0]["cost"] = 999
    plain = hashlib.sha256(codec.canonical(body).encode()).hexdigest()
    for forged in (codec.canonical({"body": body, "checksum": plain}).encode(), _sealed(body, b"k" * 32)):
        _forge(db, live.id, forged)
        again = _resumed(db, live.id)
        assert again.state.players[0].cost == live.state.players[0].cost == 11
        assert again.replay.applied[0][1] is not None, "rebuilt from the log"
        _assert_replaced(db, live)


def test_without_a_usable_key_games_replay_from_the_log(snapshotted, monkeypatch):
    from engine.tracker import replay

    live, db = snapshotted
    monkeypatch.setattr(replay, "_key", None)    # e.g. a read-only home folder
    again = _resumed(db, live.id)
    assert again.state == live.state and again.replay.applied[0][1] is not None
    for _ in range(5):
        again.do("gain", player="B", amount=1)   # no snapshot can be sealed: none is written
    assert again.store.latest_snapshot(live.id) is None


def test_the_key_is_private_and_made_once(tmp_path):
    from engine.keys import read_or_make_key as _read_or_make_key

    path = tmp_path / "d" / "snapshot.key"
    key = _read_or_make_key(path)
    assert key is not None and len(key) == 32 and _read_or_make_key(path) == key
    assert path.stat().st_mode & 0o777 == 0o600
    path.write_bytes(b"short")                   # a key cut short by a crash is never trusted
    assert _read_or_make_key(path) is None


def _resumed(db: Path, game_id: str) -> LiveGame:
    return LiveGame(Store(db), game_id, cards={})


def test_a_valid_snapshot_is_used(snapshotted):
    live, db = snapshotted
    again = _resumed(db, live.id)
    assert again.replay.applied[0][1] is None, "resumed from the snapshot, not by replaying from entry 1"
    assert again.state == live.state


class _Payload:
    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_pickled_snapshot_never_runs(snapshotted, tmp_path):
    live, db = snapshotted
    proof = tmp_path / "proof"
    pickle.loads(pickle.dumps(_Payload(proof)))   # the payload does run code when unpickled…
    assert proof.exists()
    marker = tmp_path / "pwned"
    _forge(db, live.id, pickle.dumps(_Payload(marker)))
    again = _resumed(db, live.id)                 # …but the store never unpickles
    assert not marker.exists()
    assert again.state == live.state and again.replay.applied[0][1] is not None, "rebuilt from the log"
    _assert_replaced(db, live)


def _assert_replaced(db: Path, live: LiveGame) -> None:
    """The forged row is gone; the snapshot there now was rebuilt from the log."""
    assert _body(db, live.id)["state"] == codec.encode(live.state)


def test_a_doctored_snapshot_gives_the_logs_state(snapshotted):
    live, db = snapshotted
    body = _body(db, live.id)
    body["state"]["players"][0]["cost"] = 999
    _forge(db, live.id, codec.canonical({"body": body, "checksum": "0" * 64}).encode())
    again = _resumed(db, live.id)
    assert again.state.players[0].cost == live.state.players[0].cost == 11
    _assert_replaced(db, live)


def test_a_snapshot_of_another_log_position_is_dropped(snapshotted):
    live, db = snapshotted
    body = _body(db, live.id)
    body["state"]["players"][0]["cost"] = 999
    body["log_digest"] = "f" * 64                 # checksum recomputed, but not the log's digest at seq 4
    _forge(db, live.id, _sealed(body))
    assert _resumed(db, live.id).state.players[0].cost == 11


def test_a_snapshot_with_a_string_for_an_int_is_dropped(snapshotted):
    live, db = snapshotted
    body = _body(db, live.id)
    body["state"]["players"][0]["cost"] = "999"   # sealed and at the right log position: types still checked
    _forge(db, live.id, _sealed(body))
    again = _resumed(db, live.id)
    assert again.state == live.state and again.state.players[0].cost == 11
    body["state"]["players"][0]["cost"] = 11
    body["applied"] = [1, 9]                      # an undo stack that does not fit the log
    _forge(db, live.id, _sealed(body))
    assert _resumed(db, live.id).state == live.state


@pytest.mark.parametrize("blob", [b"", b"{", b"\x00\xff", 12345, "[]"])
def test_a_truncated_or_garbage_snapshot_is_dropped(snapshotted, blob):
    live, db = snapshotted
    raw = sqlite3.connect(db).execute("SELECT data FROM snapshots").fetchone()[0]
    _forge(db, live.id, raw[: len(raw) // 2] if blob == b"" else blob)
    again = _resumed(db, live.id)
    assert again.state == live.state and again.replay.applied[0][1] is not None
    _assert_replaced(db, live)


def test_no_pickle_left_in_the_code():
    repo = Path(__file__).resolve().parent.parent
    found = [str(p) for folder in ("engine", "pipeline") for p in (repo / folder).rglob("*.py")
             if re.search(r"^\s*(import pickle|from pickle)", p.read_text(encoding="utf-8"), re.M)]
    assert not found


def test_a_schema_1_store_is_migrated_and_its_pickles_deleted_unread(tmp_path):
    db = tmp_path / "old.sqlite"
    live = notes_game(db, 6)
    state = live.state
    live.store.close()
    marker = tmp_path / "pwned"
    conn = sqlite3.connect(db)                    # make it look like a store of the previous release
    conn.execute("DELETE FROM meta WHERE key IN ('format', 'schema')")
    conn.execute("ALTER TABLE entries DROP COLUMN digest")
    for seq, args, events in conn.execute("SELECT seq, args, events FROM entries").fetchall():
        conn.execute("UPDATE entries SET args = ?, events = ? WHERE seq = ?",
                     (json.dumps(json.loads(args)), json.dumps(json.loads(events)), seq))
    conn.execute("INSERT INTO snapshots VALUES (?, 6, ?)", (live.id, pickle.dumps(_Payload(marker))))
    conn.commit()
    conn.close()
    again = LiveGame(Store(db), live.id, cards={})
    assert again.state == state and not marker.exists()
    conn = sqlite3.connect(db)
    assert dict(conn.execute("SELECT key, value FROM meta"))["schema"] == "3"
    assert conn.execute("SELECT COUNT(*) FROM entries WHERE digest IS NULL").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0] == 0


# ---------------------------------------------------------------------------- damaged files


def test_a_row_edited_with_sqlite3_is_reported_and_the_rest_exported(tmp_path):
    db = tmp_path / "g.sqlite"
    live = notes_game(db)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE entries SET args = replace(args, 'note-6', 'note-X') WHERE seq = 6")
    conn.commit()
    result = cli(db, "status")
    assert result.exit_code == 1
    assert f"error: {damaged_message(db, live.id, 5, 'entry 6 does not match its checksum')}" in result.output
    data = intact_export(db, live.id, tmp_path / "intact.json")
    assert [e["seq"] for e in data["entries"]] == [1, 2, 3, 4, 5]
    copy = import_game(Store(tmp_path / "other.sqlite"), data)    # what is intact is a valid game
    assert [e.args.get("text") for e in copy.entries()][1:] == [f"note-{k}" for k in range(2, 6)]


def test_an_edited_game_row_breaks_the_chain_at_entry_1(tmp_path):
    db = tmp_path / "g.sqlite"
    live = notes_game(db, 3)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE games SET players = '[\"A\", \"Mallory\"]'")
    conn.commit()
    result = cli(db, "status")
    assert result.exit_code == 1
    assert (f"error: game {live.id} in {db} is damaged after entry 0 (the last good entry): entry 1 (or the game's "
            f"row it seals: its game, players and stored definition) does not match its checksum; not even its "
            f"first entry is intact"
            in result.output)


def test_a_value_of_the_wrong_type_in_a_row_is_damage_not_a_traceback(tmp_path):
    db = tmp_path / "g.sqlite"
    live = notes_game(db, 4)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE entries SET target = 'x' WHERE seq = 3")
    conn.commit()
    with pytest.raises(StoreDamaged, match=re.escape(damaged_message(db, live.id, 2,
                                                                     "entry 3 has a value of the wrong type"))):
        LiveGame(Store(db), live.id, cards={})


def test_malformed_rows_are_damage_not_a_traceback(tmp_path):
    db = tmp_path / "g.sqlite"
    live = notes_game(db, 3)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE games SET players = '{not json'")
    conn.commit()
    result = cli(db, "list")
    assert result.exit_code == 1
    assert f"error: game {live.id!r} in {db} is damaged: its game row (game, players, stored definition) is unreadable" in result.output
    conn.execute("UPDATE games SET players = '[\"A\", \"B\"]'")
    conn.commit()
    assert cli(db, "status").exit_code == 0
    # An events column that is not a list of known events: caught when the entry is parsed
    # (its digest is recomputed here, as a forger would, and the side record is not there, as
    # in a store from elsewhere, so only the parse can catch it).
    Path(f"{db}.seqs").unlink()
    store = Store(db)
    previous = store.digest_at(live.id, 2)
    from engine.tracker.store import _digest, _entry_text
    row = list(conn.execute("SELECT seq, op_id, kind, command, args, target, events, created FROM entries "
                            "WHERE seq = 3").fetchone())
    row[6] = '[{"type":"NoSuchEvent"}]'
    conn.execute("UPDATE entries SET events = ?, digest = ? WHERE seq = 3", (row[6], _digest(previous, _entry_text(*row))))
    conn.commit()
    result = cli(db, "status")
    assert result.exit_code == 1
    assert (f"game {live.id} in {db} is damaged after entry 2 (the last good entry): entry 3 is unreadable "
            f"(entry 3: events[0].type: unknown Event type 'NoSuchEvent')") in result.output


def test_flipped_bytes_in_the_main_database_file(tmp_path):
    db = tmp_path / "g.sqlite"
    live = notes_game(db, text="marker-text-{}")
    live.store.close()                                # checkpoint: the entries are in the main file now
    assert not (tmp_path / "g.sqlite-wal").exists()
    raw = bytearray(db.read_bytes())
    at = raw.index(b"marker-text-7")
    raw[at:at + 8] = bytes(b ^ 0x01 for b in raw[at:at + 8])   # still ASCII, so SQLite reads it back
    db.write_bytes(bytes(raw))
    result = cli(db, "note", "more", "--op-id", "after")
    assert result.exit_code == 1
    assert f"error: {damaged_message(db, live.id, 6, 'entry 7 does not match its checksum')}" in result.output
    assert [e["seq"] for e in intact_export(db, live.id, tmp_path / "i.json")["entries"]] == list(range(1, 7))


def test_a_damaged_index_is_reported_and_the_table_still_exported(tmp_path):
    """A damaged index makes SQLite silently find fewer rows; the walk reads the table itself."""
    db = tmp_path / "g.sqlite"
    live = notes_game(db, 5)
    live.store.close()
    conn = sqlite3.connect(db)
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    roots = [r for (r,) in conn.execute("SELECT rootpage FROM sqlite_master WHERE name LIKE 'sqlite_autoindex_entries_%'")]
    conn.close()
    raw = bytearray(db.read_bytes())
    for root in roots:                     # each small index is one leaf page: make it an empty leaf
        at = (root - 1) * page_size
        raw[at:at + 8] = bytes([0x0A, 0, 0, 0, 0, page_size >> 8 & 0xFF, page_size & 0xFF, 0])
    db.write_bytes(bytes(raw))
    result = cli(db, "status")
    assert result.exit_code == 1
    assert f"error: game {live.id} in {db} is damaged" in result.output and "index" in result.output
    assert [e["seq"] for e in intact_export(db, live.id, tmp_path / "i.json")["entries"]] == [1, 2, 3, 4, 5]


def _copy_store(src: Path, dest: Path) -> None:
    """What a crash leaves on disk: the main file, its WAL and the side record, as they are now."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", ".seqs"):
        shutil.copyfile(str(src) + suffix, str(dest) + suffix)


def test_flipped_bytes_in_the_wal_are_reported_not_silently_dropped(tmp_path):
    db = tmp_path / "live" / "g.sqlite"
    db.parent.mkdir()
    live = notes_game(db, 10)                  # 10 acknowledged entries, all still in the WAL (no checkpoint)
    live.store.flush_marks()                   # as 10 CLI commands would have (each writes FILE.seqs)
    clean, broken = tmp_path / "clean" / "g.sqlite", tmp_path / "broken" / "g.sqlite"
    _copy_store(db, clean)
    _copy_store(db, broken)
    wal = bytearray(Path(str(broken) + "-wal").read_bytes())
    frame = 24 + 4096                          # WAL frame header + one page
    frames = (len(wal) - 32) // frame
    at = 32 + (frames // 3) * frame + 24 + 200
    wal[at:at + 8] = bytes(b ^ 0xFF for b in wal[at:at + 8])
    Path(str(broken) + "-wal").write_bytes(bytes(wal))

    assert len(LiveGame(Store(clean), live.id, cards={}).entries()) == 10, "the copy itself loses nothing"
    result = cli(broken, "status")
    assert result.exit_code == 1
    m = re.search(rf"error: game {live.id} in {re.escape(str(broken))} is damaged after entry (\d+) \(the last good "
                  rf"entry\): 10 entries were written, only (\d+) remain", result.output)
    assert m and m.group(1) == m.group(2) and int(m.group(1)) < 10, result.output
    kept = int(m.group(1))
    assert f"saves entries 1..{kept}" in result.output
    assert cli(broken, "note", "x", "--op-id", "new").exit_code == 1, "no new entry on a damaged game"
    assert len(intact_export(broken, live.id, tmp_path / "i.json")["entries"]) == kept


def test_a_whole_game_lost_with_the_wal_is_reported(tmp_path):
    db = tmp_path / "live" / "g.sqlite"
    db.parent.mkdir()
    live = notes_game(db, 3)
    live.store.flush_marks()
    copy = tmp_path / "copy" / "g.sqlite"
    _copy_store(db, copy)
    Path(str(copy) + "-wal").write_bytes(b"")     # every frame lost
    result = cli(copy, "list")
    assert result.exit_code == 1
    assert (f"error: game {live.id} in {copy} is missing: 3 entries of it were written on this computer "
            f"(see g.sqlite.seqs); the store lost them") in result.output


def test_a_truncated_store_names_the_last_good_entry_and_exports_it(tmp_path):
    db = tmp_path / "g.sqlite"
    live = notes_game(db, 300, text="a longer note so that the log spans many pages {}")
    live.store.close()
    size = db.stat().st_size
    with open(db, "r+b") as fh:
        fh.truncate(size * 2 // 3)
    result = cli(db, "status")
    assert result.exit_code == 1
    m = re.search(rf"game {live.id} in {re.escape(str(db))} is damaged after entry (\d+) \(the last good entry\): "
                  r"the database file is damaged \(database disk image is malformed\)", result.output)
    assert m and 0 < int(m.group(1)) < 300, result.output
    kept = int(m.group(1))
    data = intact_export(db, live.id, tmp_path / "i.json")
    assert [e["seq"] for e in data["entries"]] == list(range(1, kept + 1))
    assert len(import_game(Store(tmp_path / "new.sqlite"), data).entries()) == kept
    with open(db, "r+b") as fh:
        fh.truncate(50)
    result = cli(db, "list")
    assert result.exit_code == 1 and f"error: {db} is damaged (database disk image is malformed)" in result.output


def test_a_zero_byte_store_is_lost_data_not_a_new_store(tmp_path):
    db = tmp_path / "g.sqlite"
    db.write_bytes(b"")
    result = cli(db, "list")
    assert result.exit_code == 1 and "no games yet" not in result.output
    assert f"error: {db} is empty (0 bytes): a cardpress store is never empty once created, so its data was lost" \
        in result.output
    assert db.stat().st_size == 0, "left as it was"


def test_a_new_store_is_never_left_empty(tmp_path):
    db = tmp_path / "new.sqlite"
    assert cli(db, "list").output.startswith("no games yet")
    assert db.stat().st_size > 0
    assert [p.name for p in tmp_path.iterdir()] == ["new.sqlite"], "no temp file left behind"
    conn = sqlite3.connect(db)
    assert dict(conn.execute("SELECT key, value FROM meta"))["format"] == "cardpress-track-store"
    conn.close()


def test_files_that_are_not_cardpress_stores(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello\n" * 100)
    result = cli(text, "list")
    assert result.exit_code == 1
    assert f"error: {text} is not a cardpress game store (not an SQLite database" in result.output
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE t (x)")
    conn.commit()
    result = cli(other, "list")
    assert result.exit_code == 1
    assert f"error: {other} is not a cardpress game store (it has no cardpress tables)" in result.output
    assert sqlite3.connect(other).execute("SELECT name FROM sqlite_master").fetchall() == [("t",)], "untouched"


def test_a_wal_that_links_elsewhere_is_refused(tmp_path):
    db = tmp_path / "g.sqlite"
    notes_game(db, 2).store.close()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    Path(f"{db}-wal").symlink_to(victim)
    result = cli(db, "note", "x")
    assert result.exit_code == 1
    assert f"error: {db}-wal is a symbolic link; a store's -wal/-shm files must be its own" in result.output
    assert victim.read_text() == "precious\n"


def test_db_a_folder_or_in_a_missing_folder(tmp_path):
    result = cli(tmp_path, "list")
    assert result.exit_code == 1
    assert f"error: {tmp_path} is a folder, not a game store file (give --db a file name)" in result.output
    missing = tmp_path / "nope" / "g.sqlite"
    result = cli(missing, "new", "ridm", "-p", "A,B")
    assert result.exit_code == 1
    assert f"error: cannot create {missing}: the folder {missing.parent} does not exist" in result.output
    assert not missing.parent.exists()


@contextlib.contextmanager
def tmpfs(folder: Path, size: str = "1m"):
    folder.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)], check=True)
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(folder: Path, name: str = "filler") -> Path:
    filler = folder / name
    with open(filler, "wb", buffering=0) as fh:     # unbuffered: nothing left to fail at close
        with contextlib.suppress(OSError):
            while True:
                fh.write(b"\0" * 4096)
    return filler


def test_a_read_only_store_and_folder(tmp_path):
    with tmpfs(tmp_path / "ro") as folder:
        db = folder / "g.sqlite"
        live = notes_game(db, 3)
        live.store.close()
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)
        result = cli(db, "note", "x")
        assert result.exit_code == 1
        assert f"error: {db} is read-only (or its folder is)" in result.output
        result = cli(folder / "new.sqlite", "list")
        assert result.exit_code == 1
        assert f"error: cannot create {folder / 'new.sqlite'}: its folder is read-only" in result.output


def test_a_full_disk_during_a_command(tmp_path):
    with tmpfs(tmp_path / "full") as folder:
        db = folder / "g.sqlite"
        live = notes_game(db, 4)
        before = live.state
        filler = _fill(folder)
        # A process with the store open: the WAL append fails at the command.
        with pytest.raises(DiskFull, match=re.escape(f"the disk is full: could not write {db}")):
            live.do("note", text="x" * 5000, op_id="late")
        assert live.state == before
        live.store.close()                 # its checkpoint removes the WAL: fill what that freed too
        more = _fill(folder, "filler-2")
        # A new process: SQLite cannot even create its -shm/-wal files.
        result = cli(db, "note", "y" * 5000, "--op-id", "later")
        assert result.exit_code == 1, result.output
        assert f"error: the disk is full: could not open {db}; nothing was written" in result.output
        filler.unlink()
        more.unlink()
        again = LiveGame(Store(db), live.id, cards={})
        assert [e.op_id for e in again.entries()] == ["op-1", "op-2", "op-3", "op-4"], "nothing applied, nothing lost"
        assert again.state == before


def test_export_is_atomic_on_a_full_disk(tmp_path):
    db = tmp_path / "g.sqlite"
    live = notes_game(db, 3)
    with tmpfs(tmp_path / "out") as folder:
        out = folder / "game.json"
        assert cli(db, "export", live.id, "-o", str(out)).exit_code == 0
        good = out.read_bytes()
        for k in range(300):
            live.do("note", text=f"a long note number {k} " * 20)
        filler = _fill(folder)
        result = cli(db, "export", live.id, "-o", str(out))
        assert result.exit_code == 1
        assert f"error: cannot write {out}: the disk is full" in result.output
        assert out.read_bytes() == good
        filler.unlink()
        assert sorted(p.name for p in folder.iterdir()) == ["game.json"], "no temp file left behind"


# ---------------------------------------------------------------------------- op ids


def test_an_op_id_reused_for_another_command_is_an_error(tmp_path):
    db = tmp_path / "g.sqlite"
    assert cli(db, "new", "backrooms", "-p", "甲,乙", "--levels", "L0").exit_code == 0
    assert cli(db, "spend", "甲", "3", "--op-id", "x").exit_code == 0
    result = cli(db, "spend", "甲", "2", "--op-id", "x")
    assert result.exit_code == 1
    assert "error: operation id 'x' was already used for `spend 甲 3` (entry 2)" in result.output
    result = cli(db, "gain", "甲", "3", "--op-id", "x")
    assert result.exit_code == 1 and "already used for `spend 甲 3`" in result.output
    result = cli(db, "redo", "--op-id", "x")
    assert result.exit_code == 1 and "already used for `spend 甲 3`" in result.output
    again = cli(db, "spend", "甲", "3", "--op-id", "x")
    assert again.exit_code == 0 and "already applied" in again.output
    status = json.loads(cli(db, "status", "--json").output)
    assert status["players"][0]["cost"] == 2, "applied once"


def test_op_id_reuse_at_the_library_level(tmp_path):
    live = notes_game(tmp_path / "g.sqlite", 3)
    with pytest.raises(OpIdReused, match=re.escape("operation id 'op-3' was already used for `note note-3`")):
        live.do("note", text="different", op_id="op-3")
    assert live.do("note", text="note-3", op_id="op-3").repeated
    assert live.store.last_seq(live.id) == 3


# ---------------------------------------------------------------------------- import


@pytest.fixture
def exported(tmp_path):
    db = tmp_path / "g.sqlite"
    live = notes_game(db, 4)
    live.undo(op_id="u1")
    return json.loads(json.dumps(live.export())), live


def _refused(tmp_path, data, *fragments: str, raw: bytes | None = None) -> None:
    log = tmp_path / "log.json"
    log.write_bytes(raw if raw is not None else json.dumps(data).encode())
    db = tmp_path / "target.sqlite"
    result = cli(db, "import", str(log), "--as", "copy")
    assert result.exit_code == 1, result.output
    for fragment in fragments:
        assert fragment in result.output, result.output
    assert str(log) in result.output
    if db.exists():
        assert cli(db, "list").output.startswith("no games yet"), "nothing was stored"


def test_an_intact_export_imports(tmp_path, exported):
    data, live = exported
    log = tmp_path / "ok.json"
    log.write_text(json.dumps(data))
    result = cli(tmp_path / "t.sqlite", "import", str(log), "--as", "copy")
    assert result.exit_code == 0 and result.output.splitlines()[0] == "copy"


def test_import_refuses_an_unknown_event_type(tmp_path, exported):
    data, _ = exported
    data["entries"][2]["events"][0]["type"] = "Bogus"
    _refused(tmp_path, data, "field 'events[0].type': entry 3: unknown Event type 'Bogus'")


def test_import_refuses_a_string_where_an_int_goes(tmp_path, exported):
    data, _ = exported
    event = next(e for e in data["entries"][0]["events"] if e["type"] == "TurnBegan")
    event["turn"] = "1"
    _refused(tmp_path, data, "entry 1: expected a whole number, got '1'", ".turn'")


def test_import_refuses_nan_infinity_and_huge_numbers(tmp_path, exported):
    data, _ = exported
    text = json.dumps(data)
    _refused(tmp_path, None, "not a JSON game log (NaN is not a number a game log can hold)",
             raw=text.replace('"created": ', '"created": NaN, "x": ', 1).encode())
    _refused(tmp_path, None, "Infinity is not a number", raw=text.replace('"seq": 2', '"seq": Infinity', 1).encode())
    _refused(tmp_path, None, "has 101 digits (at most 18)", raw=text.replace('"seq": 2', f'"seq": {10**100}', 1).encode())
    _refused(tmp_path, None, "out of range", raw=text.replace('"seq": 2', '"seq": 1e400', 1).encode())


def test_import_refuses_a_gap_in_seq(tmp_path, exported):
    data, _ = exported
    data["entries"][3]["seq"] = 9
    _refused(tmp_path, data, "entry 4: seq 9 where 4 was expected (a gap or a reordering in the log)")


def test_import_refuses_undo_of_a_non_existent_target(tmp_path, exported):
    data, _ = exported
    data["entries"][4]["target"] = 99
    for entry in data["entries"]:
        entry.pop("digest")                       # no chain: the replay must catch it on its own
    _refused(tmp_path, data, "log entry 5: undo of 99, which is not the last command in effect")


def test_import_refuses_a_seat_that_does_not_exist(tmp_path, exported):
    data, _ = exported
    next(e for e in data["entries"][0]["events"] if e["type"] == "TurnBegan")["player"] = 7
    for entry in data["entries"]:
        entry.pop("digest")
    _refused(tmp_path, data, "log entry 1: TurnBegan.player is 7, but the game has 2 players")


def test_import_checks_the_digest_chain(tmp_path, exported):
    data, _ = exported
    data["entries"][1]["args"]["text"] = "rewritten"
    _refused(tmp_path, data, "entry 2: its checksum does not match (the log was altered after export)")


def test_import_refuses_a_wrong_player_count(tmp_path, exported):
    data, _ = exported
    data["game"]["players"] = ["A", "B", "C"]
    _refused(tmp_path, data, "field 'game.players': the log has 3 players; ridm is for 2")


def test_import_refuses_a_game_id_that_is_not_usable(tmp_path, exported):
    data, _ = exported
    data["game"]["id"] = "../../evil"
    log = tmp_path / "log.json"
    log.write_text(json.dumps(data))
    result = cli(tmp_path / "t.sqlite", "import", str(log))
    assert result.exit_code == 1
    assert f"{log}, field 'game.id': game id '../../evil' is not usable" in result.output
    result = cli(tmp_path / "t.sqlite", "import", str(log), "--as", "a b")
    assert result.exit_code == 1 and "field '--as': game id 'a b' is not usable" in result.output


def test_import_refuses_a_file_over_the_limit(tmp_path, exported):
    from engine.limits import MAX_IMPORT_BYTES

    log = tmp_path / "huge.json"
    with open(log, "wb") as fh:
        fh.truncate(MAX_IMPORT_BYTES + 1024 * 1024)   # 65 MB, sparse
    result = cli(tmp_path / "t.sqlite", "import", str(log))
    assert result.exit_code == 1
    assert f"game log '{log}' is larger than 64 MB; cardpress refuses files this large" in result.output


def test_import_refuses_deep_nesting(tmp_path):
    with pytest.raises(DataError, match="nested"):
        parse_log(b"[" * 100_000 + b"]" * 100_000)


JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
                    | st.text(max_size=8),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                    max_leaves=6)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


@pytest.fixture(scope="module")
def valid_log(tmp_path_factory):
    live = notes_game(tmp_path_factory.mktemp("fuzz") / "g.sqlite", 3)
    live.do("next")
    live.undo()
    return json.loads(json.dumps(live.export()))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(data=st.data())
def test_import_fuzzing_raises_only_cardpress_errors(tmp_path, valid_log, data):
    log = json.loads(json.dumps(valid_log))
    for _ in range(data.draw(st.integers(1, 3))):
        paths = list(_paths(log))
        path = data.draw(st.sampled_from(paths))
        replacement = data.draw(JSON)
        if not path:
            log = replacement
            continue
        parent = log
        for key in path[:-1]:
            parent = parent[key]
        if data.draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = replacement
    store = Store(tmp_path / "fuzz.sqlite")
    try:
        live = import_game(store, parse_log(json.dumps(log).encode()), game_id=f"g{data.draw(st.integers(0, 10**9))}")
        # What was accepted must also show: the board, the status JSON and the log.
        live_status(live), board(live), log_text(live)
    except CardpressError:
        pass
    finally:
        store.close()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(data=st.data())
def test_import_of_damaged_bytes_raises_only_cardpress_errors(tmp_path, valid_log, data):
    raw = bytearray(json.dumps(valid_log, ensure_ascii=False).encode())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.integers(0, 255))
    store = Store(tmp_path / "bytes.sqlite")
    try:
        import_game(store, parse_log(bytes(raw)), game_id=f"b{data.draw(st.integers(0, 10**9))}")
    except CardpressError:
        pass
    finally:
        store.close()


# ---------------------------------------------------------------------------- two writers


def test_two_writers_lose_and_duplicate_nothing(tmp_path):
    db = tmp_path / "g.sqlite"
    live = notes_game(db, 1)
    acked: list[str] = []
    errors: list[BaseException] = []
    per_writer = 40

    def writer(name: str) -> None:
        try:
            mine = LiveGame(Store(db), live.id, cards={})
            for k in range(per_writer):
                op = f"{name}-{k}"
                mine.do("note", text=op, op_id=op)
                acked.append(op)
                if k % 10 == 9:
                    mine.do("note", text=op, op_id=op)    # a retry in the middle of the other's writes
        except BaseException as exc:  # noqa: BLE001 — reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    final = LiveGame(Store(db), live.id, cards={}, use_snapshots=False)
    entries = final.entries()
    assert [e.seq for e in entries] == list(range(1, 2 * per_writer + 2))
    ops = [e.op_id for e in entries[1:]]
    assert sorted(ops) == sorted(acked) and len(set(ops)) == len(ops) == 2 * per_writer
    assert final.store.verify(live.id)[0] == len(entries)


def test_a_writer_committing_while_another_verifies_is_not_damage(tmp_path, monkeypatch):
    # The race behind a rare two-writer failure: a reader walked the table, another writer then
    # committed and recorded its mark in FILE.seqs, and the reader — reading the marks only
    # now — saw a mark beyond its walk and called the store damaged. Marks are read first.
    db = tmp_path / "g.sqlite"
    live = notes_game(db, 3)
    other = LiveGame(Store(db), live.id, cards={})
    reader = Store(db)
    walk = Store._walk

    def walk_then_other_commits(self, game_id):
        result = walk(self, game_id)
        if self is reader:
            other.do("note", text="meanwhile")
            other.store.flush_marks()
        return result

    monkeypatch.setattr(Store, "_walk", walk_then_other_commits)
    assert reader.verify(live.id)[0] == 3          # what it walked; the newer entry is no damage
    assert reader.recorded(live.id) == 4
    monkeypatch.setattr(Store, "_walk", walk)
    assert reader.verify(live.id)[0] == 4


def test_a_writer_committing_during_the_walk_is_not_a_damaged_index(tmp_path, monkeypatch):
    # The same family of race: the walk read the table, the other writer committed, and the
    # index check (a second SELECT) found one entry more than the walk. Both now read one snapshot.
    from engine.tracker import store as store_module

    db = tmp_path / "g.sqlite"
    live = notes_game(db, 3)
    other = LiveGame(Store(db), live.id, cards={})
    reader = Store(db)
    fits, fired = store_module._row_fits, []

    def row_fits_while_another_commits(row):
        if not fired:
            fired.append(True)
            other.do("note", text="meanwhile")
        return fits(row)

    monkeypatch.setattr(store_module, "_row_fits", row_fits_while_another_commits)
    assert reader.verify(live.id)[0] == 3 and fired
    monkeypatch.setattr(store_module, "_row_fits", fits)
    assert reader.verify(live.id)[0] == 4


def test_store_errors_are_cardpress_errors():
    for cls in (StoreDamaged, StoreUnavailable, DiskFull, NotAStore, OpIdReused):
        assert issubclass(cls, CardpressError)
