"""``cardpress track`` through Typer's test runner: exit codes, messages, JSON keys, play mode."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from pipeline.cli.track import app

runner = CliRunner()


@pytest.fixture
def db(tmp_path):
    return str(tmp_path / "games.sqlite")


def run(db, *args, input=None):
    return runner.invoke(app, [*args, "--db", db], input=input)


def test_new_status_json_and_next(db):
    result = run(db, "new", "backrooms", "--players", "A", "B", "--levels", "Level 0,Level 1")
    assert result.exit_code == 0, result.output
    game_id = result.output.splitlines()[0]
    assert game_id.startswith("backrooms-")
    assert "抽牌阶段" in result.output
    status = json.loads(run(db, "status", "--json").output)
    for key in ("game", "turn", "round", "phase", "active", "over", "winner", "players", "level", "rounds_to_cut"):
        assert key in status
    assert status["phase"] == "draw" and status["game"] == "backrooms" and status["id"] == game_id
    assert set(status["players"][0]) >= {"name", "cost", "outposts", "outposts_destroyed", "carries_left"}
    result = run(db, "next")
    assert result.exit_code == 0 and "获得1费用" in result.output
    assert json.loads(run(db, "status", "--json").output)["phase"] == "prepare"


def test_refused_commands_exit_1_with_a_message(db):
    run(db, "new", "backrooms", "-p", "A,B", "--levels", "L0")
    result = run(db, "spend", "A", "99")
    assert result.exit_code == 1 and "error: A has 5 cost; cannot spend 99" in result.output
    result = run(db, "spend", "Z", "1")
    assert result.exit_code == 1 and "unknown player 'Z'" in result.output
    result = run(db, "life", "A", "-3")
    assert result.exit_code == 1 and "unknown command 'life' for backrooms" in result.output
    result = run(db, "undo")
    assert result.exit_code == 1 and "nothing to undo" in result.output


def test_op_id_retry_applies_once(db):
    run(db, "new", "backrooms", "-p", "A,B", "--levels", "L0")
    assert run(db, "gain", "A", "2", "--op-id", "x1").exit_code == 0
    again = run(db, "gain", "A", "2", "--op-id", "x1")
    assert again.exit_code == 0 and "already applied" in again.output
    assert json.loads(run(db, "status", "--json").output)["players"][0]["cost"] == 7


def test_chain_commands_and_log(db):
    run(db, "new", "backrooms", "-p", "A,B", "--levels", "L0")
    run(db, "chain", "push", "A", "对手弃1张牌")
    run(db, "chain", "push", "B", "无效", "--negates", "1")
    result = run(db, "chain", "resolve")
    assert result.exit_code == 0
    assert result.output.index("处理连锁2") < result.output.index("处理连锁1")
    assert "连锁处理顺序：2 → 1" in result.output
    log = run(db, "log").output
    assert "发动效果（连锁）" in log and "chain_push" not in log and "连锁后发先至" in log


def test_duel_game_over_and_acting_after_it(db):
    run(db, "new", "duel", "-p", "A", "-p", "B", "--first", "B")
    status = json.loads(run(db, "status", "--json").output)
    assert status["active"] == "B" and status["phase"] == "main"
    assert set(status["players"][0]) >= {"name", "life", "deck", "descents_used", "in_turn_skills_used"}
    result = run(db, "life", "A", "-20")
    assert result.exit_code == 0 and "对局结束：B获胜" in result.output
    result = run(db, "next")
    assert result.exit_code == 1 and "game is over" in result.output
    status = json.loads(run(db, "status", "--json").output)
    assert status["over"] and status["winner"] == "B"
    assert run(db, "undo").exit_code == 0
    assert not json.loads(run(db, "status", "--json").output)["over"]


def test_ridm_commands(db):
    run(db, "new", "ridm", "-p", "A,B")
    run(db, "next")
    assert run(db, "charge", "A", "2").exit_code == 0
    assert run(db, "activate", "A", "S2", "--operator", "能天使", "--duration", "1", "--cost", "2").exit_code == 0
    result = run(db, "can-play", "A", "2")
    assert result.exit_code == 1 and "不能" in result.output
    status = json.loads(run(db, "status", "--json").output)
    assert status["players"][0]["sanity"] == 3
    assert status["players"][0]["timers"] == [{"operator": "能天使", "skill": "S2", "turns_left": 1}]
    run(db, "next")
    result = run(db, "next")
    assert "到期" in result.output


def test_list_resume_export_import(db, tmp_path):
    first = run(db, "new", "duel", "-p", "A,B").output.splitlines()[0]
    second = run(db, "new", "ridm", "-p", "X,Y").output.splitlines()[0]
    listing = run(db, "list").output
    assert f"{second}  ridm  X vs Y  in progress" in listing and f"{first}  duel  A vs B  in progress" in listing
    resumed = run(db, "resume", first)
    assert resumed.exit_code == 0 and f"export CARDPRESS_GAME={first}" in resumed.output
    # Resuming no longer makes a game "current": with two games in progress, status must be told.
    assert run(db, "status", "--json").exit_code == 1
    assert json.loads(run(db, "status", "--json", "--game", first).output)["game"] == "duel"
    out = tmp_path / "game.json"
    assert run(db, "export", first, "-o", str(out)).exit_code == 0
    other = str(tmp_path / "other.sqlite")
    result = runner.invoke(app, ["import", str(out), "--db", other])
    assert result.exit_code == 0 and result.output.splitlines() == [
        first, f"export CARDPRESS_GAME={first}    # this terminal's commands then go to this game"]
    result = runner.invoke(app, ["import", str(out), "--db", other])
    assert result.exit_code == 1 and "already exists" in result.output
    assert run(db, "resume", "nope").exit_code == 1


def test_play_mode_reads_commands_from_stdin(db):
    run(db, "new", "backrooms", "-p", "A,B", "--levels", "L0,L1")
    result = run(db, "play", input="\nn\nspend A 2\nspend A 99\nu\nbogus\nq\n")
    assert result.exit_code == 0, result.output
    assert "【主要阶段】" in result.output
    assert "cannot spend 99" in result.output and "unknown command 'bogus'" in result.output
    assert "撤销" in result.output
    status = json.loads(run(db, "status", "--json").output)
    assert status["phase"] == "main" and status["players"][0]["cost"] == 6


def test_every_command_has_help_with_an_example():
    import typer.main

    group = typer.main.get_command(app)
    names = []

    def walk(cmd, prefix):
        for name, sub in getattr(cmd, "commands", {}).items():
            if getattr(sub, "commands", None):
                walk(sub, prefix + [name])
            else:
                names.append(" ".join(prefix + [name]))
                assert sub.help and "Example:" in sub.help, f"track {name} lacks an Example in its help"
                assert any(p.name == "db" for p in sub.params), f"track {name} lacks --db"

    walk(group, [])
    assert {"new", "status", "next", "undo", "redo", "log", "list", "resume", "export", "import", "play",
            "chain push", "spend", "life", "sanity"} <= set(names)


def test_words_two_games_declare_differently_are_read_by_the_games_own_declaration(db):
    """backrooms declares ``attack UNIT TARGET``, duel ``attack FIGHTER TARGET --pierce`` (ridm and
    duel both ``move``): the CLI read them all by whichever game declared the words first, so a
    duel attack reached duel's rules as ``unit=…`` (refused: no parameter unit)."""
    run(db, "new", "duel", "-p", "A,B")
    result = run(db, "attack", "A1", "B1", "--pierce")
    assert result.exit_code == 1 and "no attacking fighter 'A1'" in result.output, result.output
    result = run(db, "attack", "A1")
    assert result.exit_code == 2 and "attack (duel): missing argument TARGET" in result.output
    help_text = runner.invoke(app, ["attack", "--help"]).output
    assert "backrooms: attack UNIT TARGET" in help_text and "duel: attack FIGHTER TARGET" in help_text
