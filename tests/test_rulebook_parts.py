"""Rulebook parts: booklet order and imposition, HTML, rules lookup, errors and the CLI."""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pdfplumber
import pytest
from reportlab.lib.pagesizes import A4, A5
from reportlab.pdfgen.canvas import Canvas
from typer.testing import CliRunner

from pipeline.cli.app import app
from pipeline.rulebook import MissingGlyphs, RulebookTemplateError, UnknownTerm
from pipeline.rulebook.booklet import booklet_order, impose_booklet
from pipeline.rulebook.build import RulebookOptions, build_rulebook
from pipeline.rulebook.lookup import lookup
from pipeline.rulebook.markdown import parse_document
from pipeline.rulebook.source import render_source

runner = CliRunner()


# ---------------------------------------------------------------------------- booklet


@pytest.mark.parametrize("pages", [1, 4, 5, 8, 13])
def test_booklet_order_is_a_saddle_stitch(pages):
    sides = booklet_order(pages)
    total = -(-pages // 4) * 4
    assert len(sides) == total // 2  # two sides per sheet, four pages per sheet
    placed = [p for s in sides for p in (s.left, s.right) if p is not None]
    assert sorted(placed) == list(range(pages))  # every page exactly once, blanks for the padding
    padded = [[p for p in (s.left, s.right)] for s in booklet_order(total)]
    for s, full in zip(sides, padded):
        # Facing slots of one side always add up to the last padded page: that is what folds.
        assert full[0] + full[1] == total - 1
        assert (s.left, s.right) == tuple(p if p < pages else None for p in full)
        assert s.rotated == (not s.front)  # long-edge duplex turns every back upside down
    # Reading order: the sheet's front right is page 2k+1, its back left is page 2k+2.
    for sheet in range(total // 4):
        front, back = sides[2 * sheet], sides[2 * sheet + 1]
        assert (front.right, (back.left if back.left is not None else 2 * sheet + 1)) == (2 * sheet, 2 * sheet + 1)


def test_booklet_order_examples():
    assert [(s.left, s.right) for s in booklet_order(8)] == [(7, 0), (1, 6), (5, 2), (3, 4)]
    assert [(s.left, s.right) for s in booklet_order(5)] == [(None, 0), (1, None), (None, 2), (3, 4)]
    assert [(s.left, s.right) for s in booklet_order(1)] == [(None, 0), (None, None)]
    assert not any(s.rotated for s in booklet_order(8, duplex="short"))


def numbered_pdf(path: Path, pages: int) -> None:
    c = Canvas(str(path), pagesize=A5)
    for n in range(1, pages + 1):
        c.setFont("Helvetica", 40)
        c.drawString(150, 300, f"P{n}")
        c.showPage()
    c.save()


def half_texts(path: Path) -> list[tuple[str, str]]:
    out = []
    with pdfplumber.open(path) as pdf:
        for page in pdf.pages:
            w = page.width
            left = "".join(ch["text"] for ch in page.chars if ch["x0"] < w / 2)
            right = "".join(ch["text"] for ch in page.chars if ch["x0"] >= w / 2)
            out.append((left, right))
    return out


def test_imposed_booklet_puts_pages_on_the_right_halves(tmp_path):
    src, dest = tmp_path / "src.pdf", tmp_path / "booklet.pdf"
    numbered_pdf(src, 5)
    assert impose_booklet(src, dest, A4, "long") == 4
    halves = half_texts(dest)
    with pdfplumber.open(dest) as pdf:
        assert all(p.width > p.height for p in pdf.pages)  # landscape sheets
        assert round(pdf.pages[0].width) == round(A4[1])
    # Fronts upright: (left, right). Backs rotated 180°, so the left slot lands on the right.
    assert halves[0] == ("", "P1")
    assert sorted(halves[1][1]) == sorted("P2") and halves[1][0] == ""
    assert halves[2] == ("", "P3")
    assert sorted(halves[3][1]) == sorted("P4") and sorted(halves[3][0]) == sorted("P5")


def test_rulebook_booklet_builds_on_letter(tmp_path):
    result = build_rulebook("ridm", RulebookOptions(paper="letter", booklet=True, out_dir=tmp_path))
    assert result.path.name == "rulebook-letter-booklet.pdf"
    assert result.sheets == -(-result.pages // 4) * 2
    with pdfplumber.open(result.path) as pdf:
        assert len(pdf.pages) == result.sheets
        assert (round(pdf.pages[0].width), round(pdf.pages[0].height)) == (792, 612)
        assert "罗德岛" in (pdf.pages[0].extract_text() or "")  # the cover is on the first front


# ---------------------------------------------------------------------------- HTML


@pytest.fixture(scope="module")
def ridm_html(rulebook_htmls):
    return rulebook_htmls["ridm"].read_text(encoding="utf-8")


def test_html_is_well_formed_and_self_contained(ridm_html):
    assert ridm_html.startswith("<!DOCTYPE html>")
    root = ET.fromstring(ridm_html.split("\n", 1)[1])  # XHTML-compatible: parses as XML
    assert root.tag == "html"
    without_data = re.sub(r"url\(data:font/woff2;base64,[A-Za-z0-9+/=]+\)", "",
                          re.sub(r"data:image/(?:png|jpeg);base64,[A-Za-z0-9+/=]+", "", ridm_html))
    # the deck pictures' inline <svg> declares its namespace (a name, not a place anything loads from)
    without_data = without_data.replace('<svg xmlns="http://www.w3.org/2000/svg"', "<svg")
    assert not re.search(r"(?:https?:)?//[a-z]|url\(", without_data)
    srcs = [el.get("src") for el in root.iter("img")]
    assert srcs and all(re.match(r"data:image/(png|jpeg);base64,", s) for s in srcs)
    assert not list(root.iter("link")) and not [el for el in root.iter("script") if el.get("src")]
    assert 'name="viewport"' in ridm_html
    ids = {el.get("id") for el in root.iter() if el.get("id")}
    links = [el.get("href")[1:] for el in root.iter("a") if (el.get("href") or "").startswith("#")]
    assert links and all(target in ids for target in links)


def test_html_embeds_font_subsets_covering_every_character(ridm_html):
    import base64

    from fontTools.ttLib import TTFont

    fonts = re.findall(r'font-weight:(\d+);[^}]*url\(data:font/woff2;base64,([A-Za-z0-9+/=]+)\)', ridm_html)
    assert sorted(w for w, _ in fonts) == ["400", "700"]
    text = re.sub(r"<[^>]+>", "", re.sub(r"<style>.*?</style>", "", ridm_html, flags=re.S))
    from html import unescape

    needed = {ord(ch) for ch in unescape(text) if not ch.isspace()}
    for _, data in fonts:
        cmap = set(TTFont(io.BytesIO(base64.b64decode(data))).getBestCmap())
        assert needed <= cmap, sorted(chr(c) for c in needed - cmap)[:10]
        assert len(cmap) < 5000  # a subset, not the whole font


def test_html_says_what_the_pdf_says(ridm_html):
    doc = parse_document(render_source("ridm").markdown)
    for h in doc.headings():
        assert h.title in ridm_html
    assert "房规说明" in ridm_html and "理智" in ridm_html


# ---------------------------------------------------------------------------- lookup


@pytest.mark.parametrize("game,term", [("duel", "湮灭"), ("duel", "贯穿"), ("backrooms", "切出"), ("ridm", "理智")])
def test_lookup_finds_the_entry_and_the_sections(game, term):
    result = lookup(game, term)
    assert [e.term for e in result.entries] == [term]
    assert result.mentions
    assert all(any(term in line for line in m.lines) or term in m.section.title for m in result.mentions)


def test_lookup_by_alias_and_text_only_terms():
    assert lookup("backrooms", "前哨").entries[0].term == "前哨站"
    found = lookup("backrooms", "反伤")
    assert found.mentions and found.entries


def test_lookup_suggests_near_misses():
    with pytest.raises(UnknownTerm) as exc:
        lookup("ridm", "理智值")
    assert "理智" in exc.value.suggestions
    with pytest.raises(UnknownTerm) as exc:
        lookup("backrooms", "切换层级啦")
    assert exc.value.suggestions


def test_rules_command_prints_entry_and_sections():
    result = runner.invoke(app, ["rules", "duel", "湮灭"])
    assert result.exit_code == 0, result.output
    assert "湮灭" in result.output and "幽冥" in result.output and "§" in result.output


def test_rules_command_fails_with_suggestions():
    result = runner.invoke(app, ["rules", "ridm", "理智值"])
    assert result.exit_code == 1
    assert "理智值" in result.output and "did you mean" in result.output and "理智" in result.output


@pytest.mark.parametrize("command", ["rulebook", "rules"])
def test_commands_have_help_with_an_example(command):
    result = runner.invoke(app, [command, "--help"])
    assert result.exit_code == 0
    assert "Example" in result.output and f"cardpress {command}" in result.output


# ---------------------------------------------------------------------------- errors


def test_missing_glyph_is_an_error_naming_section_and_character(game_copy, tmp_path):
    folder = game_copy("ridm")
    glossary = folder / "templates" / "glossary.yaml"
    glossary.write_text(glossary.read_text(encoding="utf-8") + "- term: 怪字\n  definition: 这个字\U00013000画不出来。\n",
                        encoding="utf-8")
    with pytest.raises(MissingGlyphs) as exc:
        build_rulebook(folder, RulebookOptions(out_dir=tmp_path / "out"))
    assert "怪字" in str(exc.value) and "U+13000" in str(exc.value)
    assert not (tmp_path / "out" / "rulebook-a4.pdf").exists()  # nothing half-written


def test_template_mistakes_name_file_and_line(game_copy):
    folder = game_copy("duel")
    tpl = folder / "templates" / "rulebook.md.j2"
    tpl.write_text((render_source("duel").template_path).read_text(encoding="utf-8")
                   + "\n{{ rules.starting_lifee }}\n", encoding="utf-8")
    with pytest.raises(RulebookTemplateError) as exc:
        render_source(folder)
    assert "rulebook.md.j2" in str(exc.value) and "starting_lifee" in str(exc.value)


def test_rulebook_command_writes_the_file_and_reports_bad_games(tmp_path):
    result = runner.invoke(app, ["rulebook", "ridm", "--out", str(tmp_path), "--paper", "letter"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "rulebook-letter.pdf").is_file()
    result = runner.invoke(app, ["rulebook", "nosuchgame", "--out", str(tmp_path)])
    assert result.exit_code == 1 and "nosuchgame" in result.output
