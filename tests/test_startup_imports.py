"""What a cardpress process imports before it works (issue 13 §2: the per-process fixed cost).

Every command pays for what ``pipeline.cli.app`` imports, so it imports only the CLI itself; a
command's libraries come with the command. Each check runs in a fresh interpreter, where
``sys.modules`` shows exactly what was imported (the test process has imported everything).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import typer

from pipeline.cli import app as cli

REPO = Path(__file__).resolve().parent.parent

#: Loaded only by the commands that use them: the rules assistant (track), the table server,
#: per-card images, fonts being built, HTML rulebooks, spreadsheets, browser tests.
NOT_FOR_EVERY_COMMAND = ("engine.tracker", "engine.live", "pipeline.cli.track", "uvicorn", "starlette",
                         "pypdfium2", "fontTools", "playwright", "brotli", "openpyxl", "pypdf")
#: Not needed to parse a command line: the drawing stack and the game model.
NOT_FOR_PARSING = ("reportlab", "pydantic", "jinja2", "PIL", "yaml", "engine.definitions", "pipeline.plan")


def imported_by(code: str) -> tuple[set[str], str]:
    """The top-level packages and modules a fresh interpreter has after ``code``, and its stdout."""
    probe = (f"import json, sys\n{code}\n"
             "print('\\n' + json.dumps(sorted(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "100"})
    assert proc.returncode == 0, proc.stderr
    output, _, modules = proc.stdout.rstrip("\n").rpartition("\n")
    return set(json.loads(modules)), output


def loaded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return [n for n in names if n in modules or any(m.startswith(n + ".") for m in modules)]


def run_cardpress(*args: str) -> str:
    """``cardpress ARGS`` as the entry point runs it; the exit code must be 0."""
    return (f"sys.argv = ['cardpress', *{list(args)!r}]\n"
            "import pipeline\n"
            "try:\n    pipeline.main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code")


def test_importing_the_cli_imports_no_command_library():
    modules, _ = imported_by("import pipeline.cli.app")
    assert loaded(modules, NOT_FOR_EVERY_COMMAND + NOT_FOR_PARSING) == []


def test_top_level_help_lists_every_command_without_loading_them():
    modules, output = imported_by(run_cardpress("--help"))
    names = [c.name or c.callback.__name__ for c in cli.app.registered_commands]
    names += [g.name for g in cli.app.registered_groups]
    assert {"build", "check", "images", "calibrate", "cards", "new", "fonts", "track", "table", "rulebook",
            "rules"} <= set(names)
    assert [n for n in names if f" {n} " not in output] == []
    assert loaded(modules, NOT_FOR_EVERY_COMMAND + NOT_FOR_PARSING) == []


def test_build_help_needs_only_the_cli():
    modules, output = imported_by(run_cardpress("build", "--help"))
    assert "--back-offset" in output
    # Typer itself brings pydantic to a command's options (it coerces them with TypeAdapters).
    assert loaded(modules, NOT_FOR_EVERY_COMMAND + NOT_FOR_PARSING) == ["pydantic"]


def test_the_build_path_leaves_the_other_commands_libraries_alone():
    modules, _ = imported_by("import pipeline.cli.app, pipeline.plan")
    assert loaded(modules, NOT_FOR_EVERY_COMMAND) == []


def test_track_commands_are_track_clis_once_asked_for():
    from pipeline.cli import track as track_cli

    group = typer.main.get_command(cli.app).get_command(None, "track")
    assert list(group.commands) == list(typer.main.get_command(track_cli.app).commands)
    assert group.get_command(None, "undo").help == typer.main.get_command(track_cli.app).get_command(None, "undo").help


def test_track_help_loads_the_track_commands():
    modules, output = imported_by(run_cardpress("track", "--help"))
    assert "pipeline.cli.track" in modules
    for name in ("new", "status", "undo", "play", "chain"):
        assert f" {name} " in output


def test_an_image_worker_loads_no_reportlab():
    """`cardpress images`' spawned workers import pipeline.outputs.images to render pages: they
    need pypdfium2, ISA-L and Pillow, never the drawing library (tens of ms and MB per worker)."""
    modules, _ = imported_by("import pipeline.outputs.images")
    assert not loaded(modules, ("reportlab", "jinja2", "typer"))
    assert "pipeline.render.raster" in modules
