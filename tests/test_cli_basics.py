"""The root command: --version, and ``python -m pipeline`` as a stand-in for the script."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

from typer.testing import CliRunner

from pipeline.cli.app import app


def test_version_names_the_installed_release():
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"cardpress {version('cardpress')}"


def test_python_m_pipeline_runs_the_cli():
    run = subprocess.run([sys.executable, "-m", "pipeline", "--version"], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and run.stdout.strip() == f"cardpress {version('cardpress')}"
    run = subprocess.run([sys.executable, "-m", "pipeline", "check", "no-such-game"], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 1 and "no-such-game" in run.stdout + run.stderr and "Traceback" not in run.stderr


def test_help_still_lists_the_commands_and_the_version_option():
    out = CliRunner().invoke(app, ["--help"]).output
    assert "--version" in out
    for command in ("build", "images", "check", "new", "schema", "track", "table", "rulebook"):
        assert command in out


def test_placeholders_in_help_survive_the_markdown_renderer():
    """Markdown help drops an unquoted <card id> as an HTML tag; each one shown must be quoted."""
    import re

    import typer

    group = typer.main.get_group(app)
    for name, command in group.commands.items():
        placeholders = re.findall(r"<[a-z][a-z ]*>", command.help or "")
        if not placeholders:
            continue
        out = " ".join(CliRunner().invoke(app, [name, "--help"], terminal_width=200).output.split())
        for placeholder in placeholders:
            assert placeholder in out, (name, placeholder)
    assert "DIR/images/<card id>.png" in CliRunner().invoke(app, ["images", "--help"], terminal_width=200).output


def _complete(words: str, cwd) -> list[str]:
    """What the shell's Tab would offer after ``words`` (bash completion protocol)."""
    import os

    env = {**os.environ, "_CARDPRESS_COMPLETE": "complete_bash", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1))}
    run = subprocess.run([sys.executable, "-m", "pipeline"], env=env, cwd=cwd, capture_output=True, text=True,
                         timeout=60)
    return run.stdout.split()


def test_game_ids_folders_and_papers_complete(tmp_path):
    (tmp_path / "dark-forest").mkdir()
    (tmp_path / "dark-forest" / "game.yaml").write_text("id: x\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("", encoding="utf-8")
    assert _complete("cardpress build d", tmp_path) == ["duel", "dark-forest/"]
    assert _complete("cardpress rulebook r", tmp_path) == ["ridm"]
    assert _complete("cardpress build duel --paper l", tmp_path) == ["letter"]
    assert "notes.txt" not in _complete("cardpress check n", tmp_path)
