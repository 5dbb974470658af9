"""Templates → element lists: the fast reader agrees with YAML on everything templates write."""

from __future__ import annotations

import yaml

from engine.check import check_game
from pipeline.layout import Layouts, parse_elements


def test_fast_path_equals_yaml_for_every_shipped_face_and_back():
    for game_id in ("backrooms", "duel", "ridm"):
        report = check_game(game_id)
        layouts = Layouts(report.game)
        for card in list(report.cards.values()):
            tpl = layouts._template([f"{card.type}.yaml.j2", "card.yaml.j2"])
            ctype = report.game.card_types[card.type]
            source = tpl.render(W=63, H=88, card=card, c=card.values, ctype=ctype, type_id=card.type,
                                fields=report.game.fields_of(card.type), color=layouts.style.color(card.type),
                                rules=report.game.rules, bleed=3, has_art=False)
            assert parse_elements(source) == yaml.safe_load(source), card.id


def test_odd_yaml_falls_back_to_the_yaml_reader():
    # Block style, anchors, bare '#' (a YAML comment) and single quotes are all legal YAML.
    for source in (
        "- kind: rect\n  x: 1\n",
        "- {kind: text, text: 'it''s', x: 1}\n",
        "- &a {kind: rect, x: 1}\n- *a\n",
        "- {kind: rect, fill: red} # comment\n",
    ):
        assert parse_elements(source) == yaml.safe_load(source)
    assert parse_elements('- {kind: text, text: "【切入】时：抽1张, x: 2", size: 8.5, bold: true}\n') == [
        {"kind": "text", "text": "【切入】时：抽1张, x: 2", "size": 8.5, "bold": True}
    ]


def test_icons_in_rules_text_render_and_unknown_icons_are_named(tmp_path):
    from typer.testing import CliRunner

    from pipeline.cli.app import app
    from pipeline.scaffold import scaffold

    game = scaffold(tmp_path / "g", "图标")
    cards = game / "cards" / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("text: 对1个单位造成2点伤害。",
                                                              "text: 支付1:cost:，对1个单位造成2:attack:伤害。"),
                     encoding="utf-8")
    layouts = Layouts(check_game(game).game)
    markup = layouts._rich("支付1:cost:，造成2:attack:伤害。")
    assert "◆" in markup and "▲" in markup and ":cost:" not in markup
    out = tmp_path / "out"
    assert CliRunner().invoke(app, ["build", str(game), "--paper", "a4", "--out", str(out)]).exit_code == 0
    from pypdf import PdfReader

    assert "◆" in "".join(p.extract_text() for p in PdfReader(out / "cards-a4.pdf").pages)

    cards.write_text(cards.read_text(encoding="utf-8").replace(":attack:", ":sword:"), encoding="utf-8")
    result = CliRunner().invoke(app, ["build", str(game), "--out", str(tmp_path / "out2")])
    assert result.exit_code == 1
    assert "card 'spark'" in result.output and "unknown icon :sword:" in result.output
