"""What the rulebooks say (issue 11 §3): no contradictions with game.yaml, the seeds' rules
where RULES.md follows them, optional steps optional, house notes that speak to players, and a
designer's own game with a rulebook of its own.

Read back from what a player reads: the built PDF's text, the rendered Markdown
(``render_source``) and glossary, a card face's elements, the HTML of a scaffolded game.
"""

from __future__ import annotations

import re
from pathlib import Path

import pdfplumber
import pytest
from typer.testing import CliRunner

from engine.definitions import load_game
from engine.paths import templates_root
from pipeline.cli.app import app
from pipeline.rulebook import RulebookTemplateError
from pipeline.rulebook.build import RulebookOptions, build_rulebook
from pipeline.rulebook.lookup import lookup
from pipeline.rulebook.source import render_source
from pipeline.scaffold import scaffold

GAMES = ("backrooms", "duel", "ridm")

#: What a house note must not say: it tells players the rule, not where the text came from
#: ("原文") or how the software is set up ("可以在游戏定义中修改", "本产品的默认设定").
NOT_FOR_PLAYERS = ("原文", "游戏定义", "本产品", "默认设定", "game.yaml")


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="module")
def printed(rulebook_texts) -> dict[str, str]:
    """Each shipped game's A4 rulebook (built once for the run), as one squashed string of its text."""
    return {game: squash("".join(rulebook_texts[game])) for game in GAMES}


def rules_text(game) -> str:
    """The rulebook's own words (Markdown without the card gallery) plus every glossary entry:
    what the book says about the rules, as against what a card in the gallery says."""
    src = render_source(game)
    body = src.markdown.split("```gallery")[0]
    text = body + "\n" + "\n".join(f"{e.term}：{e.definition}" for e in src.glossary)
    return text.replace("**", "")  # emphasis is not a word: "你**可以**抽" reads "你可以抽"


def sentences(text: str, *words: str) -> list[str]:
    """The sentences (to 。；or a line end) of ``text`` that contain all of ``words``."""
    parts = re.split(r"[。；\n]", text)
    return [s for s in parts if all(w in s for w in words)]


def zone_rows(markdown: str) -> dict[str, list[str]]:
    """The area table (header starts ``| 区域 |``): {zone name: [its cells]}."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| 区域 |"))
    header = [c.strip() for c in lines[start].strip("|").split("|")]
    rows = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows[cells[0]] = dict(zip(header, cells))
    return rows


# ---------------------------------------------------------------------------- house notes


@pytest.mark.parametrize("game", GAMES)
def test_no_book_speaks_of_the_source_text_or_of_software_settings(printed, game):
    text = printed[game]
    assert "房规说明" in text  # the house notes are there, only worded for players
    found = [w for w in NOT_FOR_PLAYERS if w in text]
    assert not found, f"{game} rulebook says {found}"


@pytest.mark.parametrize("game", GAMES)
def test_every_house_note_says_it_is_this_editions_clarification(game):
    notes = re.findall(r"```house\n(.*?)```", render_source(game).markdown, flags=re.S)
    assert notes
    for note in notes:
        assert "本版规则书" in note, note


# ---------------------------------------------------------------------------- the tables agree with game.yaml


@pytest.mark.parametrize("game", GAMES)
def test_area_tables_agree_with_the_definition(game):
    g = load_game(game)
    rows = zone_rows(render_source(game).markdown)
    assert set(rows) == {z.name for z in g.zones}
    for z in g.zones:
        row = rows[z.name]
        if z.capacity is not None:
            assert row["容量"] == f"{z.capacity}张", (z.name, row)
        # A number the rules keep under the zone's id (backrooms' unit_slots) is the same number.
        if isinstance(getattr(g.rules, z.id, None), int):
            assert z.capacity == getattr(g.rules, z.id), (z.id, z.capacity)
        # One row never says a zone is unlimited and limited at once (duel's hand said both).
        assert not ("不限" in row["容量"] and "上限" in "".join(row.values())), row


def test_duel_hand_limit_and_field_size_read_the_same_everywhere():
    g = load_game("duel")
    r = g.rules
    rows = zone_rows(render_source("duel").markdown)
    assert rows["手牌"]["容量"] == f"上限{r.hand_limit}张"
    # The field holds max_fighters fighters and their assists besides: not "5张".
    assert rows["场上"]["容量"].startswith(f"{r.max_fighters}名主战者") and "协助牌不计" in rows["场上"]["容量"]
    text = rules_text("duel")
    limits = {int(n) for n in re.findall(r"上限(?:为)?(\d+)张", text)}
    fighters = {int(n) for n in re.findall(r"最多(?:同时存在)?(\d+)名主战者", text)}
    assert limits == {r.hand_limit} and fighters == {r.max_fighters}


def test_duel_tables_follow_a_changed_hand_limit_and_field_size(game_copy):
    folder = game_copy("duel")
    path = folder / "game.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("hand_limit: 6", "hand_limit: 7")
                    .replace("max_fighters: 5", "max_fighters: 4"), encoding="utf-8")
    src = render_source(folder)
    rows = zone_rows(src.markdown)
    assert rows["手牌"]["容量"] == "上限7张" and rows["场上"]["容量"].startswith("4名主战者")
    assert "6张" not in "".join(rows["手牌"].values())
    assert any("最多7张" in e.definition for e in src.glossary)


def test_duel_direct_descent_names_the_ranks_one_by_one(game_copy):
    g = load_game("duel")
    low, high = g.fields_of("fighter")["rank"].min, g.rules.direct_descent_max_rank
    text = rules_text("duel")
    assert f"阶级为{low}或{high}的牌可以直接" in text and f"{low}到{high}" not in text
    folder = game_copy("duel")
    path = folder / "game.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("direct_descent_max_rank: 1", "direct_descent_max_rank: 2"),
                    encoding="utf-8")
    assert "阶级为0、1或2的牌可以直接" in render_source(folder).markdown


def test_backrooms_public_pile_is_viewed_before_every_turn_wherever_it_is_said():
    # RULES.md §1: "face up, viewable before each turn"; a turn is what backrooms calls 轮.
    g = load_game("backrooms")
    text = rules_text("backrooms") + "\n" + "\n".join(z.description for z in g.zones)
    said = sentences(text, "开始前", "查看")
    assert said, "the book never says when the public level pile may be viewed"
    times = {m for s in said for m in re.findall(r"每(?:一|个)?(轮|回合)开始前", s)}
    assert times == {g.terms.turn}, said


# ---------------------------------------------------------------------------- seed rules and optional steps


def test_ridm_an_operator_may_attack_on_its_deploy_turn_only_not_move():
    # The seed: "干员在部署的那个回合不能移动" — moving only (RULES.md 2026-12).
    said = sentences(rules_text("ridm"), "部署的", "回合", "移动")
    assert said
    for s in said:
        assert "不能攻击" not in s and "或攻击" not in s, s
    assert any("可以攻击" in s for s in said), said


@pytest.mark.parametrize("game,step,optional", [
    ("backrooms", "检索", "可"),      # 探索: "可从牌组中检索"
    ("ridm", "盖放", "可以抽"),        # "充能后，您可以抽1张牌"
])
def test_optional_steps_read_as_optional(game, step, optional):
    g = load_game(game)
    text = rules_text(game) + "\n" + "\n".join(k.summary for k in g.keywords)
    said = [s for s in sentences(text, step) if "抽" in s or game == "backrooms"]
    assert said
    for s in said:
        assert optional in s, s


def test_ridm_skill_cards_print_their_duration_in_turns():
    from engine.check import check_game
    from pipeline.layout import Layouts

    report = check_game("ridm")
    layouts = Layouts(report.game)
    label = report.game.fields_of("skill")["duration"].label
    for card in (c for c in report.cards.values() if c.type == "skill"):
        texts = [e.get("text") for e in layouts.face(card, 3) if e.get("field") == label]
        assert texts == [label, f"{card.values['duration']}{report.game.terms.turn}"], card.id


# ---------------------------------------------------------------------------- a designer's own game


@pytest.fixture
def own_game(tmp_path) -> Path:
    return scaffold(tmp_path / "mygame", "我的游戏")


def test_an_own_game_gets_a_rulebook_in_pdf_and_html(own_game, tmp_path):
    assert (own_game / "templates" / "rulebook.md.j2").is_file()
    assert (own_game / "templates" / "glossary.yaml").is_file()
    g = load_game(own_game)
    pdf = build_rulebook(own_game, RulebookOptions(out_dir=tmp_path / "pdf"))
    with pdfplumber.open(pdf.path) as doc:
        text = squash("".join(page.extract_text() or "" for page in doc.pages))
    html = build_rulebook(own_game, RulebookOptions(out_dir=tmp_path / "html", format="html"))
    page = html.path.read_text(encoding="utf-8")
    life = g.rules.counters["life"]
    for said in (text, page):
        assert "我的游戏" in said and "术语表" in said
        assert f"开局为{life.start}" in said and f"降到{life.lose_at}或以下" in said
        for phase in g.phases:
            assert phase.name in said
        for card in ("斥候", "守卫者", "火花", "灵感"):  # the gallery
            assert card in said


def test_an_own_game_is_looked_up_on_the_command_line(own_game):
    result = lookup(own_game, "回合")
    assert [e.term for e in result.entries] == ["回合"] and result.mentions
    runner = CliRunner()
    out = runner.invoke(app, ["rules", str(own_game), "卡组"])
    assert out.exit_code == 0, out.output
    assert "卡组" in out.output and "我的游戏" in out.output
    out = runner.invoke(app, ["rulebook", str(own_game), "--out", str(own_game / "dist")])
    assert out.exit_code == 0, out.output
    assert (own_game / "dist" / "rulebook-a4.pdf").is_file()


@pytest.mark.parametrize("file,old,new,named", [
    ("rulebook.md.j2", "{{ fields_table(tid) }}", '{{ fields_table("nope") }}', "nope"),
    ("rulebook.md.j2", "{{ deck.max_copies }}", "{{ deck.max_copiez }}", "max_copiez"),
    ("glossary.yaml", "{{ deck.min_size }}", "{{ deck.min_sise }}", "min_sise"),
])
def test_an_own_games_rulebook_errors_point_into_its_folder(own_game, file, old, new, named):
    path = own_game / "templates" / file
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(RulebookTemplateError) as exc:
        render_source(own_game)
    message = str(exc.value)
    assert str(path) in message and named in message
    assert str(templates_root()) not in message, message


def test_a_game_folder_without_a_rulebook_of_its_own_gets_the_starter(tmp_path):
    """A folder made before `cardpress new` wrote a rulebook (or whose designer deleted it)
    still builds one, from its own game.yaml; its own file wins once it has one."""
    from pipeline.rulebook.source import render_source
    from pipeline.scaffold import scaffold

    folder = scaffold(tmp_path / "oldgame", "旧游戏")
    for name in ("rulebook.md.j2", "glossary.yaml"):
        (folder / "templates" / name).unlink()
    source = render_source(folder)
    assert "旧游戏" in source.markdown and source.glossary
    (folder / "templates" / "rulebook.md.j2").write_text("# 我自己的规则\n\n本游戏的规则正文。\n", encoding="utf-8")
    assert "我自己的规则" in render_source(folder).markdown
