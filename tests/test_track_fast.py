"""The fast path of ``cardpress track <command>`` (``pipeline.main``): same output and exit code as
the Typer app, without Typer or pydantic, and definitions only from their sealed cache.

Each check runs real processes (the fast path is only taken by a fresh one): the command on the
fast path, and the same command with ``CARDPRESS_FAST=0`` (the Typer app).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.tracker import Store

from engine.live import LiveGame

REPO = Path(__file__).resolve().parent.parent
#: Run as the installed ``cardpress`` script runs; prints, at exit, which heavy packages were imported.
ENTRY = ("import atexit, sys\n"
         "atexit.register(lambda: sys.stderr.write('loaded:' + ','.join(m for m in ('typer', 'click', 'rich', "
         "'pydantic', 'yaml', 'engine.cards', 'zipfile', 'csv') if m in sys.modules) + '\\n'))\n"
         "sys.argv[0] = 'cardpress'\nfrom pipeline import main\nmain()")


def cardpress(db: Path, *words: str, env: dict[str, str] | None = None):
    """``cardpress WORDS`` in a fresh process, as the installed script runs it: (exit code,
    stdout, stderr without the ``loaded:`` line, the heavy packages it imported)."""
    run_env = {**os.environ, "CARDPRESS_DB": str(db)}
    run_env.pop("CARDPRESS_GAME", None)
    run_env.update(env or {})
    proc = subprocess.run([sys.executable, "-c", ENTRY, *words], env=run_env, cwd=REPO, capture_output=True,
                          text=True, timeout=60)
    lines = proc.stderr.splitlines(keepends=True)
    loaded = next((l for l in reversed(lines) if l.startswith("loaded:")), "loaded:").strip()
    stderr = "".join(l for l in lines if not l.startswith("loaded:"))
    return proc.returncode, proc.stdout, stderr, set(filter(None, loaded[len("loaded:"):].split(",")))


def typer_app(db: Path, *words: str, env: dict[str, str | None] | None = None) -> tuple[int, str, str]:
    """The same command through the Typer app (in this process: it never takes the fast path)."""
    from typer.testing import CliRunner

    from pipeline.cli.app import app

    result = CliRunner().invoke(app, list(words), env={"CARDPRESS_DB": str(db), "CARDPRESS_GAME": None, **(env or {})})
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "games.sqlite"
    with Store(path) as store:  # in this process: validates the definition and caches it checked
        live = LiveGame.new(store, "backrooms", ("A", "B"), levels=("Level 0", "Level 1"))
        live.do("next")
        live.do("gain", player="A", amount=2)
    return path


def same(db: Path, *words: str) -> tuple[int, str, str, set[str]]:
    """Run ``words`` on the fast path and on the Typer app: they must print the same and exit the same."""
    fast = cardpress(db, *words)
    assert fast[:3] == typer_app(db, *words), f"fast and Typer paths differ for {words}"
    return fast


@pytest.mark.parametrize("words", [
    ("track", "status"),
    ("track", "status", "--json"),
    ("track", "log", "--tail", "2"),
    ("track", "log", "--json", "--tail=1"),
    ("track", "spend", "A", "999"),            # refused by the rules: exit 1, error on stderr
    ("track", "spend", "A", "x"),              # a bad argument the declaration refuses: exit 1
    ("track", "gain", "A", "-3"),              # a negative number, not an option
    ("track", "attack", "A9", "B9"),           # words duel declares too, read by backrooms' declaration
])
def test_fast_and_typer_print_the_same_and_fast_skips_typer_and_pydantic(db, words):
    """…and PyYAML and the card readers too: a checked definition needs no YAML, and a command
    that names no card reads no card file (those imports were a fifth of a command's time)."""
    code, out, err, loaded = same(db, *words)
    assert loaded == set(), f"the fast path imported {loaded}"
    if words[1] == "spend":
        assert code == 1 and err.startswith("error: ")


@pytest.mark.parametrize("words", [
    ("track", "spend", "A"),                   # missing argument: Click's usage and exit 2
    ("track", "gain", "A", "1", "--bogus"),
    ("track", "attack", "A9"),                 # the game's declaration says what is missing
    ("track", "spend", "A", "1", "--why", "-g", "x"),   # Click takes -g as the reason: so must we
    ("track", "status", "--help"),
    ("track", "nope"),                          # no such command
    ("track", "life", "A", "-3"),              # another game's command: the rules refuse it
])
def test_what_the_fast_path_does_not_read_goes_to_typer_unchanged(db, words):
    code, out, err, loaded = same(db, *words)
    assert "typer" in loaded
    assert code != 0 or "--help" in words


def test_commands_that_change_the_game_are_applied_once_and_alike(db):
    code, out, err, loaded = cardpress(db, "track", "next", "--op-id", "k1")
    assert code == 0 and loaded == set() and out
    again = typer_app(db, "track", "next", "--op-id", "k1")   # a retry, on the Typer path
    assert again[:2] == (0, "operation k1 was already applied as #4: nothing changed\n")
    assert cardpress(db, "track", "undo")[0] == 0
    assert typer_app(db, "track", "next") == (code, out, err)   # from the same state
    assert json.loads(cardpress(db, "track", "status", "--json")[1]) == json.loads(
        typer_app(db, "track", "status", "--json")[1])


def test_undo_and_redo_print_the_same_on_both_paths(db):
    undone = cardpress(db, "track", "undo")
    # The undone command as players read it (its label and arguments), never its internal name.
    assert undone[0] == 0 and undone[1].startswith("撤销 #3（获得费用 A 费用2）") and undone[3] == set()
    redone = cardpress(db, "track", "redo")
    assert redone[0] == 0 and redone[1].startswith("重做 #3（获得费用 A 费用2）")
    assert typer_app(db, "track", "undo")[1] == undone[1]
    assert typer_app(db, "track", "redo")[1] == redone[1]


def test_game_selection_by_option_and_variable(db):
    with Store(db) as store:
        other = LiveGame.new(store, "duel", ("甲", "乙")).id
    refused = same(db, "track", "status")
    assert refused[0] == 1 and "2 games in" in refused[2]
    by_option = same(db, "track", "status", "--game", other)
    assert by_option[0] == 0 and other in by_option[1] and by_option[3] == set()
    by_variable = cardpress(db, "track", "status", env={"CARDPRESS_GAME": other})
    assert by_variable[:3] == by_option[:3]
    assert same(db, "track", "status", "-g", "no-such-game")[0] == 1


def _folder_game(game_copy, tmp_path) -> tuple[Path, Path]:
    folder = game_copy("backrooms")
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    # A text of this test alone: its cache file is no other test's.
    (folder / "game.yaml").write_text(text + f"\n# {tmp_path.name}\n", encoding="utf-8")
    db = tmp_path / "folder.sqlite"
    with Store(db) as store:
        LiveGame.new(store, str(folder), ("A", "B"), levels=("Level 0", "Level 1"))
    return folder, db


def _cache_file(folder: Path) -> Path:
    from engine.definitions import checked_key
    from engine.live.session import checked_folder

    return checked_folder() / f"{checked_key((folder / 'game.yaml').read_text(encoding='utf-8'))}.json"


def test_a_tampered_or_missing_cache_is_not_used_and_is_rebuilt(game_copy, tmp_path):
    folder, db = _folder_game(game_copy, tmp_path)
    cache = _cache_file(folder)
    assert cache.is_file()
    assert cardpress(db, "track", "status")[3] == set()       # the cache written at `new` serves
    data = json.loads(cache.read_text(encoding="utf-8"))
    data["body"] = data["body"].replace('"starting_cost":5', '"starting_cost":50')
    cache.write_text(json.dumps(data), encoding="utf-8")
    code, out, err, loaded = same(db, "track", "status", "--json")
    assert code == 0 and "pydantic" in loaded                  # the seal failed: validated again
    assert json.loads(out)["players"][0]["cost"] == 5
    cache.unlink()
    assert same(db, "track", "status")[0] == 0                 # no cache: the full path, which…
    assert cache.is_file()                                     # …writes it again
    assert cardpress(db, "track", "status")[3] == set()


def test_a_moved_folder_game_reads_its_stored_definition_on_both_paths(game_copy, tmp_path):
    folder, db = _folder_game(game_copy, tmp_path)
    folder.rename(tmp_path / "moved")
    code, out, err, loaded = same(db, "track", "status")
    assert code == 0 and "游戏文件夹已不存在" in out and "game runs on" not in err


#: Field by field as plain data, for pydantic models and for checked records alike (run in both).
PLAIN = """
def plain(value):
    if isinstance(value, Model):
        return {"class": type(value).__qualname__,
                **{k: plain(getattr(value, k)) for k in type(value).model_fields if k != "folder"}}
    if isinstance(value, (tuple, list)):
        return [type(value).__name__, [plain(v) for v in value]]
    if isinstance(value, dict):
        return [list(value), {k: plain(v) for k, v in value.items()}]   # the order counts too
    return value


def answers(d):
    return [plain(d), d.terms.label(3, 2), d.phase(d.phases[0].id).name,
            list(d.fields_of(next(iter(d.card_types))))]
"""


def test_checked_records_equal_the_validated_models():
    """Every shipped game's definition, rebuilt from the cache as records (no pydantic), holds the
    same fields and values, in the same order, as the validated model, and its methods answer alike."""
    from engine.definitions import Model
    from engine.live.session import load_game

    games = ("backrooms", "duel", "ridm")
    space = {"Model": Model}
    exec(PLAIN, space)
    expected = {game: space["answers"](load_game(game)) for game in games}   # the tracker's load caches each
    code = f"""
import engine, json, sys
engine.CHECKED_RECORDS = True
from engine.live.session import load_game
from engine.definitions import Model
{PLAIN}
print(json.dumps({{game: answers(load_game(game)) for game in {games!r}}}, ensure_ascii=False))
print("pydantic" in sys.modules, file=sys.stderr)
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == "False"
    assert json.loads(proc.stdout) == json.loads(json.dumps(expected, ensure_ascii=False))


def test_a_checked_records_process_never_validates(tmp_path):
    """Without a cache entry, a definition is not validated there: ``NotChecked`` (the fast path
    then re-runs the command on the full path), even for a bad game.yaml."""
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "game.yaml").write_text("id: bad\nname: x\ncard_types: 3\n", encoding="utf-8")
    code = f"""
import engine
engine.CHECKED_RECORDS = True
from engine.model import NotChecked
from engine.live.session import load_game
for game in ({str(bad)!r}, "backrooms"):
    try:
        load_game(game)
        print(game, "loaded")
    except NotChecked:
        print(game, "not checked")
"""
    env = {**os.environ, "CARDPRESS_DATA": str(tmp_path / "empty-data")}
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, env=env, timeout=60)
    assert proc.stdout.split("\n")[:2] == [f"{bad} not checked", "backrooms not checked"], proc.stderr


def test_a_bad_game_yaml_gives_the_same_error_on_both_paths(game_copy, tmp_path):
    folder = game_copy("duel")
    (folder / "game.yaml").write_text((folder / "game.yaml").read_text(encoding="utf-8")
                                      .replace("starting_life:", "starting_lives:"), encoding="utf-8")
    db = tmp_path / "g.sqlite"
    fast = cardpress(db, "track", "new", str(folder), "--players", "A", "B")
    assert fast[:3] == typer_app(db, "track", "new", str(folder), "--players", "A", "B")
    assert fast[0] == 1 and "starting_lives" in fast[2]


def _failing_in_records(name: str) -> str:
    """An entry point whose ``track_view.NAME`` fails only with checked records (as a rule using
    something records lack would)."""
    return (f"import sys, engine\nimport pipeline.cli.track_view as tv\nreal = tv.{name}\n"
            f"def broken(*args, **kwargs):\n    if engine.CHECKED_RECORDS:\n"
            f"        raise AttributeError('not on a checked record')\n    return real(*args, **kwargs)\n"
            f"tv.{name} = broken\nsys.argv[0] = 'cardpress'\nfrom pipeline import main\nmain()")


def test_an_unexpected_error_before_anything_is_stored_reruns_on_the_full_path(db):
    env = {**os.environ, "CARDPRESS_DB": str(db)}
    env.pop("CARDPRESS_GAME", None)
    proc = subprocess.run([sys.executable, "-c", _failing_in_records("board"), "track", "status"], env=env,
                          cwd=REPO, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == typer_app(db, "track", "status")


def test_an_unexpected_error_after_a_command_is_stored_is_reported_not_repeated(db):
    env = {**os.environ, "CARDPRESS_DB": str(db)}
    env.pop("CARDPRESS_GAME", None)
    proc = subprocess.run([sys.executable, "-c", _failing_in_records("command_lines"), "track", "note", "一次"],
                          env=env, cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "internal error (AttributeError: not on a checked record)" in proc.stderr
    log = json.loads(typer_app(db, "track", "log", "--json")[1])
    assert [entry["title"] for entry in log].count("备注 内容一次") == 1

