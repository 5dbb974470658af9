"""The tracker's refusals in the user's language (issue 12 §5): the library follows the language
in force (the terminal's --lang / locale); the table server answers in Chinese whatever the
host's locale, because its page is Simplified Chinese (RULES.md)."""

from __future__ import annotations

import json

import pytest
from starlette.testclient import TestClient

from engine import i18n
from engine.tracker import IllegalCommand, Store
from engine.live import LiveGame
from pipeline.table.server import make_app
from track_helpers import new_game

JSON = {"Content-Type": "application/json"}


def refusal(live, lang: str, command: str, **args) -> str:
    with i18n.using(lang), pytest.raises(IllegalCommand) as refused:
        live.do(command, **args)
    return str(refused.value)


@pytest.mark.parametrize("game, command, args, english, chinese", [
    ("backrooms", "attack", {"unit": "A1", "target": "B1"},
     "attack only in 战斗阶段 (now: 抽牌阶段)", "攻击只能在战斗阶段进行（当前：抽牌阶段）"),
    ("backrooms", "spend", {"player": "A", "amount": "99"}, "A has 5 cost; cannot spend 99", "A 有 5 点费用；不能花费 99 点"),
    ("duel", "move", {"player": "A", "source": "hand", "dest": "hand"},
     "moving cards from hand to hand changes nothing", "从 hand 移动到 hand 不会改变任何东西"),
    ("duel", "life", {"player": "A", "delta": "0"}, "life change of 0 changes nothing", "生命变化为 0 不会改变任何东西"),
    ("ridm", "move", {"operator": "A1", "zone": "action"},
     "no operator 'A1': there are no pieces on the board", "没有干员'A1'：场上没有棋子"),
])
def test_a_refusal_of_each_game_reads_in_the_language_in_force(tmp_path, game, command, args, english, chinese):
    live = new_game(tmp_path, game)
    assert refusal(live, "en", command, **args) == english
    assert refusal(live, "zh_CN", command, **args) == chinese
    assert live.store.last_seq(live.id) == 1                   # refused: nothing was stored


def test_command_help_is_translated_where_it_is_shown(tmp_path):
    from engine.live.forms import forms

    live = new_game(tmp_path, "duel")
    with i18n.using("en"):
        english = {f["command"]: f for f in forms(live.ctx)}
    with i18n.using("zh_CN"):
        chinese = {f["command"]: f for f in forms(live.ctx)}
    assert english["note"]["help"] == "Write a note into the log."
    assert chinese["note"]["help"] == "在日志中写一条备注。"
    assert chinese["draw"]["help"].startswith("通过卡牌效果抽牌（手牌达到上限 ")       # {n.hand_limit} filled
    assert "{n." not in chinese["draw"]["help"]
    assert chinese["note"]["params"][0]["help"] == "任何值得记住的内容。"


@pytest.fixture
def english_host(monkeypatch):
    """The process speaks English (the host's locale, the CLI's --lang en)."""
    monkeypatch.setenv("CARDPRESS_LANG", "en")
    previous = i18n._chosen
    i18n.set_language("en")
    yield
    i18n._chosen = previous


def test_the_table_server_answers_in_chinese_on_an_english_host(tmp_path, english_host):
    db = tmp_path / "games.sqlite"
    with Store(db) as store:
        gid = LiveGame.new(store, "backrooms", ("甲", "乙"), levels=("Level 0", "Level 1")).id
    client = TestClient(base_url="http://127.0.0.1", app=make_app(db, gid))
    refused = client.post("/api/tap", headers=JSON, content=json.dumps(
        {"op": "op-spend-0001", "seen": 1, "command": "spend", "args": {"player": "甲", "amount": "99"}}))
    assert refused.status_code == 409 and refused.json()["error"] == "甲 有 5 点费用；不能花费 99 点"
    bad = client.post("/api/tap", headers=JSON, content=b"[1]")
    assert bad.status_code == 400 and bad.json()["error"] == "一次点按是一个 JSON 对象"
    helps = {f["command"]: f["help"] for f in client.get("/api/forms").json()}
    assert helps["note"] == "在日志中写一条备注。" and helps["undo"] == "撤回上一条命令及其触发的一切。"
    # the host itself still speaks English
    assert i18n.language() == "en"
    with Store(db) as store, pytest.raises(IllegalCommand, match="cannot spend 99"):
        LiveGame(store, gid).do("spend", player="甲", amount="99")
