"""Game definitions: ``card_data/<game>/game.yaml`` loaded into frozen, typed models.

One definition per game is the single source of every number and list the deck checker,
the tracker, the card renderer and the rulebook use. Nothing else types a rule number.

Example::

    >>> from engine.definitions import load_game
    >>> game = load_game("backrooms")
    >>> game.rules.outpost_hp
    20
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import os
import re
import secrets
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from .errors import DataError, Location, Problem
from .i18n import N_, _, language
from .i18n import _ as tr
from .games import numbers_models
from .model import CHECKED_RECORDS, AfterValidator, Field, Model, NotChecked, ValidationError, model_validator
from .limits import MAX_CARD_MM, MIN_CARD_MM
from .paths import resolve_game_dir
from .yamlio import line_of, parse_yaml, read_text


#: A name that becomes part of an output path (``dist/<game id>``, ``back-<name>.png``): letters
#: (CJK too), digits, ``-`` and ``_``; never ``.``/``..``, a separator or a leading ``-``.
SLUG = re.compile(r"^[^\W][\w-]{0,63}$")


def _slug(value: str) -> str:
    if not SLUG.fullmatch(value):
        raise ValueError(_("{value!r} is not allowed: use 1–64 letters, digits, '-' or '_' "
                           "(it names output files), not starting with '-' or '.'").format(value=value[:80]))
    return value


Slug = Annotated[str, AfterValidator(_slug)]


def _card_mm(value: float) -> float:
    if not math.isfinite(value) or not MIN_CARD_MM <= value <= MAX_CARD_MM:
        raise ValueError(_("a card side is {min:g}–{max:g} mm, got {value!r}").format(
            min=MIN_CARD_MM, max=MAX_CARD_MM, value=value))
    return value


CardMM = Annotated[float, AfterValidator(_card_mm)]


def _safe_zone(value: float) -> float:
    if not math.isfinite(value) or not 0 <= value <= 20:
        raise ValueError(_("safe_zone_mm is 0–20 mm, got {value!r}").format(value=value))
    return value


_Model = Model


# ---------------------------------------------------------------------------- card schema

FieldKind = Literal["int", "str", "text", "enum", "bool"]


class FieldSpec(_Model):
    """One card field: its kind, Chinese label and constraints.

    ``text`` is rules text (rich: keywords, paragraphs, shrink-to-fit); ``str`` is a short label.
    """

    label: str
    kind: FieldKind = Field(alias="type")
    required: bool = False
    min: int | None = None
    max: int | None = None
    max_len: int | None = None
    values: tuple[str, ...] = ()
    #: How enum values are printed (ids stay stable in data; players read the labels).
    labels: dict[str, str] = {}
    default: Any = None
    help: str = ""

    def label_of(self, value: Any) -> str:
        """What players read for ``value``: its label, else the value itself."""
        return self.labels.get(value, str(value))

    @model_validator(mode="after")
    def _check(self) -> "FieldSpec":
        if self.kind == "enum" and not self.values:
            raise ValueError(_("an enum field needs 'values'"))
        if self.kind != "enum" and self.values:
            raise ValueError(_("'values' is only for enum fields"))
        unknown = set(self.labels) - set(self.values)
        if unknown:
            raise ValueError(_("'labels' names values the field does not have: {values}").format(values=sorted(unknown)))
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(_("min is greater than max"))
        return self


class CardType(_Model):
    """A kind of card (entity, outpost, skill…): its name, the back it prints with, its fields."""

    name: str
    back: Slug = "default"
    template: str | None = None  # defaults to the type id
    #: This type's own size (a preset or millimetres), else the game's ``card_size``.
    card_size: "CardSize | None" = None
    fields: dict[str, FieldSpec] = {}
    description: str = ""


#: Fields every card has, whatever its game. ``text``/``flavor`` are optional rules/flavour text.
COMMON_FIELDS: dict[str, FieldSpec] = {
    "id": FieldSpec(label="编号", type="str", required=True, max_len=64),
    "type": FieldSpec(label="类型", type="str", required=True),
    "name": FieldSpec(label="名称", type="str", required=True, max_len=40),
    "text": FieldSpec(label="效果", type="text"),
    "flavor": FieldSpec(label="描述", type="text"),
    "art": FieldSpec(label="卡图", type="str"),
}


# ---------------------------------------------------------------------------- deck rules


class TypeRequirement(_Model):
    """How many cards of a type (optionally filtered by field values) a deck must hold."""

    label: str
    type: str
    where: dict[str, str | int | bool] = {}
    min: int = 0
    max: int | None = None


class AffiliationRule(_Model):
    """Cards of a deck must share the affiliation of the deck's leader card (backrooms: the
    G.O.I decides which affiliations a deck may carry), or be in ``always`` (e.g. 通用)."""

    field: str
    leader_type: str
    always: tuple[str, ...] = ()


class DeckRules(_Model):
    """Deck construction limits. ``copies_by`` says which field makes two cards 'the same card'."""

    min_size: int
    max_size: int
    max_copies: int
    copies_by: Literal["id", "name"] = "name"
    type_max_copies: dict[str, int] = {}
    requirements: tuple[TypeRequirement, ...] = ()
    affiliation: AffiliationRule | None = None

    @model_validator(mode="after")
    def _check(self) -> "DeckRules":
        if self.min_size > self.max_size:
            raise ValueError(_("min_size is greater than max_size"))
        return self


# ---------------------------------------------------------------------------- table


class Zone(_Model):
    """A place on the table. ``capacity`` None = unlimited; ``shared`` zones belong to nobody."""

    id: str
    name: str
    capacity: int | None = None
    shared: bool = False
    face: Literal["up", "down", "hidden", "mixed"] = "up"
    description: str = ""


class Phase(_Model):
    """A step of a turn; ``reminder`` is what the tracker says on entering it (Jinja-free text)."""

    id: str
    name: str
    description: str = ""


# ---------------------------------------------------------------------------- per-game rules

#: Each game's numbers model (``engine/games/<ruleset>/numbers.py``), told apart by ``ruleset``.
GameRules = Annotated[Union[numbers_models()], Field(discriminator="ruleset")]


class CardSize(_Model):
    """A card's trim size: ``card_size: poker`` (a preset of ``engine.presets.card_sizes``: ``templates/_common/presets/card_sizes.yaml``) or
    ``card_size: {width_mm: 63, height_mm: 88}``."""

    width_mm: CardMM = 63.0
    height_mm: CardMM = 88.0

    @property
    def mm(self) -> tuple[float, float]:
        """(width, height) in millimetres."""
        return self.width_mm, self.height_mm

    @model_validator(mode="before")
    @classmethod
    def _preset(cls, value: Any) -> Any:
        if isinstance(value, str):
            from .presets import card_sizes

            size = card_sizes().get(value.strip().lower())
            if size is None:
                raise ValueError(_("unknown card size {name!r}; use one of {names} or "
                                   "{{width_mm: …, height_mm: …}}").format(
                    name=value[:40], names=", ".join(card_sizes())))
            return {"width_mm": size[0], "height_mm": size[1]}
        return value


class Terms(_Model):
    """What the game calls one player's turn and a round of everyone's turns, as players read
    them (RULES.md 2026-12: backrooms says 轮 and 回合; duel and ridm call a player's turn 回合
    and name no round, so none is shown)."""

    turn: str = "回合"
    round: str | None = None

    def label(self, turn: int, round_: int) -> str:
        """``第3轮（第2回合）`` for backrooms, ``第3回合`` for duel."""
        text = f"第{turn}{self.turn}"
        return f"{text}（第{round_}{self.round}）" if self.round else text


class Keyword(_Model):
    """A rules term printed on cards and explained in the glossary."""

    term: str
    id: str
    summary: str


def _source_url(value: str) -> str:
    from .data.remote import url_problem  # no urllib at import: most games have no URL source

    problem = url_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def _source_name(value: str) -> str:
    if not value.strip() or len(value) > 64 or any(ord(c) < 32 for c in value):
        raise ValueError(_("a source name is 1–64 characters on one line (e.g. units.csv)"))
    return value


class CardSource(_Model):
    """A card file on the web: a published CSV URL (a Google Sheet "published to the web as
    CSV"), fetched, cached and read like ``cards/<name>`` (``engine.data.remote``)."""

    url: Annotated[str, AfterValidator(_source_url)]
    #: How messages name it (``units.csv``); default: the URL.
    name: Annotated[str, AfterValidator(_source_name)] | None = None


class GameDefinition(_Model):
    """Everything a game *is*. Loaded from ``game.yaml``; see ``load_game``."""

    id: Slug
    name: str
    name_en: str = ""
    version: str = "1"
    players: int = 2
    card_size: CardSize = CardSize()
    #: How far inside the trim card text keeps (``check --render``): a cut's tolerance.
    safe_zone_mm: Annotated[float, AfterValidator(_safe_zone)] = 3.0
    terms: Terms = Terms()
    card_types: dict[str, CardType]
    deck: DeckRules
    zones: tuple[Zone, ...] = ()
    phases: tuple[Phase, ...] = ()
    keywords: tuple[Keyword, ...] = ()
    rules: GameRules | None = None
    #: Card files on the web, read beside those in ``cards/``.
    card_sources: tuple[CardSource, ...] = ()
    # Set by the loader, not by the file.
    folder: Path | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _check(self) -> "GameDefinition":
        for key, limit in self.deck.type_max_copies.items():
            if key not in self.card_types:
                raise ValueError(_("deck.type_max_copies names unknown card type {type!r}").format(type=key))
        for req in self.deck.requirements:
            if req.type not in self.card_types:
                raise ValueError(_("deck requirement {label!r} names unknown card type {type!r}").format(
                    label=req.label, type=req.type))
            fields = self.card_types[req.type].fields
            for key in req.where:
                if key not in fields:
                    raise ValueError(_("deck requirement {label!r} filters on unknown field {field!r}").format(
                        label=req.label, field=key))
        aff = self.deck.affiliation
        if aff is not None:
            if aff.leader_type not in self.card_types:
                raise ValueError(_("deck.affiliation names unknown card type {type!r}").format(type=aff.leader_type))
            if aff.field not in self.card_types[aff.leader_type].fields:
                raise ValueError(_("deck.affiliation names unknown field {field!r}").format(field=aff.field))
        for type_id, ctype in self.card_types.items():
            clash = set(ctype.fields) & set(COMMON_FIELDS)
            if clash:
                raise ValueError(_("card type {type!r} redefines common field(s) {fields}").format(
                    type=type_id, fields=sorted(clash)))
        return self

    # Convenience lookups used by the tracker and the renderer.
    def phase(self, phase_id: str) -> Phase:
        for p in self.phases:
            if p.id == phase_id:
                return p
        raise KeyError(phase_id)

    def zone(self, zone_id: str) -> Zone:
        for z in self.zones:
            if z.id == zone_id:
                return z
        raise KeyError(zone_id)

    def card_size_of(self, type_id: str) -> CardSize:
        """The trim size of a card of ``type_id``: the type's ``card_size``, else the game's."""
        ctype = self.card_types.get(type_id)
        return ctype.card_size if ctype is not None and ctype.card_size is not None else self.card_size

    def back_size(self, back: str) -> CardSize:
        """The size of a back design: that of the first card type printed with it (the game's
        size when none is)."""
        for type_id, ctype in self.card_types.items():
            if ctype.back == back:
                return self.card_size_of(type_id)
        return self.card_size

    @property
    def mixed_sizes(self) -> bool:
        """True when the card types are not all one size."""
        return len({(s.width_mm, s.height_mm) for s in map(self.card_size_of, self.card_types)}) > 1

    def fields_of(self, type_id: str) -> dict[str, FieldSpec]:
        """All fields a card of ``type_id`` may carry: the common ones, then the type's own."""
        return {**COMMON_FIELDS, **self.card_types[type_id].fields}

    @property
    def card_data_dir(self) -> Path:
        assert self.folder is not None, "definition was not loaded from a folder"
        return self.folder


def _pydantic_problems(exc: ValidationError, raw: Any, path: Path) -> list[Problem]:
    """Map pydantic errors to located problems: walk the raw YAML along each error's path for
    the line; skip path parts that are not in the file (union tags such as ``duel``)."""
    problems = []
    for err in exc.errors():
        loc = err["loc"]
        node, line, names = raw, getattr(raw, "line", None), []
        for n, key in enumerate(loc):
            if isinstance(node, dict) and key in node:
                line = line_of(node, key) or line
                node, names = node[key], names + [str(key)]
            elif isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node):
                line = line_of(node, key) or line
                node, names = node[key], names + [str(key)]
            elif n == len(loc) - 1 and not str(key).startswith("function-"):
                names.append(str(key))
        problems.append(Problem(_pydantic_message(err), Location(path, line), field=".".join(names) or None))
    return problems


#: pydantic's commonest error types in cardpress's words (``ctx`` fills the placeholders). In
#: English pydantic's own message is kept as it is; in another language this table is used
#: (``tr(message)``: every value is N_-marked).
_PYDANTIC_MESSAGES = {
    "missing": N_("missing required field"),
    "extra_forbidden": N_("unknown field: not allowed here"),
    "int_parsing": N_("expected a whole number"),
    "int_type": N_("expected a whole number"),
    "int_from_float": N_("expected a whole number, not a number with a fractional part"),
    "float_parsing": N_("expected a number"),
    "float_type": N_("expected a number"),
    "finite_number": N_("expected a finite number"),
    "string_type": N_("expected text"),
    "bool_parsing": N_("expected true or false"),
    "bool_type": N_("expected true or false"),
    "dict_type": N_("expected a mapping (key: value)"),
    "model_type": N_("expected a mapping (key: value)"),
    "model_attributes_type": N_("expected a mapping (key: value)"),
    "list_type": N_("expected a list"),
    "tuple_type": N_("expected a list"),
    "literal_error": N_("expected one of: {expected}"),
    "enum": N_("expected one of: {expected}"),
    "greater_than_equal": N_("must be at least {ge}"),
    "greater_than": N_("must be greater than {gt}"),
    "less_than_equal": N_("must be at most {le}"),
    "less_than": N_("must be less than {lt}"),
}


def _pydantic_message(err: dict) -> str:
    """The message of one pydantic error: a validator's own text (already in the user's
    language), pydantic's message in English, else the table's wording."""
    msg = err["msg"]
    if err["type"] == "value_error":
        return msg.removeprefix("Value error, ")
    mapped = _PYDANTIC_MESSAGES.get(err["type"])
    if mapped is None or language() == "en":
        return msg
    ctx = dict(err.get("ctx") or {})
    if "expected" in ctx:  # pydantic writes "'a', 'b' or 'c'"
        ctx["expected"] = str(ctx["expected"]).replace(" or ", _(", "))
    try:
        return tr(mapped).format(**ctx)
    except (KeyError, IndexError, ValueError):
        return msg


def parse_game(raw: Any, path: Path) -> GameDefinition:
    """Validate a parsed ``game.yaml`` mapping; raise ``DataError`` listing every problem."""
    if CHECKED_RECORDS:
        raise NotChecked(f"{path} needs validating")
    if not isinstance(raw, dict):
        raise DataError(Problem(_("game.yaml must be a mapping"), Location(path, 1)))
    try:
        game = GameDefinition.model_validate(dict(raw))
    except ValidationError as exc:
        raise DataError(_pydantic_problems(exc, raw, path)) from None
    return game.model_copy(update={"folder": path.parent})


@cache
def _load_cached(folder: Path, mtime_ns: int) -> GameDefinition:
    path = folder / "game.yaml"
    if CHECKED_RECORDS:  # only ``read_checked`` gives definitions in such a process
        raise NotChecked(f"{path} needs validating")
    return parse_game(parse_yaml(read_text(path, "YAML file"), path), path)


def load_game(game: str | Path) -> GameDefinition:
    """Load a game by shipped id (``"duel"``) or by the path of a folder holding ``game.yaml``.

    Raises ``GameNotFound`` or ``DataError``.
    """
    folder = resolve_game_dir(game)
    return _load_cached(folder, (folder / "game.yaml").stat().st_mtime_ns)


# ---------------------------------------------------------------------------- the checked cache
#
# A definition validated once is kept as data (tagged JSON, never pickle: the cache folder is
# the user's, so its files are untrusted input), so a ``cardpress track`` command can rebuild it
# as checked records without pydantic (``engine.model``). A cached file is used only when
#
# - its name and its recorded key are the key of *this* text under *this* code: a sha256 of the
#   ``game.yaml`` text, the checked form's version and the source of every module that decides
#   what a valid definition is (this one, ``model.py``, ``limits.py``, the list of games and each
#   game's ``numbers.py``), so an edited game.yaml or an upgraded cardpress never reads an old cache;
# - its seal, an HMAC-SHA256 under this machine's key (the one that seals replay snapshots),
#   matches: a file written by hand or copied from elsewhere is not accepted;
# - it decodes, field by field, into the record classes the schema modules declare.
# Otherwise the command runs the full path, which validates (reporting a bad game.yaml exactly
# as always) and writes a fresh cache.

#: The record classes a checked form may name (``engine.model``; empty with pydantic models).
_RECORDS: dict[str, type] = getattr(__import__("engine.model", fromlist=["RECORDS"]), "RECORDS", {})

#: The shape of the checked form; bumped when ``_checked``/``_record`` change.
CHECKED_VERSION = 2
#: A designer editing game.yaml leaves one small file per version; older ones beyond this go.
CHECKED_KEEP = 64
_ENGINE = Path(__file__).resolve().parent


@cache
def _schema_fingerprint() -> str | None:
    """sha256 of the code that decides what a valid definition is (None: sources unreadable)."""
    digest = hashlib.sha256(f"checked-{CHECKED_VERSION}".encode())
    files = [_ENGINE / "model.py", _ENGINE / "definitions.py", _ENGINE / "limits.py", _ENGINE / "games" / "__init__.py",
             *sorted((_ENGINE / "games").glob("*/numbers.py"))]
    try:
        for file in files:
            digest.update(file.name.encode() + b"\0" + file.read_bytes() + b"\0")
    except OSError:
        return None
    return digest.hexdigest()


def checked_key(text: str) -> str | None:
    """The cache key of a ``game.yaml`` text under this code (None: no cache can be trusted)."""
    schema = _schema_fingerprint()
    if schema is None:
        return None
    return hashlib.sha256(f"{schema}\0".encode() + text.encode("utf-8")).hexdigest()


class _Uncacheable(Exception):
    """A value the checked form has no tag for (the definition is then simply not cached)."""


def _checked(value: Any) -> Any:
    """A validated model as tagged JSON data: ``["m", class, fields]``, ``["t", items]`` (tuple),
    ``["l", items]``, ``["d", mapping]``; scalars as they are."""
    if isinstance(value, Model):
        cls = type(value)
        fields = {name: _checked(getattr(value, name)) for name, info in cls.model_fields.items()
                  if not getattr(info, "exclude", False)}
        return ["m", f"{cls.__module__}.{cls.__qualname__}", fields]
    if isinstance(value, (tuple, list)):
        return ["t" if isinstance(value, tuple) else "l", [_checked(v) for v in value]]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise _Uncacheable("a mapping with keys that are not text")
        return ["d", {k: _checked(v) for k, v in value.items()}]
    if value is None or isinstance(value, (bool, int, str)) or (isinstance(value, float) and math.isfinite(value)):
        return value
    raise _Uncacheable(type(value).__name__)


class BadChecked(Exception):
    """A cached definition that does not decode into the record classes (it is ignored)."""


def _record(value: Any) -> Any:
    """The inverse of ``_checked``, in a checked-records process: only registered record classes."""
    if isinstance(value, list):
        if len(value) == 3 and value[0] == "m" and isinstance(value[2], dict):
            cls = _RECORDS.get(value[1]) if isinstance(value[1], str) else None
            if cls is None:
                raise BadChecked(f"unknown record {value[1]!r}")
            try:
                return cls(**{k: _record(v) for k, v in value[2].items()})
            except TypeError as exc:
                raise BadChecked(str(exc)) from None
        if len(value) == 2 and value[0] in ("t", "l") and isinstance(value[1], list):
            items = [_record(v) for v in value[1]]
            return tuple(items) if value[0] == "t" else items
        if len(value) == 2 and value[0] == "d" and isinstance(value[1], dict):
            return {k: _record(v) for k, v in value[1].items()}
        raise BadChecked("an untagged list")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise BadChecked(f"an untagged {type(value).__name__}")


def _seal(body: str, seal_key: bytes) -> str:
    return hmac.new(seal_key, body.encode("utf-8"), hashlib.sha256).hexdigest()


def write_checked(defn: GameDefinition, text: str, folder: Path, seal_key: bytes | None) -> Path | None:
    """Keep ``defn`` (validated from ``text``) in the cache ``folder``; best effort: a cache
    that cannot be written only means the next command validates again. Returns the file."""
    key = checked_key(text)
    if key is None or seal_key is None or CHECKED_RECORDS:
        return None
    target = folder / f"{key}.json"
    if target.is_file():
        return target
    try:
        # Not sorted: mappings keep the file's order (card types, fields…), as the models do.
        body = json.dumps({"key": key, "definition": _checked(defn)}, ensure_ascii=False, separators=(",", ":"))
    except _Uncacheable:
        return None
    data = json.dumps({"seal": _seal(body, seal_key), "body": body}, ensure_ascii=False)
    tmp = folder / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tmp.write_text(data, encoding="utf-8")
        os.replace(tmp, target)
        _prune(folder)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        return None
    return target


def _prune(folder: Path) -> None:
    files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in files[CHECKED_KEEP:]:
        old.unlink(missing_ok=True)


#: A cached file larger than this is not a definition of ours.
_CHECKED_MAX_BYTES = 4 * 1024 * 1024


def read_checked(text: str, path: Path, folder: Path, seal_key: bytes | None) -> GameDefinition:
    """The definition validated earlier from ``text`` (``path`` is its ``game.yaml``: the
    definition's folder), as checked records. Raises ``NotChecked`` when there is no cache
    entry that passes every check (see above); nothing is validated here."""
    key = checked_key(text)
    if key is None or seal_key is None:
        raise NotChecked("no cache can be trusted here")
    try:
        with open(folder / f"{key}.json", "rb") as fh:
            raw = fh.read(_CHECKED_MAX_BYTES + 1)
        if len(raw) > _CHECKED_MAX_BYTES:
            raise NotChecked("cache file too large")
        outer = json.loads(raw.decode("utf-8"))
        body = outer["body"]
        if not (isinstance(body, str) and isinstance(outer["seal"], str)
                and hmac.compare_digest(outer["seal"], _seal(body, seal_key))):
            raise NotChecked("cache seal does not match")
        inner = json.loads(body)
        if inner["key"] != key:
            raise NotChecked("cache of another text")
        defn = _record(inner["definition"])
    except (OSError, ValueError, KeyError, TypeError, RecursionError, BadChecked) as exc:
        raise NotChecked(f"no usable cache ({type(exc).__name__})") from None
    if type(defn).__name__ != "GameDefinition" or not isinstance(defn, GameDefinition):
        raise NotChecked("cache holds something else")
    return defn.model_copy(update={"folder": path.parent})
