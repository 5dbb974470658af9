"""JSON Schemas (draft 2020-12) of one game's files, so an editor completes and checks them.

``cardpress schema GAME`` writes three files:

- ``game.schema.json``: ``game.yaml``, from the pydantic models of ``engine.definitions``;
- ``cards.schema.json``: the game's YAML card files (a list of cards, or ``cards:`` holding
  one): ``type`` is an enum of *this* game's card types and each type's fields carry their
  kind, range, length, enum values and whether they are required (``if``/``then`` per type);
- ``deck.schema.json``: deck files (``name``, ``description``, ``cards: {card id: copies}``)
  with this game's card ids and each card's copy limit.

A YAML file opts in with a first line the YAML language server (VS Code's YAML extension)
reads: ``# yaml-language-server: $schema=schemas/game.schema.json`` (``schema_line``).

The schemas follow the loaders (``engine.cards``, ``engine.decks``): what the loader accepts
passes (``cost: "3"``, an optional field left blank, ``name: 123`` as text), and what it refuses
fails, except what a schema cannot say: duplicate ids, art files that do not exist, the deck's
total size, copies counted by name, and game.yaml's cross-references (a requirement naming an
unknown type). ``cardpress check`` reports those.

Example::

    >>> from engine.definitions import load_game
    >>> from engine.cards import load_cards
    >>> game = load_game("duel")
    >>> sorted(schemas(game, load_cards(game)))
    ['cards', 'deck', 'game']
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path
from typing import Any, Iterable

from engine.cards import ID_PATTERN, MAX_ID_CHARS, Card
from engine.definitions import COMMON_FIELDS, FieldSpec, GameDefinition
from engine.presets import card_sizes
from engine.limits import MAX_CARD_MM, MAX_COPIES, MAX_FIELD_CHARS, MIN_CARD_MM
from engine.data.remote import MAX_URL_CHARS
from engine.paths import card_data_root

from ..atomic import atomic_write, output_path

DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: The folder of a game (``cardpress new``) that holds its schemas; the ``$schema`` lines point here.
SCHEMA_DIR = "schemas"
#: Schema kind → file name.
FILES = {"game": "game.schema.json", "cards": "cards.schema.json", "deck": "deck.schema.json"}

# What the loader accepts beside a typed value (engine.cards._coerce): ECMA-262 patterns (an
# editor's regex dialect) that Python's ``re`` reads the same way.
_INT_TEXT = r"^\s*[+-]?[0-9]+\s*$"
_BOOL_TEXT = r"^\s*(?:[Tt][Rr][Uu][Ee]|[Yy][Ee][Ss]|1|是|[Ff][Aa][Ll][Ss][Ee]|[Nn][Oo]|0|否)\s*$"
_BLANK = r"^\s*$"
_FILLED = r"\S"
#: A short label: once stripped, one line.
_ONE_LINE = r"^\s*(?:\S(?:[^\n]*\S)?)?\s*$"
#: YAML scalars the loader reads as text (``name: 123`` is the name "123").
_SCALAR_AS_TEXT = {"type": ["number", "boolean"]}


def schema_line(kind: str, depth: int = 0) -> str:
    """The first line that ties a YAML file to its schema, for a file ``depth`` folders below
    the game folder (``game.yaml``: 0; ``cards/x.yaml``: 1).

    >>> schema_line("cards", 1)
    '# yaml-language-server: $schema=../schemas/cards.schema.json'
    """
    return f"# yaml-language-server: $schema={'../' * depth}{SCHEMA_DIR}/{FILES[kind]}"


# ---------------------------------------------------------------------------- game.yaml


@cache
def _model_schema() -> dict[str, Any]:
    from engine.definitions import GameDefinition as Model

    return Model.model_json_schema(by_alias=True, mode="validation")


def _walk(node: Any) -> Iterable[dict]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


#: What each top-level key of game.yaml is, as a designer reads it in the editor.
GAME_KEYS = {
    "id": "游戏编号：字母、数字、- 或 _（用作输出文件夹名 dist/<编号>）",
    "name": "游戏名称",
    "name_en": "英文名称（可空）",
    "version": "规则版本",
    "players": "玩家人数",
    "card_size": "卡牌尺寸（毫米）",
    "terms": "玩家对“回合”“轮”的叫法",
    "card_types": "卡牌类型：类型编号 → 名称、卡背、字段",
    "deck": "组牌规则：张数上下限、同名卡上限、类型要求",
    "zones": "桌面区域",
    "phases": "回合阶段",
    "keywords": "关键词（卡面与术语表）",
    "rules": "规则数值（cardpress track 使用），按 ruleset 区分",
    "card_sources": "网上的卡牌表：发布为 CSV 的网址（如 Google 表格“发布到网络”），与 cards/ 中的文件一起读取；"
                    "下载后缓存，离线时使用缓存",
}


def game_schema(game: GameDefinition) -> dict[str, Any]:
    """The schema of ``game.yaml`` (the same for every game; titled with this one's name).

    pydantic's schema, with what its validators check in code said as schema where it can be:
    slugs and card sizes, and an enum field's ``values``.
    """
    schema = copy.deepcopy(_model_schema())
    defs = schema.get("$defs", {})
    props = schema["properties"]
    props.pop("folder", None)  # set by the loader, never written in the file
    schema["required"] = [r for r in schema.get("required", []) if r != "folder"]
    slug = {"minLength": 1, "maxLength": 64}
    props["id"].update(slug)
    for key, text in GAME_KEYS.items():
        if key in props:
            props[key]["description"] = text
    if "CardType" in defs:
        defs["CardType"]["properties"]["back"].update(slug)
    if "CardSize" in defs:
        for side in ("width_mm", "height_mm"):
            defs["CardSize"]["properties"][side].update(minimum=MIN_CARD_MM, maximum=MAX_CARD_MM)
        # card_size: a preset's name or millimetres (engine.presets.card_sizes).
        presets = {"enum": list(card_sizes()),
                   "description": "预设尺寸：" + "，".join(f"{name} {w:g}×{h:g}" for name, (w, h)
                                                      in card_sizes().items())}
        size = props.get("card_size")
        if size is not None:
            props["card_size"] = {"anyOf": [{"$ref": size.pop("$ref")}, presets], **size}
        ctype = defs.get("CardType", {}).get("properties", {}).get("card_size")
        if ctype is not None:
            ctype["anyOf"].insert(1, presets)
            ctype["description"] = "这类卡自己的尺寸（预设或毫米），默认为游戏的 card_size"
    if "CardSource" in defs:  # what engine.data.remote.url_problem checks in code
        source = defs["CardSource"]["properties"]
        source["url"].update(pattern="^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/]+", maxLength=MAX_URL_CHARS,
                             description="发布为 CSV 的网址（http:// 或 https://）")
        source["name"]["description"] = "消息中的名称，如 units.csv（默认：网址）"
    spec = defs.get("FieldSpec")
    if spec is not None:
        spec["allOf"] = [
            {"if": {"properties": {"type": {"const": "enum"}}, "required": ["type"]},
             "then": {"required": ["values"], "properties": {"values": {"minItems": 1}}},
             "else": {"properties": {"values": {"maxItems": 0}}}},
        ]
    for node in _walk(schema):  # pydantic marks the discriminated union for OpenAPI; JSON Schema ignores it
        node.pop("discriminator", None)
    return {
        "$schema": DIALECT,
        "title": f"{game.name} 游戏定义（game.yaml）",
        "description": "卡牌类型与字段、组牌规则、区域、阶段、关键词和规则数值。"
                       "类型名、字段引用等交叉检查由 cardpress check 完成。",
        **{k: v for k, v in schema.items() if k not in ("title", "description")},
    }


# ---------------------------------------------------------------------------- cards


def _enum_values(spec: FieldSpec) -> list[Any]:
    """An enum's values, plus the YAML scalars the loader reads as them: it compares the text as
    written, so ``1`` is the value "1" and ``true`` the value "true"."""
    values: list[Any] = list(spec.values)
    for value in spec.values:
        if re.fullmatch(r"-?[0-9]+", value) and str(int(value)) == value:
            values.append(int(value))
        elif value in ("true", "false"):
            values.append(value == "true")
    return values


def _string(*patterns: str, max_len: int | None = None) -> dict[str, Any]:
    node: dict[str, Any] = {"type": "string", "maxLength": min(max_len or MAX_FIELD_CHARS, MAX_FIELD_CHARS)}
    if len(patterns) == 1:
        node["pattern"] = patterns[0]
    elif patterns:
        node["allOf"] = [{"pattern": p} for p in patterns]
    return node


def field_schema(spec: FieldSpec, required: bool) -> dict[str, Any]:
    """One card field as the loader reads it; an optional field may be left blank (``cost:``)."""
    node: dict[str, Any] = {"title": spec.label}
    notes = [spec.help] if spec.help else []
    filled = (_FILLED,) if required else ()
    if spec.kind == "int":
        number: dict[str, Any] = {"type": "integer"}
        if spec.min is not None:
            number["minimum"] = spec.min
        if spec.max is not None:
            number["maximum"] = spec.max
        span = ("" if spec.min is None else f"{spec.min}") + "–" + ("" if spec.max is None else f"{spec.max}")
        notes.append(f"整数 {span}" if span != "–" else "整数")
        branches = [number, {"type": "string", "pattern": _INT_TEXT}]
    elif spec.kind == "bool":
        notes.append("true / false（也可写 是 / 否）")
        branches = [{"type": "boolean"}, {"enum": [0, 1]}, {"type": "string", "pattern": _BOOL_TEXT}]
    elif spec.kind == "enum":
        shown = [f"{v}（{spec.labels[v]}）" if v in spec.labels else v for v in spec.values]
        notes.append("可选：" + "、".join(shown))
        branches = [{"enum": _enum_values(spec)}]
    elif spec.kind == "str":
        branches = [_string(_ONE_LINE, *filled, max_len=spec.max_len), _SCALAR_AS_TEXT]
        if spec.max_len:
            notes.append(f"单行，最多 {spec.max_len} 字")
    else:  # text: rules or flavour text, several paragraphs allowed
        branches = [_string(*filled, max_len=spec.max_len), _SCALAR_AS_TEXT]
        if spec.max_len:
            notes.append(f"最多 {spec.max_len} 字")
    if not required and spec.kind in ("int", "bool", "enum"):
        branches.append({"type": "string", "pattern": _BLANK})
    if not required:
        branches.append({"type": "null"})
    if required:
        notes.append("必填")
    if spec.default is not None:
        node["default"] = spec.default
    node["description"] = "；".join(notes)
    if len(branches) == 1:
        node.update(branches[0])
    else:
        node["anyOf"] = branches
    return node


def _card_def(game: GameDefinition, type_id: str) -> dict[str, Any]:
    ctype = game.card_types[type_id]
    specs = game.fields_of(type_id)
    props: dict[str, Any] = {}
    for key, spec in specs.items():
        if key == "id":
            props[key] = {"title": spec.label, "description": f"小写字母、数字、- 或 _，最多 {MAX_ID_CHARS} 个字符；必填",
                          "type": "string", "pattern": ID_PATTERN.pattern, "maxLength": MAX_ID_CHARS}
        elif key == "type":
            props[key] = {"title": spec.label, "description": f"{ctype.name}", "const": type_id}
        else:
            props[key] = field_schema(spec, spec.required)
    return {
        "type": "object",
        "title": ctype.name,
        "description": ctype.description or ctype.name,
        "properties": props,
        "required": [key for key, spec in specs.items() if spec.required],
        "additionalProperties": False,
    }


def cards_schema(game: GameDefinition) -> dict[str, Any]:
    """The schema of a YAML card file of ``game``: a list of cards (or ``cards:`` holding one)."""
    types = list(game.card_types)
    kinds = "、".join(f"{t}（{c.name}）" for t, c in game.card_types.items())
    card = {
        "type": "object",
        "title": "卡牌",
        "description": f"一张卡。类型：{kinds}",
        "required": ["id", "type", "name"],
        "properties": {
            "type": {"title": COMMON_FIELDS["type"].label, "description": f"卡牌类型：{kinds}", "enum": types},
        },
        "allOf": [
            {"if": {"properties": {"type": {"const": t}}, "required": ["type"]},
             "then": {"$ref": f"#/$defs/card-{t}"}}
            for t in types
        ],
    }
    card_list = {"type": "array", "title": "卡牌列表", "items": {"$ref": "#/$defs/card"}}
    return {
        "$schema": DIALECT,
        "title": f"{game.name} 卡牌文件",
        "description": f"{game.name}的卡牌（YAML 列表，或 cards: 下的列表）。编号不可重复、卡图文件是否存在由 cardpress check 检查。",
        # Not anyOf: each form checked by keywords of its own type, so an error names the card
        # and field instead of "not valid under any of the given schemas".
        "type": ["array", "object", "null"],
        "items": {"$ref": "#/$defs/card"},
        "properties": {"cards": {"$ref": "#/$defs/cards"}},
        "if": {"type": "object"}, "then": {"required": ["cards"]},
        "$defs": {"cards": card_list, "card": card, **{f"card-{t}": _card_def(game, t) for t in types}},
    }


# ---------------------------------------------------------------------------- decks


def copy_limit(game: GameDefinition, card: Card) -> int:
    """Most copies of ``card`` one deck entry may hold (the game's per-type or general limit)."""
    return min(game.deck.type_max_copies.get(card.type, game.deck.max_copies), MAX_COPIES)


def deck_schema(game: GameDefinition, cards: Iterable[Card]) -> dict[str, Any]:
    """The schema of a deck file of ``game``: its card ids as keys, 1..limit copies each."""
    rules = game.deck
    size = str(rules.min_size) if rules.min_size == rules.max_size else f"{rules.min_size}–{rules.max_size}"
    entries = {
        card.id: {"type": "integer", "minimum": 1, "maximum": copy_limit(game, card),
                  "title": card.name,
                  "description": f"{game.card_types[card.type].name}；张数 1–{copy_limit(game, card)}"}
        for card in cards
    }
    text = {"type": ["string", "number", "boolean", "null"], "maxLength": MAX_FIELD_CHARS}
    return {
        "$schema": DIALECT,
        "title": f"{game.name} 卡组",
        "description": f"卡组文件：卡牌编号: 张数。整副 {size} 张，同名卡最多 {rules.max_copies} 张"
                       "（总数和同名合计由 cardpress check 检查）。",
        "type": "object",
        "required": ["cards"],
        "additionalProperties": False,
        "properties": {
            "name": {**text, "title": "卡组名称"},
            "description": {**text, "title": "卡组说明"},
            "cards": {"type": "object", "title": "卡牌", "description": f"卡牌编号: 张数（整副 {size} 张）",
                      "properties": entries, "additionalProperties": False},
        },
    }


# ---------------------------------------------------------------------------- writing


def schemas(game: GameDefinition, cards: Iterable[Card]) -> dict[str, dict[str, Any]]:
    """The three schemas of ``game`` by kind (``game``, ``cards``, ``deck``)."""
    return {"game": game_schema(game), "cards": cards_schema(game), "deck": deck_schema(game, cards)}


def default_folder(game: GameDefinition) -> Path:
    """Where ``cardpress schema`` writes by default: the game folder's ``schemas/`` (where the
    ``$schema`` lines of ``cardpress new`` point), or ``dist/<id>/schemas`` for a shipped game
    (whose folder belongs to the installation)."""
    folder = game.card_data_dir
    try:
        shipped = folder.resolve().parent == card_data_root().resolve()
    except OSError:
        shipped = False
    return output_path(Path("dist"), game.id) / SCHEMA_DIR if shipped else folder / SCHEMA_DIR


def dump(schema: dict[str, Any]) -> str:
    return json.dumps(schema, ensure_ascii=False, indent=2) + "\n"


def write_schemas(game: GameDefinition, cards: Iterable[Card], folder: Path) -> list[Path]:
    """Write the three schema files into ``folder``, each atomically; return their paths.

    Everything is built before the first file is written, so an error leaves none behind.
    """
    texts = {FILES[kind]: dump(schema) for kind, schema in schemas(game, list(cards)).items()}
    written = []
    for name, text in texts.items():
        path = output_path(Path(folder), name)
        with atomic_write(path) as tmp:
            tmp.write_text(text, encoding="utf-8")
        written.append(path)
    return written
