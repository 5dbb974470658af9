"""A designer's own game (cardpress new) is tracked too: phases from game.yaml, counters, losses."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from engine.tracker import IllegalCommand, Store

from engine.live import LiveGame
from engine.live.view import live_status
from pipeline.cli.app import app
from pipeline.scaffold import scaffold


def test_generic_game_tracks_phases_counters_and_the_loss(tmp_path):
    game = scaffold(tmp_path / "mine", "我的游戏")
    live = LiveGame.new(Store(tmp_path / "g.sqlite"), str(game), ("A", "B"), cards={})
    s = live_status(live)
    assert (s["ruleset"], s["phase"], s["phases"]) == ("generic", "draw", ["draw", "main", "end"])
    assert [p["counters"] for p in s["players"]] == [{"life": 20, "mana": 0}] * 2
    assert s["reminders"] == ["抽1张牌。"]
    live.do("counter", player="A", name="法力", delta="+3")          # by label
    live.do("counter", player="B", name="life", delta="-7")
    with pytest.raises(IllegalCommand, match="unknown counter 'gold'"):
        live.do("counter", player="A", name="gold", delta="1")
    for _ in range(3):
        live.do("next")
    assert (live.state.turn, live.state.active, live.state.phase) == (2, 1, "draw")
    live.do("counter", player="B", name="life", delta="-13")
    s = live_status(live)
    assert s["over"] and s["winner"] == "A" and "生命降至0" in s["end_reason"]
    live.undo()
    assert not live.state.over and live.state.players[1].counter("life") == 13


def test_generic_game_from_the_command_line(tmp_path):
    game = scaffold(tmp_path / "mine", "我的游戏")
    db = str(tmp_path / "g.sqlite")
    runner = CliRunner()
    assert runner.invoke(app, ["track", "new", str(game), "--players", "甲", "乙", "--db", db]).exit_code == 0
    result = runner.invoke(app, ["track", "counter", "甲", "life", "-4", "--db", db])
    assert result.exit_code == 0, result.output
    board = runner.invoke(app, ["track", "status", "--db", db]).output
    assert "甲: 生命 16 | 法力 0" in board
    data = json.loads(runner.invoke(app, ["track", "status", "--json", "--db", db]).output)
    assert data["players"][0]["counters"] == {"life": 16, "mana": 0}
