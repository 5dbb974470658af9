"""Every command's --help is complete: a description and at least one example."""

from __future__ import annotations

import typer
from typer.core import TyperGroup
from typer.testing import CliRunner

from pipeline.cli.app import app

runner = CliRunner()


def _commands(group, prefix=()):
    for name, command in group.commands.items():
        path = prefix + (name,)
        if isinstance(command, TyperGroup):
            yield path, command
            yield from _commands(command, path)
        else:
            yield path, command


def test_every_command_has_help_with_an_example():
    root = typer.main.get_command(app)
    paths = list(_commands(root))
    assert {("build",), ("check",), ("new",), ("fonts",)} <= {p for p, _ in paths}
    for path, command in paths:
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        if isinstance(command, TyperGroup):
            assert command.help, path
            continue
        assert command.help and len(command.help) > 40, f"{' '.join(path)} has no real description"
        assert "Example" in result.output, f"'cardpress {' '.join(path)} --help' shows no example"
        for param in command.params:
            if getattr(param, "param_type_name", "") == "option" and param.name != "help":
                assert param.help, f"option {param.opts} of {' '.join(path)} has no help"


def test_top_level_help_lists_commands():
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    for name in ("build", "check", "new", "track"):
        assert name in result.output
