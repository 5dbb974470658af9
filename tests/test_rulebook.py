"""Rulebooks: built PDFs read back with pypdf/pdfplumber — contents, outline, glossary, numbers, fonts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pdfplumber
import pytest
from pypdf import PdfReader

from engine.definitions import load_game
from pipeline.rulebook.build import RulebookOptions, build_rulebook, prepare

GAMES = ("backrooms", "duel", "ridm")
#: The Chinese terms the product's rules digest (RULES.md, kept outside this repository)
#: introduces in parentheses, per game; copied here so a fresh clone tests on its own.
RULES_MD_TERMS = Path(__file__).resolve().parent / "data" / "rules_md_terms.json"


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.fixture(scope="session")
def books(rulebook_pdfs, rulebook_texts):
    """Each shipped game's A4 rulebook (built once for the run): {game: (path, [page texts])}."""
    return {game: (rulebook_pdfs[game], rulebook_texts[game]) for game in GAMES}


def toc_entries(texts: list[str]) -> list[tuple[str, str, int]]:
    """(number, title, page) from the contents pages (from page 2 until the first chapter)."""
    entries = []
    for text in texts[1:]:
        if "目录" not in text.splitlines()[0]:
            break
        for line in text.splitlines():
            m = re.match(r"^(\d+(?:\.\d+)?)\s*(.+?)[\s.·]*?(\d+)$", line.strip())
            if m and "." * 3 in line.replace(" ", ""):
                entries.append((m.group(1), squash(m.group(2)).rstrip("."), int(m.group(3))))
    return entries


@pytest.mark.parametrize("game", GAMES)
def test_toc_lists_every_heading_with_the_page_it_is_on(books, game):
    path, texts = books[game]
    _, doc, _ = prepare(game)
    expected = [(h.number, squash(h.title)) for h in doc.headings() if h.level <= 2]
    entries = toc_entries(texts)
    assert [(n, t) for n, t, _ in entries] == expected
    for number, title, page in entries:
        body = squash(texts[page - 1])
        assert number + title in body, f"TOC says {number} {title} is on page {page}"
        # …and the heading is not already on an earlier page (the TOC points at its first page).
        assert all(number + title not in squash(t) for t in texts[2:page - 1] if "目录" not in t.splitlines()[0])


@pytest.mark.parametrize("game", GAMES)
def test_outline_has_every_chapter_in_order(books, game):
    path, _ = books[game]
    reader = PdfReader(path)
    top = [item.title for item in reader.outline if not isinstance(item, list)]
    _, doc, _ = prepare(game)
    chapters = [h.numbered_title for h in doc.headings() if h.level == 1]
    assert top[:2] == ["封面", "目录"]
    assert top[2:] == chapters
    nested = [x for item in reader.outline if isinstance(item, list) for x in item if not isinstance(x, list)]
    assert len(nested) >= len([h for h in doc.headings() if h.level == 2])


def rules_md_terms(game: str) -> list[str]:
    """Chinese terms RULES.md introduces in parentheses in the game's section, e.g. 'cut out (切出)'."""
    return list(json.loads(RULES_MD_TERMS.read_text(encoding="utf-8"))[game])


@pytest.mark.parametrize("game", GAMES)
def test_every_rules_md_term_and_keyword_is_in_the_printed_glossary(books, game):
    _, texts = books[game]
    terms = rules_md_terms(game)
    assert len(terms) >= 8  # the extraction itself works
    terms += [k.term for k in load_game(game).keywords]
    glossary_pages = [t for t in texts if "术语表" in t.splitlines()[0]]
    assert glossary_pages, "no page carries the glossary's running header"
    printed = squash("".join(glossary_pages))
    _, doc, _ = prepare(game)
    from pipeline.rulebook.source import render_source

    names = {n for e in render_source(game).glossary for n in e.names}
    missing = [t for t in terms if t not in names]
    assert not missing, f"glossary of {game} lacks {missing}"
    assert all(t in printed for t in terms)


def test_brief_terms_are_covered_across_the_three_glossaries():
    from pipeline.rulebook.source import render_source

    names = {n for g in GAMES for e in render_source(g).glossary for n in e.names}
    for term in "切入 切出 连锁 探索 眩晕 前哨站 费用 湮灭 贯穿 降临 升阶 幽冥 协助 战备 守卫 受伤 理智 部署 充能 计时 击溃 阻挡".split():
        assert term in names


@pytest.mark.parametrize("game", GAMES)
def test_key_rules_extract_back_with_the_definition_numbers(books, game):
    _, texts = books[game]
    text = squash("".join(texts))
    g = load_game(game)
    r = g.rules
    expected = {
        "backrooms": lambda: [
            f"每位玩家开局拥有{r.starting_cost}点费用",
            f"先手抽{r.opening_hand_first}张作为起始手牌，后手抽{r.opening_hand_second}张",
            f"每座前哨站有{r.outpost_hp}点生命值",
            f"最多这样带入{r.outpost_carries_per_game}次",
            f"累计有{r.outposts_destroyed_to_lose}座前哨站被摧毁",
            f"每经过{r.level_cycle_rounds}个回合",
            "连锁从最后一环开始，倒序结算",
        ],
        "duel": lambda: [
            f"每位牌手开局有{r.starting_life}点生命值",
            f"手牌上限为{r.hand_limit}张",
            f"最多同时存在{r.max_fighters}名主战者",
            f"你有{r.descents_per_turn}次降临机会",
            f"把手牌补到{r.draw_skill_fill_to}张",
            f"每回合最多从下列选项中选{r.in_turn_skills_per_turn}项",
            f"战斗伤害变为{r.first_turn_battle_damage}",
        ],
        "ridm": lambda: [
            f"每位指挥者开局有{r.starting_sanity}点理智",
            f"每人抽{r.opening_hand}张作为起始手牌",
            f"选最多{r.prep_to_hand_max}张牌加入手牌",
            f"各失去{r.sanity_loss_enemy_in_deploy}点理智",
            "只有当你当前的理智小于或等于这个数值时",
        ],
    }[game]()
    for sentence in expected:
        assert sentence in text, sentence
    assert "房规说明" in text
    for zone in g.zones:
        assert zone.name in text
    for phase in g.phases:
        assert phase.name in text
    for ctype in g.card_types.values():
        for spec in ctype.fields.values():
            assert spec.label in text


def test_a_changed_definition_value_reaches_the_printed_rulebook(game_copy, tmp_path):
    folder = game_copy("backrooms")
    path = folder / "game.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("outpost_hp: 20", "outpost_hp: 37").replace("level_cycle_rounds: 5", "level_cycle_rounds: 7")
    text = text.replace("{label: 前哨, type: outpost, min: 6, max: 10}", "{label: 前哨, type: outpost, min: 6, max: 11}")
    path.write_text(text, encoding="utf-8")
    result = build_rulebook(folder, RulebookOptions(out_dir=tmp_path / "out"))
    with pdfplumber.open(result.path) as pdf:
        printed = squash("".join(p.extract_text() or "" for p in pdf.pages))
    assert "每座前哨站有37点生命值" in printed
    assert "每座前哨站有20点生命值" not in printed
    assert "第8、15、22……回合" in printed  # cut rounds are computed from the period
    assert "前哨前哨611" in printed  # the deck requirements table row: label, type, min, max


@pytest.mark.parametrize("game,key,old,new,sentence", [
    ("duel", "starting_life", 20, 33, "每位牌手开局有33点生命值"),
    ("ridm", "starting_sanity", 3, 4, "每位指挥者开局有4点理智"),
])
def test_changed_values_reach_the_source_of_the_other_games(game_copy, game, key, old, new, sentence):
    from pipeline.rulebook.source import render_source

    folder = game_copy(game)
    path = folder / "game.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(f"{key}: {old}", f"{key}: {new}"), encoding="utf-8")
    src = render_source(folder)
    assert sentence in src.markdown
    assert any(str(new) in e.definition for e in src.glossary)


@pytest.mark.parametrize("game", GAMES)
def test_every_font_is_embedded(books, game):
    path, _ = books[game]
    reader = PdfReader(path)
    seen = set()
    for page in reader.pages:
        fonts = page["/Resources"].get("/Font", {})
        for ref in fonts.values():
            font = ref.get_object()
            name = str(font["/BaseFont"])
            seen.add(re.sub(r"^/[A-Z]{6}\+", "", name))
            descendants = font.get("/DescendantFonts")
            desc = (descendants[0].get_object() if descendants else font).get("/FontDescriptor")
            assert desc is not None, f"{name} has no font descriptor (not embedded)"
            desc = desc.get_object()
            assert any(k in desc for k in ("/FontFile2", "/FontFile", "/FontFile3")), f"{name} is not embedded"
    assert seen and all(n.startswith("CardpressSansSC") for n in seen), seen


def test_rulebook_has_cover_toc_gallery_and_page_numbers(books):
    _, texts = books["backrooms"]
    assert "后室TCG" in texts[0] and "规则书" in texts[0]
    assert "目录" in texts[1]
    assert "— 5 —" in texts[4] or "—5—" in squash(texts[4])
    gallery = squash("".join(t for t in texts if "附录" in t.splitlines()[0]))
    from engine.cards import load_cards

    for card in load_cards(load_game("backrooms")):
        assert squash(card.name) in gallery
