"""Commands declared once: what a game's rules module says about each of its commands.

A rules function is declared with ``@commands.command(...)``: its name, its typed parameters
(with help), its help text and examples. Everything that offers the command to a person is
generated from that one declaration — the ``cardpress track`` subcommands, the table-mode line
parser (``engine.tracker.script``), and the phone page's forms — so a parameter added here is
offered everywhere, and nobody re-types a rule number: help may name ``{n.descents_per_turn}``,
filled from the game's own ``game.yaml``.

Example::

    commands = Commands("backrooms")

    @commands.command(Param.player(), Param.count("amount", "Cost to pay."), Param.why(),
                      help="Pay cost from a player's pool (refused beyond what it holds).",
                      examples=('spend A 3 --why "summon Smiler"',))
    def spend(state, ctx, player, amount, why=""):
        ...
"""

from __future__ import annotations

from engine.i18n import N_, _
from engine.i18n import _ as tr
import math
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Callable, Iterator, Literal, Mapping

from .errors import BadArgument

ParamKind = Literal["player", "count", "signed", "int", "text", "choice", "flag", "tristate", "card", "piece"]

#: A parameter with no default must be given.
REQUIRED: Any = object()

_TRUE = frozenset({"true", "yes", "y", "1", "on", "是", "有"})
_FALSE = frozenset({"false", "no", "n", "0", "off", "否", "无"})
#: Words that answer a yes/no parameter.
YES_NO = _TRUE | _FALSE
_SIGNED = re.compile(r"^[+\-−]?\d+$")


def yes_no(raw: Any, what: str) -> bool:
    """``yes``/``no``/``true``/``0``/``是``/``无``… as a bool; anything else is a ``BadArgument``."""
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise BadArgument(_("{what} must be yes or no, got {raw!r}").format(what=tr(what), raw=raw))


@dataclass(frozen=True)
class Param:
    """One parameter of a command.

    ``kind`` says how the value is read and offered: ``player`` (a name or seat), ``count`` (a
    whole number ≥ ``minimum``), ``signed`` (``+3``/``-2``; never taken for an option), ``int``,
    ``text``, ``choice`` (one of ``choices``), ``flag`` (present or not), ``tristate`` (yes,
    no, or left to the rules), ``card`` (a card of the player's deck list, by id or name: see
    ``engine.tracker.pieces.find_card``) and ``piece`` (a piece on the board: ``A3`` or its
    card's name, ``find_piece``). Cards and pieces are read as text; the rule looks them up. ``option`` parameters are named (``--outpost 2``); the others are
    given in order.
    """

    name: str
    kind: ParamKind
    help: str
    default: Any = REQUIRED
    option: bool = False
    short: str | None = None
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    metavar: str | None = None
    #: What players read (Chinese, the table's language): form labels, log lines.
    label: str = ""
    #: How each of ``choices`` reads (same order): the page's buttons; typed, it is read as the choice.
    choice_labels: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def flag_name(self) -> str:
        return "--" + self.name.replace("_", "-")

    # ------------------------------------------------------------ common parameters

    @staticmethod
    def player(name: str = "player", help: str = N_("Player name or seat number (1, 2).")) -> "Param":
        return Param(name, "player", help, label="玩家")

    @staticmethod
    def count(name: str, help: str, default: Any = REQUIRED, minimum: int = 1, option: bool = False,
              short: str | None = None) -> "Param":
        return Param(name, "count", help, default, option=option, short=short, minimum=minimum)

    @staticmethod
    def card(name: str = "card", help: str = N_("Card id or name (part of a name will do)."), label: str = "卡牌",
             default: Any = REQUIRED, option: bool = False) -> "Param":
        return Param(name, "card", help, default, option=option, label=label, metavar="CARD")

    @staticmethod
    def piece(name: str = "piece", help: str = N_("Piece id on the board (A1, B3…) or its card's name."),
              label: str = "棋子", default: Any = REQUIRED, option: bool = False) -> "Param":
        return Param(name, "piece", help, default, option=option, label=label, metavar="PIECE")

    @staticmethod
    def why() -> "Param":
        return Param("why", "text", N_("Reason to record in the log (the card or effect)."), "", option=True, label="原因")

    # ------------------------------------------------------------ reading a typed value

    def parse(self, raw: Any) -> Any:
        """``raw`` (text from the table line or the page, or a value from the CLI) as this kind.

        >>> Param("delta", "signed", "").parse("−3")
        -3
        """
        if raw is None:
            return None
        if self.kind in ("count", "int", "signed"):
            return self._number(raw)
        if self.kind in ("flag", "tristate"):
            return yes_no(raw, self.name)
        text = str(raw).strip()
        if self.kind == "choice" and text not in self.choices:
            if text in self.choice_labels:
                return self.choices[self.choice_labels.index(text)]
            raise BadArgument(_("{name} must be one of {choices}, got {text!r}").format(name=self.name, choices=', '.join(self.choices), text=text))
        return text

    def _number(self, raw: Any) -> int:
        if isinstance(raw, bool):
            raise BadArgument(_("{name} must be a whole number, got {raw!r}").format(name=self.name, raw=raw))
        if isinstance(raw, int):
            value = raw
        elif isinstance(raw, float) and math.isfinite(raw) and raw.is_integer():
            value = int(raw)
        else:
            text = str(raw).strip()
            if not _SIGNED.match(text) or len(text) > 12:
                example = "+3 or -2" if self.kind == "signed" else "3"
                raise BadArgument(_("{name} must be a whole number like {example}, got {raw!r}").format(name=self.name, example=example, raw=raw))
            value = int(text.replace("−", "-"))
        if self.minimum is not None and value < self.minimum:
            raise BadArgument(_("{name} must be at least {minimum}, got {value}").format(name=self.name, minimum=self.minimum, value=value))
        return value


@dataclass(frozen=True)
class CommandSpec:
    """A command as declared by its game (or the tracker core for every game).

    ``run(state, ctx, **args)`` returns events; a ``query`` returns ``(ok, text)`` and changes
    nothing. ``words`` are the CLI words (``("chain", "push")``); ``aliases`` are extra names the
    table line accepts (``push``).
    """

    name: str
    run: Callable[..., Any]
    params: tuple[Param, ...]
    help: str
    examples: tuple[str, ...]
    words: tuple[str, ...]
    game: str
    query: bool = False
    aliases: tuple[str, ...] = ()
    #: What players read (Chinese): the button, the form title, the log line.
    label: str = ""

    def describe_args(self, args: Mapping[str, Any]) -> str:
        """Arguments as a player reads them in the log: ``B 伤害7 前哨站2``, never ``amount=7``."""
        parts, why = [], ""
        for p in self.params:
            if p.name not in args or args[p.name] in (None, ""):
                continue
            value = args[p.name]
            if p.name == "why":
                why = f"（{value}）"
            elif p.kind == "player":
                parts.append(str(value))
            elif p.kind in ("flag", "tristate"):
                # A flag left at its default says nothing (召唤 笑魇, not 召唤 笑魇 不放入特殊放置区).
                if (value is True or value is False) and value != (False if p.kind == "flag" else p.default):
                    parts.append(p.label if value else f"不{p.label}")
            else:
                parts.append(f"{p.label}{value}")
        return " ".join(parts) + why

    @property
    def summary(self) -> str:
        return tr(self.help).split("\n", 1)[0]

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)

    def help_text(self, numbers: Mapping[str, Any] | None) -> str:
        """The help in the language in force (every ``help`` is N_-marked where it is declared),
        with ``{n.…}`` filled from the game's numbers (as written when unknown)."""
        return fill(tr(self.help), numbers)

    def parse_args(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """Typed arguments from raw ones (text or values); unknown or missing ones are errors."""
        out: dict[str, Any] = {}
        for key, value in raw.items():
            param = self.param(key)
            if param is None:
                raise BadArgument(_("{cli_name}: no parameter {key!r}; it takes {value}").format(cli_name=self.cli_name, key=key, value=', '.join((p.name for p in self.params)) or _("nothing")))
            if value is not None:
                try:
                    out[key] = param.parse(value)
                except BadArgument as exc:
                    raise BadArgument(_("{cli_name}: {exc}").format(cli_name=self.cli_name, exc=exc)) from None
        missing = [p.name for p in self.params if p.required and p.name not in out]
        if missing:
            raise BadArgument(_("{cli_name}: missing {missing}").format(cli_name=self.cli_name, missing=', '.join(missing)))
        return out

    @property
    def cli_name(self) -> str:
        return " ".join(self.words)


class _Numbers:
    """``{n.name}`` in help: a game's number, or the placeholder's own text when not known."""

    def __init__(self, numbers: Mapping[str, Any]):
        self._numbers = numbers

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._numbers.get(name, f"{{n.{name}}}")


def fill(text: str, numbers: Mapping[str, Any] | None) -> str:
    """``"{n.descents_per_turn} per turn"`` → ``"2 per turn"`` for duel's numbers."""
    if "{" not in text:
        return text
    return text.format(n=_Numbers(numbers or {}))


@dataclass
class Commands:
    """The commands one game (or the core) declares, in declaration order."""

    game: str
    specs: dict[str, CommandSpec] = field(default_factory=dict)

    def command(self, *params: Param, label: str, help: str, examples: tuple[str, ...] | list[str],
                labels: Mapping[str, str] | None = None, words: tuple[str, ...] | None = None,
                name: str | None = None, query: bool = False,
                aliases: tuple[str, ...] = ()) -> Callable[[Callable], Callable]:
        """Declare the decorated rules function as a command (see the module docstring).
        ``label`` and ``labels`` (parameter name → label) are what players read."""

        def declare(fn: Callable) -> Callable:
            key = name or fn.__name__
            if key in self.specs:
                raise ValueError(f"{self.game}: command {key!r} declared twice")
            if not examples:
                raise ValueError(f"{self.game}: command {key!r} needs an example")
            named = dict(labels or {})
            unknown = set(named) - {p.name for p in params}
            if unknown:
                raise ValueError(f"{self.game}: command {key!r} labels unknown parameter(s) {sorted(unknown)}")
            typed = tuple(replace(p, label=named.get(p.name, p.label)) for p in params)
            missing = [p.name for p in typed if not p.label]
            if not label or missing:
                raise ValueError(f"{self.game}: command {key!r} needs a label for itself and for {missing}")
            unread = [p.name for p in typed if p.kind == "choice" and len(p.choice_labels) != len(p.choices)]
            if unread:
                raise ValueError(f"{self.game}: command {key!r} needs a choice_labels entry per choice of {unread}")
            self.specs[key] = CommandSpec(
                name=key, run=fn, params=typed, help=help, examples=tuple(examples),
                words=words or (key.replace("_", "-"),), game=self.game, query=query, aliases=tuple(aliases),
                label=label)
            return fn

        return declare

    def __iter__(self) -> Iterator[CommandSpec]:
        return iter(self.specs.values())

    def __getitem__(self, name: str) -> CommandSpec:
        return self.specs[name]

    def get(self, name: str) -> CommandSpec | None:
        return self.specs.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self.specs

    @property
    def actions(self) -> dict[str, CommandSpec]:
        return {k: s for k, s in self.specs.items() if not s.query}

    @property
    def queries(self) -> dict[str, CommandSpec]:
        return {k: s for k, s in self.specs.items() if s.query}


# ---------------------------------------------------------------------------- every declared command


def declared_commands() -> list[tuple[str, list[CommandSpec]]]:
    """(owner, its commands) for the core and every ruleset, in a stable order. Two games may
    declare the same words, each its own way (``attack``): each declaration is listed."""
    from ..games import load_all  # the games import this module
    from .core import CORE

    return [(owner, list(commands)) for owner, commands in
            (("core", CORE), *((m.RULESET, m.COMMANDS) for m in load_all()))]


@lru_cache(maxsize=None)
def shipped_numbers(ruleset: str) -> dict[str, Any]:
    """The ``rules:`` numbers of the shipped game of ``ruleset`` (for help text), read without
    building the whole definition; empty when there is none (``generic``, ``core``)."""
    from ..errors import DataError
    from ..paths import card_data_root
    from ..yamlio import load_yaml

    path = card_data_root() / ruleset / "game.yaml"
    if not path.is_file():
        return {}
    try:
        raw = load_yaml(path)
    except DataError:
        return {}
    rules = raw.get("rules") if isinstance(raw, dict) else None
    return dict(rules) if isinstance(rules, dict) else {}


def turn_mark(player: Mapping[str, Any], status: Mapping[str, Any]) -> str:
    """``▶`` before the player whose turn it is on a text board (``status``: ``status_json``)."""
    return "▶" if player["name"] == status["active"] else " "
