"""Commands are declared once: the CLI and the table line are generated from the declarations,
read numbers the same way (negative ones too), and fill help from game.yaml."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from engine.live.script import parse_line
from engine.games import game_module
from engine.tracker import core
from engine.tracker.core import CORE, IllegalCommand, commands_of, run_command
from engine.tracker.kit import BadArgument, Commands, Param, declared_commands, fill, shipped_numbers
from engine.live.session import make_context
from engine.definitions import load_game
from pipeline.cli.track import app
from track_helpers import new_game

runner = CliRunner()


def _cli_commands():
    """{words: click command} of ``cardpress track``."""
    root = typer.main.get_command(app)
    out = {}
    for name, command in root.commands.items():
        if hasattr(command, "commands"):
            out.update({(name, sub): c for sub, c in command.commands.items()})
        else:
            out[(name,)] = command
    return out


def test_every_declared_command_is_a_cli_command_with_every_parameter():
    cli = _cli_commands()
    declared = [spec for _, specs in declared_commands() for spec in specs]
    assert len(declared) >= 30
    shared = {}
    for spec in declared:
        shared.setdefault(spec.words, set()).add(spec.game)
    for spec in declared:
        assert spec.words in cli, f"{spec.cli_name} is declared but not on the command line"
        params = {p.name: p for p in cli[spec.words].params}
        if "args" in params and len(shared[spec.words]) > 1:
            # Words two games declare differently: one command, read by the game's own declaration;
            # its help gives each game's usage.
            usage = " ".join(p.name.upper() for p in spec.params if not p.option and p.kind not in ("flag", "tristate"))
            assert f"{spec.game}: {spec.cli_name} {usage}" in (cli[spec.words].help or ""), spec.cli_name
            continue
        for p in spec.params:
            assert p.name in params, f"{spec.cli_name}: parameter {p.name} missing on the command line"
            click_param = params[p.name]
            assert (click_param.param_type_name == "option") == (p.option or p.kind in ("flag", "tristate")), \
                f"{spec.cli_name} {p.name}: option/argument differs from the declaration"
            if click_param.param_type_name == "option":
                assert p.flag_name in click_param.opts
        assert ("op_id" in params) == (not spec.query)


def test_help_is_filled_with_the_games_numbers():
    numbers = shipped_numbers("duel")
    assert numbers["descents_per_turn"] == load_game("duel").rules.descents_per_turn
    result = runner.invoke(app, ["descend", "--help"])
    assert result.exit_code == 0
    text = " ".join(result.output.split())
    assert f"({numbers['descents_per_turn']} per turn, at most {numbers['max_fighters']} fighters)" in text
    assert "{n." not in text
    # A number the game does not define stays visible as the placeholder, never a KeyError.
    assert fill("{n.nope} per turn", {}) == "{n.nope} per turn"
    assert fill("{n.descents_per_turn} per turn", {"descents_per_turn": 4}) == "4 per turn"


def test_negative_numbers_are_numbers_on_the_command_line(tmp_path):
    db = str(tmp_path / "g.sqlite")
    assert runner.invoke(app, ["new", "duel", "--players", "A", "B", "--db", db]).exit_code == 0
    result = runner.invoke(app, ["life", "B", "-3", "--db", db])
    assert result.exit_code == 0, result.output
    assert "B生命-3" in result.output
    refused = runner.invoke(app, ["battle", "B", "-3", "--db", db])
    assert refused.exit_code == 1
    assert "battle: amount must be at least 0, got -3" in refused.output
    garbage = runner.invoke(app, ["life", "B", "3x", "--db", db])
    assert garbage.exit_code == 1 and "delta must be a whole number like +3 or -2" in garbage.output


@pytest.fixture
def backrooms():
    return commands_of(make_context(load_game("backrooms"), cards={}))


@pytest.mark.parametrize("line, name, args", [
    ("damage B 5 outpost=2", "damage", {"player": "B", "amount": 5, "outpost": 2}),
    ("damage B 5 --outpost 2", "damage", {"player": "B", "amount": 5, "outpost": 2}),
    ("damage B 5 -o 2 --why 炸弹", "damage", {"player": "B", "amount": 5, "outpost": 2, "why": "炸弹"}),
    ("damage B 5 2", "damage", {"player": "B", "amount": 5, "outpost": 2}),
    ('push B "无效 效果" --negates 1', "chain_push", {"player": "B", "text": "无效 效果", "negates": 1}),
    ("chain push A 抽牌", "chain_push", {"player": "A", "text": "抽牌"}),
    ("chain-resolve --one", "chain_resolve", {"one": True}),
    ("resolve", "chain_resolve", {}),
    ("spend A ３", "spend", {"player": "A", "amount": 3}),  # a phone's full-width digits are digits
    ("damage B 5 2 炸弹", "damage", {"player": "B", "amount": 5, "outpost": 2, "why": "炸弹"}),
    ("spend A 三", None, None),
])
def test_table_lines_read_by_the_declarations(backrooms, line, name, args):
    if name is None:
        with pytest.raises(BadArgument, match="spend: amount must be a whole number like 3, got '三'"):
            parse_line(line, backrooms)
        return
    spec, parsed = parse_line(line, backrooms)
    assert spec.name == name and parsed == args


@pytest.mark.parametrize("line, pierce", [
    ("attack A1 B2", None), ("attack A1 B2 --pierce", True), ("attack A1 B2 --pierce false", False),
    ("attack A1 B2 --no-pierce", False), ("attack A1 B2 pierce=no", False), ("attack A1 B2 --pierce yes", True),
])
def test_pierce_false_does_not_pierce(line, pierce):
    duel = commands_of(make_context(load_game("duel"), cards={}))
    spec, args = parse_line(line, duel)
    assert args.get("pierce") is pierce
    assert args["fighter"] == "A1" and args["target"] == "B2"


@pytest.mark.parametrize("line, message", [
    ("spnd A 3", "did you mean spend"),
    ("damage B 5 --outpst 2", "unknown option --outpst; options: --outpost"),
    ("damage B 5 2 炸弹 9", "too many arguments ('9'); it takes PLAYER AMOUNT"),
    ("damage B", "damage: missing amount"),
    ("damage B 'five", "an unclosed quote"),
    ("damage B 5 --outpost", "--outpost needs a value"),
    ("damage B −3", "amount must be at least 1, got -3"),
])
def test_bad_table_lines_say_what_is_wrong(backrooms, line, message):
    with pytest.raises(BadArgument, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_line(line, backrooms)


def test_play_mode_runs_declared_commands(tmp_path):
    db = str(tmp_path / "g.sqlite")
    assert runner.invoke(app, ["new", "ridm", "--players", "A", "B", "--db", db]).exit_code == 0
    result = runner.invoke(app, ["play", "--db", db], input="sanity B -1\ncan A 2\nodds 6 3 2\nsanty B 1\nq\n")
    assert result.exit_code == 0, result.output
    assert "B理智-1" in result.output
    assert "A理智3，理智要求2的行动牌不能使用" in result.output
    assert "被击溃" in result.output
    assert "did you mean sanity" in result.output


def test_arguments_are_checked_against_the_declaration_and_a_bug_in_a_rule_is_a_crash(tmp_path, monkeypatch):
    live = new_game(tmp_path, "duel")
    with pytest.raises(IllegalCommand, match="life: no parameter colour"):
        run_command(live.state, live.ctx, "life", {"player": "A", "delta": 1, "colour": "red"})
    with pytest.raises(IllegalCommand, match="life: missing delta"):
        run_command(live.state, live.ctx, "life", {"player": "A"})

    def broken(state, ctx, player, delta, why=""):
        return None + 1  # a TypeError inside the rule: a bug, not an illegal move

    spec = game_module("duel").COMMANDS["life"]
    monkeypatch.setitem(game_module("duel").COMMANDS.specs, "life", type(spec)(**{**spec.__dict__, "run": broken}))
    with pytest.raises(TypeError):
        run_command(live.state, live.ctx, "life", {"player": "A", "delta": 1})


def test_a_declaration_needs_an_example_and_a_unique_name():
    commands = Commands("test")
    with pytest.raises(ValueError, match="needs an example"):
        commands.command(label="试", help="x", examples=())(lambda state, ctx: [])
    commands.command(label="试", help="x", examples=("x",), name="x")(lambda state, ctx: [])
    with pytest.raises(ValueError, match="declared twice"):
        commands.command(label="试", help="x", examples=("x",), name="x")(lambda state, ctx: [])
    with pytest.raises(ValueError, match=r"needs a label for itself and for \['amount'\]"):
        commands.command(Param.count("amount", "How many."), label="试", help="x", examples=("y",),
                         name="y")(lambda state, ctx, amount: [])
    with pytest.raises(ValueError, match="labels unknown parameter"):
        commands.command(label="试", help="x", examples=("z",), name="z", labels={"nope": "无"})(lambda s, c: [])
    assert "next" in CORE and core.next_phase is CORE["next"].run
    assert Param("d", "signed", "").parse("+4") == 4


@pytest.mark.parametrize("game, header, forbidden", [
    ("backrooms", "第3轮（第2回合） 行动方：A", None),
    ("duel", "第3回合 行动方：A", "轮"),
    ("ridm", "第3回合 行动方：A", "轮"),
])
def test_each_game_names_turns_in_its_own_words(tmp_path, game, header, forbidden):
    from pipeline.cli.track_view import board, log_text
    from track_helpers import advance_to

    live = new_game(tmp_path, game)
    advance_to(live, 3, live.defn.phases[0].id)
    shown = board(live)
    assert header in shown, shown
    log = log_text(live)
    assert f"{live.ctx.turn_label(3, 2)}：A行动" in log
    if forbidden:
        assert forbidden not in shown.splitlines()[1] and forbidden not in log, "a duel/ridm turn is 回合, never 轮"
    from engine.live.view import live_status
    assert live_status(live)["turn_label"] == header.split(" ")[0]


def test_roll_draws_once_and_the_log_keeps_the_result(tmp_path):
    from engine.tracker import Store
    from engine.live import LiveGame
    from engine.tracker.events import DieRolled

    live = new_game(tmp_path, "duel")
    results = [live.do("roll", faces="6").events[0].result for _ in range(200)]
    assert set(results) == {1, 2, 3, 4, 5, 6}   # every face shows in 200 rolls (miss: p < 1e-14)
    coins = {live.do("roll", faces="coin", player="B").events[0] for _ in range(100)}
    assert {e.result for e in coins} == {1, 2} and all(e.faces == 2 and e.player == 1 for e in coins)
    again = LiveGame(Store(tmp_path / "games.sqlite"), live.id, cards={}, use_snapshots=False)
    replayed = [e.result for entry in again.entries() for e in entry.events if isinstance(e, DieRolled)]
    assert replayed[:200] == results, "a replay shows the results drawn, never new ones"
    with pytest.raises(IllegalCommand, match="at most 100 faces"):
        live.do("roll", faces="1000")


@pytest.mark.parametrize("line, expected", [
    ("sp", ["spend"]),
    ("chain p", ["push"]),
    ("chain push ", ["A", "B"]),
    ("damage ", ["A", "B"]),
    ("damage A 3 --o", ["--outpost"]),
    ("repair A 3 --b", ["--beyond-max"]),
    ("damage 'A", []),
])
def test_tab_completion_follows_the_declarations(backrooms, line, expected):
    from engine.live.script import complete

    assert complete(line, backrooms, players=("A", "B")) == expected


def test_tab_completion_offers_choices_and_card_names():
    from engine.live.script import complete

    duel = commands_of(make_context(load_game("duel"), cards={}))
    assert complete("draw-skill A ", duel, ("A", "B")) == ["draw1", "fill"]
    assert complete("move A deck ", duel, ("A", "B")) == ["deck", "field", "hand", "netherworld", "removed"]
    assert complete("attack A1 B2 --pierce ", duel, ("A", "B")) == []     # a bare flag: no value needed
    ridm = commands_of(make_context(load_game("ridm"), cards={}))
    assert complete("deploy A 能", ridm, ("A", "B"), {"card": ("能天使", "德克萨斯")}) == ["能天使"]


def test_log_titles_are_in_the_tables_language(tmp_path):
    from engine.live.view import log_lines

    live = new_game(tmp_path, "backrooms")
    live.do("damage", player="B", amount=7, outpost=1, why="炸弹")
    live.undo()
    live.do("chain_push", player="A", text="抽牌", negates=None)
    live.do("roll", faces="coin")
    titles = [line.title for line in log_lines(live)]
    assert titles[:2] == ["开局", "受到伤害 B 伤害7 前哨站1（炸弹）"]
    assert titles[2] == "撤销 #2（受到伤害 B 伤害7 前哨站1（炸弹））"
    assert titles[3:] == ["发动效果（连锁） A 效果抽牌", "掷骰 面数coin"]
    for spec in (s for _, specs in declared_commands() for s in specs):
        assert spec.label and all(p.label for p in spec.params), spec.name
        assert not any(ch.isascii() and ch.isalpha() for ch in spec.label), f"{spec.name}: label {spec.label!r}"


def test_a_special_win_is_declared_with_its_reason_not_as_a_concession():
    from track_helpers import InlineGame

    for game in ("backrooms", "duel", "ridm"):
        g = InlineGame(game)
        with pytest.raises(IllegalCommand, match="--why"):
            g.do("win", player="B", why=" ")
        events = g.do("win", player="B", why="G.O.I 特殊胜利")
        assert [type(e).__name__ for e in events] == ["WinDeclared", "GameEnded"]
        assert g.state.over and g.state.winner == 1 and "G.O.I 特殊胜利" in g.state.end_reason
        assert not any(type(e).__name__ == "Conceded" for e in g.events)


def test_a_flag_left_at_its_default_is_not_in_the_log_title():
    backrooms = commands_of(make_context(load_game("backrooms"), cards={}))
    summon = backrooms["summon"]
    assert summon.describe_args({"card": "笑魇", "special": False}) == "卡牌笑魇"
    assert summon.describe_args({"card": "笑魇", "special": True}).startswith("卡牌笑魇 ")
    duel = commands_of(make_context(load_game("duel"), cards={}))
    attack = duel["attack"]                               # a tristate: yes and no both say something
    assert attack.describe_args({"fighter": "A1", "target": "B1", "pierce": False}).endswith("不" + attack.param("pierce").label)


def test_every_choice_reads_in_chinese_and_a_typed_label_is_the_choice():
    """The page shows a choice by its label; the same label typed at the table line is read as it."""
    from engine.live.forms import forms
    from track_helpers import inline_game

    seen = 0
    for game in ("backrooms", "duel", "ridm"):
        for form in forms(inline_game(game).ctx):
            for p in form["params"]:
                if p["kind"] != "choice":
                    continue
                seen += 1
                assert len(p["choice_labels"]) == len(p["choices"]), (game, form["command"], p["name"])
                assert all(not any("a" <= ch.lower() <= "z" for ch in label) for label in p["choice_labels"]), p
    assert seen >= 10
    from engine.games.ridm.rules import COMMANDS

    zone = COMMANDS.specs["move"].param("zone")
    assert zone.parse("敌方行动区") == "enemy-action" and zone.parse("enemy-action") == "enemy-action"
