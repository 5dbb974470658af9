"""Several tables on one store, a first player drawn at random, a game that outlives its folder.

Through the CLI as players use it (two "terminals" are two ``CARDPRESS_GAME`` values) and
through the library where the point is what is stored.
"""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from typer.testing import CliRunner

from engine.tracker import Store

from engine.live import LiveGame, import_game
from engine.live import session as session_mod
from engine.live.session import WhichGame, pick_game
from pipeline.cli.track import app

runner = CliRunner()


def cli(db, *args, env=None, input=None):
    return runner.invoke(app, [*args, "--db", str(db)], env={"CARDPRESS_GAME": None, **(env or {})}, input=input)


def started(db, *args) -> str:
    result = cli(db, "new", *args)
    assert result.exit_code == 0, result.output
    game_id = result.output.splitlines()[0]
    assert result.output.splitlines()[1].startswith(f"export CARDPRESS_GAME={game_id}")
    return game_id


def commands_of(db, game_id) -> list[tuple[str, dict]]:
    conn = sqlite3.connect(db)
    try:
        return [(c, json.loads(a)) for c, a in conn.execute(
            "SELECT command, args FROM entries WHERE game_id = ? AND kind = 'command' ORDER BY seq", (game_id,))]
    finally:
        conn.close()


# ---------------------------------------------------------------------------- two tables, one store


def test_two_terminals_never_cross_and_a_bare_command_is_refused_with_both_games(tmp_path):
    db = tmp_path / "games.sqlite"
    duel = started(db, "duel", "-p", "甲,乙")
    ridm = started(db, "ridm", "-p", "X,Y")
    table_1, table_2 = {"CARDPRESS_GAME": duel}, {"CARDPRESS_GAME": ridm}

    assert cli(db, "life", "乙", "-3", env=table_1).exit_code == 0
    assert cli(db, "note", "第二桌", env=table_2).exit_code == 0
    assert cli(db, "note", "第一桌", env=table_1).exit_code == 0
    assert commands_of(db, duel) == [("life", {"delta": -3, "player": "乙", "why": ""}),
                                    ("note", {"text": "第一桌"})]
    assert commands_of(db, ridm) == [("note", {"text": "第二桌"})]
    assert json.loads(cli(db, "status", "--json", env=table_2).output)["id"] == ridm

    # The game started last is not a default any more: without an id, nothing is guessed.
    bare = cli(db, "note", "哪一桌？")
    assert bare.exit_code == 1
    assert "2 games in" in bare.output and "are in progress" in bare.output
    assert f"{duel}  duel  甲 vs 乙  (last activity " in bare.output
    assert f"{ridm}  ridm  X vs Y  (last activity " in bare.output
    assert "--game ID" in bare.output and "export CARDPRESS_GAME=ID" in bare.output
    assert len(commands_of(db, duel)) == 2 and len(commands_of(db, ridm)) == 1, "the refused note went nowhere"
    assert cli(db, "status").exit_code == 1 and cli(db, "undo").exit_code == 1

    # --game on the command line wins over the terminal's variable.
    assert cli(db, "note", "借用", "--game", ridm, env=table_1).exit_code == 0
    assert commands_of(db, ridm)[-1] == ("note", {"text": "借用"})

    # Once a game ends it is no longer in progress: bare commands go to the other one.
    assert cli(db, "concede", "乙", env=table_1).exit_code == 0
    listing = cli(db, "list").output
    assert f"{duel}  duel  甲 vs 乙  finished" in listing and f"{ridm}  ridm  X vs Y  in progress" in listing
    alone = cli(db, "note", "只剩一桌")
    assert alone.exit_code == 0 and f"→ game {ridm} (the only game in progress in this store" in alone.stderr
    assert commands_of(db, ridm)[-1] == ("note", {"text": "只剩一桌"})
    assert [c for c, _ in commands_of(db, duel)] == ["life", "note", "concede"]

    # Undoing the end puts the game back in progress, and bare commands are refused again.
    assert cli(db, "undo", env=table_1).exit_code == 0
    assert cli(db, "note", "又是两桌").exit_code == 1


def test_an_unknown_game_in_the_terminal_variable_is_named_as_such(tmp_path):
    db = tmp_path / "games.sqlite"
    started(db, "duel", "-p", "甲,乙")
    result = cli(db, "status", env={"CARDPRESS_GAME": "duel-000000"})
    assert result.exit_code == 1
    assert "no game 'duel-000000'" in result.output and "CARDPRESS_GAME=duel-000000 is set in this terminal" in result.output


def test_the_only_game_needs_no_id_even_finished_and_several_finished_are_refused(tmp_path):
    db = tmp_path / "games.sqlite"
    assert "no game in" in cli(db, "status").output
    first = started(db, "duel", "-p", "甲,乙")
    assert cli(db, "concede", "甲").exit_code == 0
    log = cli(db, "log")
    assert log.exit_code == 0 and "认输" in log.output, "a store's only game is never ambiguous"
    second = started(db, "duel", "-p", "丙,丁")
    assert cli(db, "concede", "丁").exit_code == 0
    result = cli(db, "log")
    assert result.exit_code == 1 and "no game in" in result.output and "is in progress" in result.output
    assert first in result.output and second in result.output


def test_an_old_stores_current_game_is_ignored_and_deleted(tmp_path):
    db = tmp_path / "games.sqlite"
    a = LiveGame.new(Store(db), "duel", ("甲", "乙"))
    b = LiveGame.new(a.store, "ridm", ("X", "Y"))
    a.store.close()
    b.store.close()
    conn = sqlite3.connect(db)                     # as schema 2 left it: no definitions, a "current" game
    conn.execute("ALTER TABLE games DROP COLUMN definition")
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    conn.execute("INSERT INTO meta(key, value) VALUES ('current', ?)", (b.id,))
    conn.commit()
    conn.close()
    store = Store(db)
    with pytest.raises(WhichGame, match=a.id):
        pick_game(store)
    assert LiveGame(store, b.id).state == b.state
    meta = dict(sqlite3.connect(db).execute("SELECT key, value FROM meta"))
    assert meta["schema"] == "3" and "current" not in meta


# ---------------------------------------------------------------------------- a random first player


def test_a_random_first_player_is_drawn_once_logged_and_replayed(tmp_path, monkeypatch):
    db = tmp_path / "games.sqlite"
    draws = []
    real = session_mod.secrets.randbelow

    def counted(n):
        draws.append(n)
        return real(n)

    monkeypatch.setattr(session_mod.secrets, "randbelow", counted)
    seen = set()
    for k in range(12):
        live = LiveGame.new(Store(db), "duel", ("甲", "乙"), first="random", game_id=f"g{k}")
        first = live.row.players[live.state.first]
        seen.add(first)
        start = live.entries()[0]
        assert start.args["first"] == first and start.args["first_drawn"] == "random"
        assert live.state.active == live.state.first
        again = LiveGame(Store(db), live.id, use_snapshots=False)
        copy = import_game(Store(tmp_path / f"copy{k}.sqlite"), json.loads(json.dumps(live.export())))
        assert again.state == live.state and copy.state == live.state
    assert draws == [2] * 12, "each game drew once, at setup; reopening and importing drew nothing"
    assert seen == {"甲", "乙"}, "12 draws of a fair seat never all landed on one player (p = 1/2048)"

    result = cli(db, "new", "duel", "-p", "丙,丁", "--first", "random")
    assert result.exit_code == 0, result.output
    game_id = result.output.splitlines()[0]
    log = cli(db, "log", "--game", game_id).output
    drawn = "丙" if "随机决定先手：丙" in log else "丁"
    assert f"先手{drawn} —— 随机决定先手：{drawn}" in log
    assert json.loads(cli(db, "status", "--json", "--game", game_id).output)["first"] == drawn


def test_first_is_a_player_a_seat_or_random_and_nothing_else(tmp_path):
    store = Store(tmp_path / "games.sqlite")
    assert LiveGame.new(store, "duel", ("甲", "乙"), first="2").state.first == 1
    named = LiveGame.new(store, "duel", ("random", "乙"), first="random")
    assert named.state.first == 0 and "first_drawn" not in named.entries()[0].args, "a player named random"
    with pytest.raises(Exception, match="'丙' is not one of the players .*'random'"):
        LiveGame.new(store, "duel", ("甲", "乙"), first="丙")


# ---------------------------------------------------------------------------- a game outlives its folder


def test_a_folder_game_keeps_working_after_its_folder_is_deleted(tmp_path, game_copy):
    db = tmp_path / "games.sqlite"
    folder = game_copy("ridm")
    game_id = started(db, str(folder), "-p", "X,Y")
    assert cli(db, "next").exit_code == 0
    assert cli(db, "activate", "X", "S2", "--operator", "能天使", "--duration", "2", "--cost", "0").exit_code == 0
    shutil.rmtree(folder)

    note = f"规则定义：游戏文件夹已不存在（被移动或删除），使用开局时保存的 game.yaml（{folder}）；卡牌数据不可用"
    status = cli(db, "status")
    assert status.exit_code == 0 and note in status.output and game_id in status.output
    as_json = cli(db, "status", "--json")
    data = json.loads(as_json.stdout)
    assert data["stored_definition"] == note and data["game"] == "ridm" and note in as_json.stderr
    log = cli(db, "log")
    assert log.exit_code == 0 and note in log.output and "发动" in log.output
    assert cli(db, "next").exit_code == 0, "a command of numbers only"
    undo = cli(db, "undo")
    assert undo.exit_code == 0 and "撤销" in undo.output
    # A command that looks a card up says the card data is unknown, and why.
    action = cli(db, "action", "X", "紧急撤离")
    assert action.exit_code == 1
    assert ("unknown action card '紧急撤离'" in action.output and "the card data is unknown: its game folder is gone"
            in action.output and str(folder) in action.output)

    out = tmp_path / "game.json"
    assert cli(db, "export", game_id, "-o", str(out)).exit_code == 0
    exported = json.loads(out.read_text(encoding="utf-8"))
    assert exported["game"]["game"] == str(folder) and "rules:" in exported["game"]["definition"]
    other = tmp_path / "other.sqlite"
    assert cli(other, "import", str(out)).exit_code == 0, "imported on a machine that never had the folder"
    copied = json.loads(cli(other, "status", "--json").stdout)
    assert (copied["turn"], copied["phase"]) == (data["turn"], json.loads(cli(db, "status", "--json").stdout)["phase"])
    assert copied["stored_definition"] == note


def test_a_changed_game_yaml_does_not_change_a_game_in_progress(tmp_path, game_copy):
    db = tmp_path / "games.sqlite"
    folder = game_copy("ridm")
    live = LiveGame.new(Store(db), folder, ("X", "Y"))
    start = live.state.players[0].sanity
    yaml_path = folder / "game.yaml"
    text = yaml_path.read_text(encoding="utf-8")
    assert f"starting_sanity: {start}" in text
    yaml_path.write_text(text.replace(f"starting_sanity: {start}", f"starting_sanity: {start + 4}"),
                         encoding="utf-8")
    again = LiveGame(Store(db), live.id, use_snapshots=False)
    assert again.state == live.state and again.defn.rules == live.defn.rules
    assert again.definition_note.startswith("规则定义：game.yaml 在开局后被修改，使用开局时保存的 game.yaml")
    assert LiveGame.new(again.store, folder, ("X", "Y")).state.players[0].sanity == start + 4, \
        "a new game reads the folder as it is now"
    # Restored to the text the game started with, the folder (and its cards) is used again.
    yaml_path.write_text(text, encoding="utf-8")
    assert LiveGame(Store(db), live.id).definition_note == ""


def test_the_stored_definition_is_sealed_by_the_chain(tmp_path, game_copy):
    db = tmp_path / "games.sqlite"
    live = LiveGame.new(Store(db), game_copy("ridm"), ("X", "Y"))
    live.store.close()
    conn = sqlite3.connect(db)
    conn.execute("UPDATE games SET definition = definition || '#' WHERE id = ?", (live.id,))
    conn.commit()
    conn.close()
    result = cli(db, "status")
    assert result.exit_code == 1
    assert "entry 1 (or the game's row it seals: its game, players and stored definition) does not match" in result.output


def test_shipped_games_keep_no_definition(tmp_path):
    live = LiveGame.new(Store(tmp_path / "games.sqlite"), "duel", ("甲", "乙"))
    assert live.row.game == "duel" and live.row.definition is None
    assert "definition" not in live.export()["game"]


def test_a_game_is_in_progress_until_its_end_is_in_effect(tmp_path):
    store = Store(tmp_path / "games.sqlite")
    a = LiveGame.new(store, "duel", ("甲", "乙"), game_id="a")
    LiveGame.new(store, "ridm", ("X", "Y"), game_id="b")
    a.do("note", text="concede 乙")                # a typed text is never taken for an ending
    assert store.ended() == set()
    a.do("concede", player="乙")
    assert store.ended() == {"a"} and pick_game(store) == "b"
    a.undo()
    assert store.ended() == set()
    a.redo()
    assert store.ended() == {"a"}
    a.undo()
    a.do("life", player="甲", delta=-1)             # the undone end can no longer come back
    assert store.ended() == set()


def test_an_export_carries_its_definition_sealed_and_only_for_a_folder(tmp_path, game_copy):
    live = LiveGame.new(Store(tmp_path / "games.sqlite"), game_copy("ridm"), ("X", "Y"))
    data = json.loads(json.dumps(live.export()))
    tampered = json.loads(json.dumps(data))
    tampered["game"]["definition"] = data["game"]["definition"].replace("starting_sanity: 3", "starting_sanity: 9")
    log = tmp_path / "t.json"
    log.write_text(json.dumps(tampered), encoding="utf-8")
    result = cli(tmp_path / "other.sqlite", "import", str(log))
    assert result.exit_code == 1 and "entry 1: its checksum does not match" in result.output
    shipped = json.loads(json.dumps(LiveGame.new(live.store, "ridm", ("X", "Y")).export()))
    shipped["game"]["definition"] = data["game"]["definition"]
    log.write_text(json.dumps(shipped), encoding="utf-8")
    result = cli(tmp_path / "other.sqlite", "import", str(log))
    assert result.exit_code == 1 and "game.definition" in result.output and "belongs to a game folder" in result.output


def test_an_old_folder_game_without_a_stored_definition_reads_its_folder_as_before(tmp_path, game_copy):
    db = tmp_path / "games.sqlite"
    folder = game_copy("ridm")
    live = LiveGame.new(Store(db), folder, ("X", "Y"))
    live.do("note", text="旧对局")
    live.store.close()
    conn = sqlite3.connect(db)                     # as schema 2 stored it: the folder's path only
    conn.execute("ALTER TABLE games DROP COLUMN definition")
    conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    from engine.tracker.store import chain_seed, entry_digest
    previous = chain_seed(str(folder), "ridm", ("X", "Y"))
    for entry in live.entries():                   # its chain was seeded without a definition
        previous = entry_digest(previous, entry)
        conn.execute("UPDATE entries SET digest = ? WHERE game_id = ? AND seq = ?", (previous, live.id, entry.seq))
    conn.commit()
    conn.close()
    (tmp_path / "games.sqlite.seqs").unlink()     # it recorded the new chain's digests
    again = LiveGame(Store(db), live.id)
    assert again.row.definition is None and again.definition_note == "" and again.state == live.state
    shutil.rmtree(folder)
    result = cli(db, "status")
    assert result.exit_code == 1 and f"no game {str(folder)!r}" in result.output
