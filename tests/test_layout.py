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
