"""A stranger's templates, markup, style and drawing cannot run code, read files, hang or crash.

Every hostile input goes through the CLI (``check`` and ``build`` on a scaffolded game folder
whose ``templates/`` we write): exit 1, a message naming the template file and line (or the
file, line and key), and no output file.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli.app import app
from pipeline.scaffold import scaffold

runner = CliRunner()
REPO = Path(__file__).resolve().parent.parent

#: A valid first line, so a payload on line 2 proves the line number is the payload's.
FIRST_LINE = "- {kind: rect, x: 0, y: 0, w: 10, h: 10, fill: \"#ffffff\"}\n"


@pytest.fixture
def game(tmp_path):
    return scaffold(tmp_path / "g", "测试")


def _face(game: Path, body: str) -> Path:
    path = game / "templates" / "card.yaml.j2"
    path.write_text(FIRST_LINE + body + "\n", encoding="utf-8")
    return path


def _fails(game: Path, *expected: str, commands=("check", "build")) -> str:
    """Each command exits 1 with every fragment in its message; build writes nothing."""
    out = game / "dist"
    texts = []
    for command in commands:
        args = [command, str(game)] + (["--out", str(out)] if command == "build" else [])
        result = runner.invoke(app, args)
        assert result.exit_code == 1, (command, result.output)
        assert "Traceback" not in result.output and "internal error" not in result.output, result.output
        for fragment in expected:
            assert fragment in result.output, (command, fragment, result.output)
        texts.append(result.output)
    assert not out.exists() or not any(out.iterdir())
    return "\n".join(texts)


# ---------------------------------------------------------------------------- sandbox payloads

PAYLOADS = {
    "globals-via-cycler": ("{{ cycler.__init__.__globals__.os.popen('id').read() }}", "'__init__'"),
    "class-mro": ("{{ ''.__class__.__mro__ }}", "'__class__'"),
    "lipsum-globals": ("{{ lipsum.__globals__ }}", "lipsum"),
    "self-globals": ("{{ self.__init__.__globals__ }}", "'__init__'"),
    "huge-range": ("{{ range(10**15)|list }}", "loop iterations"),
    "string-repeat": ("{{ 'x' * 10**9 }}", "repeated 1,000,000,000 times"),
    "power-tower": ("{{ 10**10**10 }}", "digits"),
    "nested-loops": ("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
                     "loop iterations"),
    "loops-over-lists": ("{% set L = range(1000)|list %}{% for a in L %}{% for b in L %}{% for c in L %}"
                         "{% endfor %}{% endfor %}{% endfor %}", "loop iterations"),
    "recursive-macro": ("{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", "too deeply"),
    "model-class": ("{{ game.__class__ }}", "'__class__'"),
    "model-config": ("{{ game.model_config }}", "'model_config'"),
    "model-dict": ("{{ game.__dict__ }}", "'__dict__'"),
    "model-copy": ("{{ game.model_copy() }}", "'model_copy'"),
    "model-dump": ("{{ game.model_dump() }}", "'model_dump'"),
    "pydantic-v1-api": ("{{ game.copy() }}", "'copy'"),
    "pydantic-reads-a-file": ("{{ game.parse_file('/etc/passwd') }}", "'parse_file'"),
    "file-path": ("{{ game.folder }}", "'folder'"),
    "card-file": ("{{ card.where.file }}", "'file'"),
    "class-attribute": ("{{ dict.mro() }}", "'mro'"),
    "print-definition": ("{{ game }}", "which templates do not print"),  # its repr names the folder
    "format-card": ("{{ '%s' % card }}", "which templates do not print"),
    "concat-location": ("{{ 'at ' ~ card.where }}", "which templates do not print"),
    "list-mutation": ("{% set x = [] %}{{ x.append(1) }}", "'append'"),
    "doubling-concat": ("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}"
                        "{% endfor %}", "joining text"),
    "doubling-plus": ("{% set ns = namespace(s=['a']) %}{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}"
                      "{% endfor %}", "joining two"),
    "many-references-to-a-long-string": ("{% set L = ['x' * 1000000] * 1000000 %}{{ L|tojson }}", "list repeated"),
    "nested-references": ("{% set L = ['x' * 1000000] * 2 %}{% set M = [L] * 1000 %}{{ M }}", "list repeated"),
    "batch-fill-printed": ("{{ range(1)|batch(1000000, 'x' * 1000000)|list|string }}", "given to |string"),
    "doubling-replace": ("{% set ns = namespace(s='ab') %}{% for i in range(40) %}"
                         "{% set ns.s = ns.s|replace('a', ns.s) %}{% endfor %}", "replaced text"),
    "doubling-int": ("{% set ns = namespace(n=1) %}{% for i in range(100) %}{% set ns.n = ns.n + ns.n %}"
                     "{% endfor %}", "more than 18 digits"),
    "huge-output": ("{% for i in range(900000) %}xxxxxxxxxxxxxxx{% endfor %}", "more than 2,000,000 characters"),
    "huge-macro": ("{% macro m() %}{% for i in range(900000) %}xxxxxxxxxxxxxxxxxxxxxx{% endfor %}{% endmacro %}"
                   "{% set x = m() %}", "macro's or block's text"),
    "center-filter": ("{{ 'x'|center(1000000000) }}", "|center"),
    "percent-width": ("{{ '%999999999d'|format(1) }}", "formatted field"),
    "format-width": ("{{ '{:>999999999}'.format(1) }}", "formatted field"),
    "format-attribute": ("{{ '{0.__class__}'.format(game) }}", "'__class__'"),
    "ljust": ("{{ 'x'.ljust(10**9) }}", "padded text"),
    "join-bomb": ("{{ (range(500000)|list)|join('x' * 1000000) }}", "joined text"),
    "division-by-zero": ("{{ 1 / 0 }}", "division by zero"),
    "undefined-name": ("{{ no_such_thing }}", "'no_such_thing' is undefined"),
}


@pytest.mark.parametrize("payload, fragment", PAYLOADS.values(), ids=PAYLOADS.keys())
def test_template_payload_is_a_message_naming_template_and_line(game, payload, fragment):
    # Only one card runs the payload (on line 2 still): the others need not pay for it too.
    _face(game, "{% if card.id == 'scout' %}" + payload + "{% endif %}")
    _fails(game, "card.yaml.j2, line 2", "card 'scout'", fragment)


def test_popen_payload_does_not_run(game, tmp_path):
    marker = tmp_path / "PWNED"
    for payload in (
        f"{{{{ cycler.__init__.__globals__.os.popen('touch {marker}').read() }}}}",
        f"{{{{ joiner.__init__.__globals__.os.system('touch {marker}') }}}}",
        f"{{{{ namespace.__init__.__globals__.os.system('touch {marker}') }}}}",
        f"{{{{ game.fields_of.__func__.__globals__['os'].system('touch {marker}') }}}}",
        f"{{{{ (game|attr('__class__')).__init__.__globals__['os'].system('touch {marker}') }}}}",
    ):
        _face(game, payload)
        _fails(game, "card.yaml.j2, line 2", commands=("check",))
    assert not marker.exists()


def test_a_hanging_render_is_stopped_by_the_clock(game, monkeypatch):
    from engine import limits

    monkeypatch.setattr(limits, "MAX_TEMPLATE_SECONDS", 0.2)
    # Sorting a long list again and again: no loop iteration bound is reached before the clock.
    _face(game, "{% set L = range(200000)|list %}{% for i in range(1000) %}{{ L|sort|length }}{% endfor %}")
    monkeypatch.setattr(limits, "MAX_TEMPLATE_ITERATIONS", 10**9)
    out = _fails(game, "card.yaml.j2, line 2", "takes more than 0.2 s for one render", commands=("check",))
    # The other cards are not given the same 0.2 s each (hundreds of cards would add up to a hang):
    # one render per process (a build splits its cards over up to two) takes the clock.
    from pipeline.workers import resolve_jobs

    timed_out = out.count("takes more than 0.2 s for one render")
    assert 1 <= timed_out <= resolve_jobs(None)
    assert out.count("not rendered, the template ran out of time for card '") == 4 - timed_out


def test_a_build_stops_when_templates_use_up_the_build_budget(game, monkeypatch):
    from engine import limits

    # A template just under the per-render bound for every card: the build-wide bound ends it.
    monkeypatch.setattr(limits, "MAX_BUILD_TEMPLATE_SECONDS", 0.0)
    _face(game, "{% for i in range(3000) %}{% endfor %}")
    _fails(game, "not rendered, the templates have taken more than 0 s in all for this build")


def test_back_templates_are_sandboxed_too(game):
    (game / "templates" / "back.yaml.j2").write_text(FIRST_LINE + "{{ ''.__class__ }}\n", encoding="utf-8")
    _fails(game, "back.yaml.j2, line 2", "back 'default'", "'__class__'")


def test_macros_imported_from_the_game_folder_are_sandboxed(game):
    (game / "templates" / "macros.j2").write_text(
        "{% macro keyword(term, color=None) %}{{ term.__class__ }}{% endmacro %}\n"
        "{% macro marker(mark, color=None) %}{{ mark }}{% endmacro %}\n", encoding="utf-8")
    _fails(game, "macros.j2, line 1", "card 'scout'", "'__class__'")


# ---------------------------------------------------------------------------- loader confinement


def test_include_with_dotdot_is_refused(game):
    _face(game, "{% include '../../../../etc/passwd' %}")
    _fails(game, "card.yaml.j2, line 2", "'..'")


def test_include_of_a_file_of_the_game_outside_templates_is_refused(game):
    _face(game, "{% include '../cards/cards.yaml' %}")
    _fails(game, "card.yaml.j2, line 2", "outside the game folder")


@pytest.mark.parametrize("tag", ["include", "import", "extends", "from"])
def test_absolute_template_names_are_refused(game, tag):
    stmt = "{% from '/etc/passwd' import x %}" if tag == "from" else f"{{% {tag} '/etc/passwd' %}}"
    stmt += " as m" if tag == "import" else ""
    stmt = stmt.replace("' %} as m", "' as m %}")
    _face(game, stmt)
    _fails(game, "card.yaml.j2, line 2", "absolute path")


def test_symlink_leading_out_is_refused(game, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("- {kind: text, x: 0, y: 0, w: 50, h: 5, text: \"SECRET\"}\n", encoding="utf-8")
    (game / "templates" / "evil.j2").symlink_to(secret)
    _face(game, "{% include 'evil.j2' %}")
    out = _fails(game, "card.yaml.j2, line 2", "evil.j2", "outside the game folder")
    assert "SECRET" not in out


def test_symlinked_face_template_is_refused(game, tmp_path):
    elsewhere = tmp_path / "elsewhere.yaml.j2"
    elsewhere.write_text(FIRST_LINE, encoding="utf-8")
    (game / "templates" / "card.yaml.j2").symlink_to(elsewhere)
    _fails(game, "card.yaml.j2", "outside the game folder")


def test_symlinked_templates_folder_is_refused(game, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "card.yaml.j2").write_text(FIRST_LINE, encoding="utf-8")
    for file in (game / "templates").iterdir():  # style.yaml and the starter rulebook
        file.rename(outside / file.name)
    (game / "templates").rmdir()
    (game / "templates").symlink_to(outside)
    _fails(game, "templates folder", "outside the game folder")


def test_template_name_from_game_yaml_is_confined(game):
    text = (game / "game.yaml").read_text(encoding="utf-8")
    text = text.replace("    name: 单位\n", "    name: 单位\n    template: ../../../../etc/passwd\n", 1)
    (game / "game.yaml").write_text(text, encoding="utf-8")
    _fails(game, "card 'scout'", "card type 'unit'", "'..'")


def test_syntax_error_names_template_and_line(game):
    _face(game, "{% if %}")
    _fails(game, "card.yaml.j2, line 2", "card 'scout'", "syntax error")


def test_template_that_is_not_utf8(game):
    (game / "templates" / "card.yaml.j2").write_bytes(FIRST_LINE.encode() + b"\xff\xfe\n")
    _fails(game, "card.yaml.j2", "not UTF-8")


def test_template_files_are_bounded(game):
    from engine import limits

    (game / "templates" / "big.j2").write_text("x" * (limits.MAX_TEMPLATE_FILE_BYTES + 1), encoding="utf-8")
    _face(game, "{% include 'big.j2' %}")
    _fails(game, "card.yaml.j2, line 2", "big.j2", "larger than 256 KB", commands=("check",))


def test_includes_inside_the_folder_and_shipped_templates_still_work(game):
    (game / "templates" / "parts").mkdir()
    (game / "templates" / "parts" / "frame.j2").write_text(
        "- {kind: rect, x: 1, y: 1, w: 5, h: 5, stroke: \"#000\"}\n", encoding="utf-8")
    _face(game, "{% include 'parts/frame.j2' %}\n{% import 'macros.j2' as m %}"
                "- {kind: para, field: text, x: 5, y: 20, w: 50, h: 30, text: {{ c.text | rich | tojson }}}")
    out = game / "dist"
    result = runner.invoke(app, ["build", str(game), "--paper", "a4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "cards-a4.pdf").is_file()


# ---------------------------------------------------------------------------- element schema


@pytest.mark.parametrize("element, fragments", [
    ("{kind: rect, y: 0, w: 5, h: 5}", ["element 2, key 'x'", "missing"]),
    ("{kind: rect, x: 0, y: 0, w: 5, h: 5, colour: \"#fff\"}", ["element 2, key 'colour'", "unknown key"]),
    ("{kind: rect, x: .nan, y: 0, w: 5, h: 5}", ["element 2, key 'x'", "finite"]),
    ("{kind: rect, x: nan, y: 0, w: 5, h: 5}", ["element 2, key 'x'", "must be a number"]),
    ("{kind: rect, x: 0, y: 0, w: -5, h: 5}", ["element 2, key 'w'", "0 or more"]),
    ("{kind: rect, x: 0, y: 0, w: 5, h: 5, fill: red}", ["element 2, key 'fill'", "colour"]),
    ("{kind: rect, x: 0, y: 0, w: 5, h: 5, fill: \"#12345\"}", ["element 2, key 'fill'", "colour"]),
    ("{kind: text, field: name, x: 0, y: 0, w: 5, h: 5, text: hi, align: middle}",
     ["field 'name'", "element 2, key 'align'", "left, center, right"]),
    ("{kind: text, x: 0, y: 0, w: 5, h: 5, text: hi, size: 0}", ["element 2, key 'size'", "above 0"]),
    ("{kind: text, x: 0, y: 0, w: 5, h: 5, text: hi, size: 6, min_size: 9}", ["element 2, key 'min_size'"]),
    ("{kind: polygon, points: [[0, 0], [1]]}", ["element 2, key 'points'"]),
    ("{kind: line, x1: 0, y1: 0, x2: 1, y2: 1e999}", ["element 2, key 'y2'", "finite"]),
    ("{kind: blob, x: 0}", ["element 2, key 'kind'", "must be one of"]),
    ("just text", ["element 2", "must be a mapping"]),
])
def test_element_schema(game, element, fragments):
    _face(game, f"- {element}")
    _fails(game, "card.yaml.j2", "card 'scout'", *fragments)


def test_a_template_that_renders_no_list_is_refused(game):
    (game / "templates" / "card.yaml.j2").write_text("kind: rect\n", encoding="utf-8")
    _fails(game, "card.yaml.j2", "card 'scout'", "list of elements")


def test_null_text_prints_nothing_rather_than_none(game):
    from engine.check import check_game
    from pipeline.layout import Layouts

    _face(game, "- {kind: text, x: 0, y: 20, w: 50, h: 5, text: null}")
    report = check_game(game)
    elements = Layouts(report.game).face(report.cards["scout"], 3)
    assert elements[1].kind == "text" and elements[1]["text"] == ""


# ---------------------------------------------------------------------------- paragraph markup


def _para(game: Path, markup: str) -> None:
    import json

    _face(game, "- {kind: para, field: text, x: 5, y: 20, w: 50, h: 30, text: " + json.dumps(markup) + "}")


@pytest.mark.parametrize("markup, fragment", [
    ('<img src="/etc/passwd"/>', "<img> is not allowed"),
    ('<font name="Nope">x</font>', "not a font cardpress has"),
    ('<a href="file:///etc/passwd">x</a>', "<a> is not allowed"),
    ('<link href="x">x</link>', "<link> is not allowed"),
    ('<seq id="x"/>', "<seq> is not allowed"),
    ('<onDraw name="x"/>', "<ondraw> is not allowed"),
    ('<font color="red">x</font>', "must be a colour"),
    ('<b>x', "<b> is never closed"),
    ('<b>x</i>', "does not close"),
    ('<font name="CardpressSansSC" onload="x">y</font>', "attribute 'onload'"),
    ('a < b', "lone '<'"),
    ('R&D', "write &amp;"),
    ('<b x>', "malformed tag"),
])
def test_untrusted_paragraph_markup(game, markup, fragment):
    _para(game, markup)
    _fails(game, "card.yaml.j2", "card 'scout'", "field 'text'", "element 2, key 'text'", fragment)


def test_allowed_markup_still_prints(game):
    _para(game, '<b>粗</b><i>斜</i><font name="CardpressSansSC-Bold" color="#8a1c1c">红</font><br/>&lt;x&gt; &amp; '
                '<sup>2</sup>')
    out = game / "dist"
    result = runner.invoke(app, ["build", str(game), "--paper", "a4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    from pypdf import PdfReader

    text = "".join(p.extract_text() for p in PdfReader(out / "cards-a4.pdf").pages)
    assert "粗" in text and "红" in text and "<x>" in text


def test_markup_reportlab_still_refuses_is_a_card_text_error(game, monkeypatch):
    """Belt and braces: a ValueError from ReportLab's parser names card and field, not a traceback."""
    from pipeline.render import painter as draw

    def broken(*args, **kwargs):
        raise ValueError("paraparser: syntax error")

    monkeypatch.setattr(draw, "fit_paragraph", broken)
    _para(game, "正常")
    _fails(game, "cards.yaml, line 1", "card 'scout'", "field 'text'", "paraparser", commands=("check",))


def test_numeric_entities_are_glyph_checked(game):
    _para(game, "画&#x13000;")
    _fails(game, "card 'scout'", "field 'text'", "U+13000")


# ---------------------------------------------------------------------------- image elements


def _image(game: Path, src: str) -> None:
    _face(game, "- {kind: image, x: 0, y: 0, w: 20, h: 20, src: \"" + src + "\"}")


def test_image_outside_the_folder_is_refused(game, tmp_path):
    from PIL import Image

    Image.new("RGB", (4, 4), "red").save(tmp_path / "outside.png")
    for src in ("../outside.png", str(tmp_path / "outside.png"), "/etc/passwd"):
        _image(game, src)
        _fails(game, "card.yaml.j2, element 2", "card 'scout'", "field 'src'", "outside the game folder")


def test_image_symlink_leading_out_is_refused(game, tmp_path):
    from PIL import Image

    Image.new("RGB", (4, 4), "red").save(tmp_path / "outside.png")
    (game / "art" / "logo.png").symlink_to(tmp_path / "outside.png")
    _image(game, "art/logo.png")
    _fails(game, "card.yaml.j2, element 2", "outside the game folder")


def test_image_that_is_not_an_image_or_missing(game):
    (game / "art" / "notes.png").write_text("not a png", encoding="utf-8")
    _image(game, "art/notes.png")
    _fails(game, "card.yaml.j2, element 2", "card 'scout'", "cannot be read as an image")
    _image(game, "art/none.png")
    _fails(game, "card.yaml.j2, element 2", "not found")


def test_image_over_the_pixel_limit_is_refused(game, monkeypatch):
    from PIL import Image

    from engine import limits

    monkeypatch.setattr(limits, "MAX_IMAGE_PIXELS", 10_000)
    Image.new("L", (200, 200), 128).save(game / "art" / "big.png")
    _image(game, "art/big.png")
    _fails(game, "card.yaml.j2, element 2", "200 × 200 pixels", commands=("check",))


def test_image_inside_the_folder_prints(game):
    from PIL import Image

    Image.new("RGB", (8, 8), "red").save(game / "art" / "logo.png")
    _image(game, "art/logo.png")
    out = game / "dist"
    result = runner.invoke(app, ["build", str(game), "--paper", "a4", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert b"/Subtype /Image" in (out / "cards-a4.pdf").read_bytes()


# ---------------------------------------------------------------------------- style.yaml


def _style(game: Path, text: str) -> Path:
    path = game / "templates" / "style.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text, line, fragments", [
    ('accent: "#33506b"\nback_color: blue\n', 2, ["field 'back_color'", "colour"]),
    ('accent: "#33506b"\naccentt: "#000000"\n', 2, ["field 'accentt'", "unknown style key"]),
    ('type_colors:\n  unit: "#6b3333"\n  wizard: "#000000"\n', 3, ["type_colors.wizard", "no card type"]),
    ('icons:\n  sword: {glyph: "<b>", color: "#000000"}\n', 2, ["icons.sword.glyph", "one or two"]),
    ('icons:\n  sword: {glyph: "剑", colour: "#000000"}\n', 2, ["icons.sword.colour", "unknown key"]),
    ('icons:\n  Sword: {glyph: "剑", color: "#000000"}\n', 2, ["icons.Sword"]),
    ('accent: "#33506b"\n  bad: [\n', None, ["malformed YAML"]),
])
def test_style_errors_name_file_line_and_key(game, text, line, fragments):
    _style(game, text)
    expected = ["style.yaml", *fragments] + ([f"line {line}"] if line else [])
    _fails(game, *expected)


def test_style_symlink_leading_out_is_refused(game, tmp_path):
    (tmp_path / "s.yaml").write_text('accent: "#000000"\n', encoding="utf-8")
    style = game / "templates" / "style.yaml"
    style.unlink()
    style.symlink_to(tmp_path / "s.yaml")
    _fails(game, "style file", "outside the game folder")


def test_icon_glyphs_are_glyph_checked(game):
    _style(game, 'icons:\n  odd: {glyph: "\U00013000", color: "#000000"}\n')
    cards = game / "cards" / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("抽1张牌。", "抽1张牌:odd:。", 1), encoding="utf-8")
    _fails(game, "card 'scout'", "field 'text'", "U+13000")


# ---------------------------------------------------------------------------- drawing errors


def test_text_that_does_not_fit_names_card_file_and_line(game):
    cards = game / "cards" / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("text: 【入场】时：抽1张牌。", "text: " + "很长" * 400, 1),
                     encoding="utf-8")
    _fails(game, "cards.yaml, line 3: card 'scout', field 'text'", "does not fit")


# ---------------------------------------------------------------------------- rulebook and glossary


@pytest.fixture
def rule_game(game):
    (game / "templates" / "rulebook.md.j2").write_text(
        "# 测试规则\n\n每位玩家开始时有{{ rules.counters.life.start }}点生命。\n", encoding="utf-8")
    return game


def test_rulebook_template_payload(rule_game):
    path = rule_game / "templates" / "rulebook.md.j2"
    path.write_text("# 测试规则\n\n{{ cycler.__init__.__globals__.os.popen('id').read() }}\n", encoding="utf-8")
    out = rule_game / "dist"
    result = runner.invoke(app, ["rulebook", str(rule_game), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert "rulebook.md.j2, line 3" in result.output and "'__init__'" in result.output
    assert not out.exists() or not any(out.iterdir())


def test_rulebook_include_escape(rule_game):
    from pipeline.rulebook import RulebookTemplateError
    from pipeline.rulebook.source import render_source

    path = rule_game / "templates" / "rulebook.md.j2"
    path.write_text("# 测试规则\n\n{% include '../game.yaml' %}\n", encoding="utf-8")
    with pytest.raises(RulebookTemplateError) as exc:
        render_source(rule_game)
    assert "rulebook.md.j2, line 3" in str(exc.value) and "outside the game folder" in str(exc.value)


def test_glossary_term_no_stays_the_string_no(rule_game):
    from pipeline.rulebook.source import render_source

    (rule_game / "templates" / "glossary.yaml").write_text(
        "- term: NO\n  definition: 否定。\n- term: 生命\n  definition: 起始{{ rules.counters.life.start }}点。\n  "
        "see: [NO]\n", encoding="utf-8")
    glossary = render_source(rule_game).glossary
    assert [e.term for e in glossary] == ["NO", "生命"]
    assert glossary[1].definition == "起始20点。" and glossary[1].see == ("NO",)


@pytest.mark.parametrize("text, line, fragment", [
    ("- term: 生命\n  definition: [unclosed\n", 3, "malformed YAML"),
    ("- term: 生命\n  definition: 好\n- term: 生命\n  definition: 坏\n", 3, "defined twice"),
    ("- term: 生命\n  definition: 好\n- definition: 没有词\n", 3, "needs 'term'"),
    ("- term: 生命\n  definition: \"{{ game.__class__ }}\"\n", 2, "'__class__'"),
    ("- term: 生命\n  definition: \"{{ rules.nope }}\"\n", 2, "nope"),
    ("- term: 生命\n  definition: \"{% if %}\"\n", 2, "syntax error"),
    ("- term: 生命\n  definition: " + "长" * 10_001 + "\n", 2, "longer than 10,000 characters"),
])
def test_glossary_errors_name_line(rule_game, text, line, fragment):
    (rule_game / "templates" / "glossary.yaml").write_text(text, encoding="utf-8")
    out = rule_game / "dist"
    result = runner.invoke(app, ["rulebook", str(rule_game), "--out", str(out)])
    assert result.exit_code == 1, result.output
    assert f"glossary.yaml, line {line}" in result.output and fragment in result.output, result.output
    assert not out.exists() or not any(out.iterdir())


# ---------------------------------------------------------------------------- one factory


def test_no_jinja_environment_outside_the_factory():
    pattern = re.compile(r"jinja2\.(Environment|sandbox\.\w+Environment)\(|from jinja2 import [^\n]*\bEnvironment\b"
                         r"|from jinja2\.sandbox import|jinja2\.(FileSystemLoader|from_string)")
    offenders = []
    for path in sorted((REPO / "pipeline").rglob("*.py")) + sorted((REPO / "engine").rglob("*.py")):
        if path == REPO / "pipeline" / "layout" / "env.py":
            continue
        text = path.read_text(encoding="utf-8")
        offenders += [f"{path.relative_to(REPO)}: {m.group()}" for m in pattern.finditer(text)]
        if re.search(r"^\s*(import jinja2|from jinja2\b)", text, re.M) and path.parent != REPO / "pipeline" / "layout":
            offenders.append(f"{path.relative_to(REPO)}: imports jinja2 outside pipeline/layout/")
    assert offenders == []


def test_the_factory_is_the_only_place_that_builds_an_environment():
    """The grep above is about text; this checks the objects: every environment is the sandbox."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from engine.check import check_game
    from pipeline.layout import Layouts
    from pipeline.rulebook.source import _environment

    assert isinstance(Layouts(check_game("duel").game).env, ImmutableSandboxedEnvironment)
    assert isinstance(_environment([REPO / "templates"], [REPO / "templates"]), ImmutableSandboxedEnvironment)


def test_markup_the_check_accepts_reportlab_can_read():
    """Fuzz: whatever ``check_markup`` lets through parses in ReportLab (no ValueError mid-build)."""
    from hypothesis import given, settings, strategies as st
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.platypus import Paragraph

    from pipeline.render.fonts import register_fonts
    from pipeline.layout.markup import MarkupError, check_markup

    fonts = register_fonts()
    style = ParagraphStyle("t", fontName=fonts.regular, fontSize=9, leading=11, wordWrap="CJK")
    pieces = st.sampled_from([
        "<b>", "</b>", "<i>", "</i>", "<u>", "</u>", "<br/>", "<br>", "<sup>", "</sup>", "<sub>", "</sub>",
        '<font name="CardpressSansSC-Bold">', '<font color="#8a1c1c">', '<font size="7">', "</font>",
        "<img src='x'/>", "<a href='x'>", "</a>", "&amp;", "&lt;", "&#x4e00;", "&#0;", "&bogus;", "&", "<", ">",
        "卡", "a", " ", "【", "】", "\n", '"', "<font name=\"x\" color=\"#fff\">",
    ])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(pieces, max_size=12).map("".join))
    def check(markup):
        try:
            check_markup(markup)
        except MarkupError:
            return
        Paragraph(markup, style).wrap(200, 200)

    check()


def test_any_element_either_fails_the_schema_or_draws(tmp_path):
    """Fuzz: an element the schema accepts never makes the painter raise anything but our errors."""
    import io

    from hypothesis import HealthCheck, given, settings, strategies as st
    from reportlab.pdfgen.canvas import Canvas

    from engine.errors import CardpressError
    from pipeline.render.painter import CardPainter
    from pipeline.render.fonts import register_fonts
    from pipeline.layout.elements import SCHEMA, Element, ElementError, validate_element

    from PIL import Image

    (tmp_path / "art").mkdir()
    Image.new("RGB", (4, 4), "red").save(tmp_path / "art" / "x.png")
    painter = CardPainter(register_fonts(), 63, 88, tmp_path)
    canvas = Canvas(io.BytesIO())
    optional_keys = sorted({k for req, opt in SCHEMA.values() for k in (*req, *opt)})
    numbers = st.floats(-50, 150) | st.integers(0, 100)
    values = st.one_of(
        numbers, st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6), st.booleans(),
        st.none(),
        st.sampled_from(["", "none", "#fff", "#123456", "#12345678", "red", "left", "center", "justify", "middle",
                         "卡牌", "<b>粗</b>", "<img src='x'/>", "art/x.png", "../x.png"]),
        st.lists(st.lists(numbers, min_size=2, max_size=2), min_size=2, max_size=5),
        st.lists(st.floats(0, 10), max_size=3),
    )

    @st.composite
    def elements(draw):
        kind = draw(st.sampled_from(sorted(SCHEMA)))
        required, optional = SCHEMA[kind]
        # Mostly plausible required values, so that many elements pass and get drawn.
        special = {"points": st.lists(st.lists(numbers, min_size=2, max_size=2), min_size=2, max_size=6) | values,
                   "src": st.sampled_from(["art/x.png", "../x.png", "/etc/passwd", "art"])}
        item = {"kind": kind, **{k: draw(special.get(k, numbers)) for k in required}}
        item.update(draw(st.dictionaries(st.sampled_from(sorted(optional) or optional_keys), values, max_size=4)))
        if draw(st.booleans()) and draw(st.booleans()):
            item[draw(st.sampled_from(optional_keys))] = draw(values)
        return item

    @settings(max_examples=400, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(elements())
    def check(item):
        try:
            kind, props = validate_element(1, item)
        except ElementError:
            return
        try:
            painter.paint(canvas, [Element(kind, props, "fuzz, element 1")])
        except CardpressError:
            pass

    check()
    # And one plainly valid element of every kind draws without any error at all.
    box = {"x": 1, "y": 2, "w": 20, "h": 10}
    valid = {"rect": box, "circle": {"cx": 5, "cy": 5, "r": 2}, "line": {"x1": 0, "y1": 0, "x2": 5, "y2": 5},
             "polygon": {"points": [[0, 0], [5, 0], [0, 5]]}, "text": {**box, "text": "卡"},
             "para": {**box, "text": "<b>卡</b>"}, "art": box, "image": {**box, "src": "art/x.png"}}
    assert set(valid) == set(SCHEMA)
    for kind, props in valid.items():
        painter.paint(canvas, [Element(*validate_element(1, {"kind": kind, **props}), "fuzz, element 1")])
