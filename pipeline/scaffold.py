"""``cardpress new``: a starter game folder that checks, builds and has a rulebook at once.

Besides game.yaml, cards, a deck and a style, the folder gets the generic starter rulebook
(``templates/_common/starter/rulebook.md.j2`` and ``glossary.yaml``, copied into its own
``templates/``): every number in it comes from the folder's game.yaml, so ``cardpress rulebook
./my-game`` and ``cardpress rules ./my-game 回合`` work before the designer writes a word, and
every error about the rulebook names a file in the game folder, which the designer can edit.

game.yaml, the cards and the deck open with a ``# yaml-language-server: $schema=…`` comment
naming the JSON Schemas written into ``schemas/`` (``cardpress schema``), so VS Code's YAML
extension completes and checks them as the designer types.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.errors import CardpressError
from engine.i18n import _
from engine.paths import templates_root

#: game.yaml `id` is at most this long (it names the output folder).
MAX_GAME_ID_CHARS = 64

GAME_YAML = """\
# {title}: game definition. Every number the checker, tracker and rulebook use lives here.
id: {id}
name: {quoted}
name_en: ""
players: 2
card_size: {{width_mm: 63, height_mm: 88}}
# What players call one player's turn (and, if the game names it, a round of everyone's turns).
terms: {{turn: 回合}}

card_types:
  unit:
    name: 单位
    back: default
    description: 召唤到场上作战的卡。
    fields:
      cost: {{label: 费用, type: int, required: true, min: 0, max: 20}}
      attack: {{label: 攻击, type: int, required: true, min: 0, max: 20}}
      hp: {{label: 生命, type: int, required: true, min: 1, max: 20}}
  spell:
    name: 法术
    back: default
    description: 使用后立即生效的卡。
    fields:
      cost: {{label: 费用, type: int, required: true, min: 0, max: 20}}

deck:
  min_size: 4
  max_size: 60
  max_copies: 3
  copies_by: name
  requirements:
    - {{label: 单位, type: unit, min: 1}}

# What `cardpress track` keeps for this game: turns and phases, and these counters per player.
rules:
  ruleset: generic
  counters:
    life: {{label: 生命, start: 20, lose_at: 0}}
    mana: {{label: 法力, start: 0}}

phases:
  - {{id: draw, name: 抽牌阶段, description: 抽1张牌。}}
  - {{id: main, name: 主要阶段, description: 使用卡牌。}}
  - {{id: end, name: 结束阶段, description: 处理回合结束效果。}}
"""

CARDS_YAML = """\
# Cards of {title}. Add fields as game.yaml declares them; CSV and XLSX files work too.
- id: scout
  type: unit
  name: 斥候
  cost: 1
  attack: 1
  hp: 2
  text: 【入场】时：抽1张牌。
  flavor: 先看清道路，再迈出脚步。
- id: guardian
  type: unit
  name: 守卫者
  cost: 3
  attack: 2
  hp: 5
  text: 对方单位攻击时，必须优先攻击本卡。
- id: spark
  type: spell
  name: 火花
  cost: 1
  text: 对1个单位造成2点伤害。
- id: insight
  type: spell
  name: 灵感
  cost: 2
  text: 抽2张牌，然后弃置1张手牌。
"""

DECK_YAML = """\
name: 入门卡组
description: 每张卡各两张。
cards:
  scout: 2
  guardian: 2
  spark: 2
  insight: 2
"""

STYLE_YAML = """\
# Colours of this game's cards; add templates/<type>.yaml.j2 to design a face of your own
# (see the shipped games' templates for examples). Unset keys fall back to the defaults.
accent: "#33506b"
back_color: "#22313f"
back_line: "#d9c58f"
type_colors:
  unit: "#6b3333"
  spell: "#33506b"
"""


#: The generic starter rulebook and glossary (``pipeline.rulebook.source.STARTER``), copied (not
#: referenced) so the designer owns them.
STARTER_FILES = ("rulebook.md.j2", "glossary.yaml")


#: Scaffolded YAML files and the schema (``pipeline.outputs.schema.FILES``) each one names.
SCHEMA_OF = {"game.yaml": "game", "cards/cards.yaml": "cards", "decks/starter.yaml": "deck"}


class ScaffoldError(CardpressError):
    """The target folder exists and is not empty."""


def scaffold(path: Path, name: str | None = None) -> Path:
    """Create a starter game at ``path``; refuse to touch a non-empty folder (nothing is lost)."""
    path = Path(path)
    if path.exists() and any(path.iterdir()):
        raise ScaffoldError(_("{path} exists and is not empty; choose a new folder").format(path=path))
    game_id = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in path.resolve().name.lower())
    game_id = game_id[:MAX_GAME_ID_CHARS].strip("-")  # the id is a slug: it names dist/<id>
    name = name or path.resolve().name
    # The name is the user's text: quoted as a YAML (JSON) string so ": " or "#" in it cannot
    # break game.yaml, and kept to one line in the comments.
    title = " ".join(name.split())
    files = {
        "game.yaml": GAME_YAML.format(id=game_id or "my-game", title=title, quoted=json.dumps(name, ensure_ascii=False)),
        "cards/cards.yaml": CARDS_YAML.format(title=title),
        "decks/starter.yaml": DECK_YAML,
        "templates/style.yaml": STYLE_YAML,
    }
    from .rulebook.source import STARTER

    starter = templates_root() / STARTER
    for file in STARTER_FILES:
        files[f"templates/{file}"] = (starter / file).read_text(encoding="utf-8")
    from .outputs.schema import schema_line

    # The YAML language server (VS Code's YAML extension) reads a comment line naming a schema
    # (the first path after ``$schema=``): the editor then completes and checks the files
    # against this game's schemas/. It is the files' first line, on its own.
    for rel, kind in SCHEMA_OF.items():
        files[rel] = f"{schema_line(kind, rel.count('/'))}\n{files[rel]}"
    for rel, text in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    (path / "art").mkdir(exist_ok=True)
    write_game_schemas(path)
    return path


def write_game_schemas(path: Path) -> list[Path]:
    """The folder's ``schemas/`` (``cardpress schema``), from the game.yaml and cards it holds."""
    from engine.cards import load_cards
    from engine.definitions import load_game

    from .outputs.schema import SCHEMA_DIR, write_schemas

    game = load_game(path)
    return write_schemas(game, load_cards(game), path / SCHEMA_DIR)
