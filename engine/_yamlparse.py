"""The PyYAML side of ``engine.yamlio``: the loader, the bounded builder and the parse.

Kept apart so a process that reads no YAML (a tracker command on a checked definition) never
imports PyYAML; ``engine.yamlio.parse_yaml`` imports this module on first use.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from .errors import DataError, Location, Problem
from .i18n import N_, _
from .i18n import _ as tr
from .limits import MAX_INT_DIGITS, MAX_YAML_DEPTH, MAX_YAML_NODES
from .yamlio import LinedDict, LinedList


# libyaml composes the node tree in C (6× faster on a 3000-card file); marks are the same.
_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_BASE):
    """SafeLoader without the YAML 1.1 quirks that bite designers (``no`` → False, ``1:30`` → 90)."""


# Keep booleans to true/false only: a card named "NO" or "on" must stay a string. Integers are
# plain decimals: YAML 1.1 read "1:30" as 90 (base 60), "010" as 8 and "0x1F" as 31, so rules
# text like "1:30" printed as "90".
_REPLACED = ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
_Loader.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag not in _REPLACED]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.copy().items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool",
    re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
    list("tTfF"),
)
_Loader.add_implicit_resolver("tag:yaml.org,2002:int", re.compile(r"^[-+]?[0-9]+$"), list("-+0123456789"))
# …and read as decimals: "010" is 10 (YAML 1.1 made it octal 8).
_Loader.add_constructor("tag:yaml.org,2002:int", lambda loader, node: int(loader.construct_scalar(node), 10))
# YAML 1.1 floats without the base-60 form ("1:30.5").
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
                    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
                    |[-+]?\.(?:inf|Inf|INF)
                    |\.(?:nan|NaN|NAN))$""", re.X),
    list("-+0123456789."),
)

_INT_TAG = "tag:yaml.org,2002:int"
#: Room for a sign-free ``0x``/``0o`` prefix on top of the digits themselves.
_INT_PREFIX_CHARS = 2
_TOO_BIG = 10 ** MAX_INT_DIGITS
#: Exceptions PyYAML's scalar constructors raise for text that matches a tag's pattern but is
#: not a valid value (``2020-13-45`` as a date, ``!!int abc``): they carry no mark of their own.
_CONSTRUCT_ERRORS = (ValueError, TypeError, AttributeError, OverflowError, KeyError, IndexError)


#: The only types a game folder holds: text, numbers, true/false, null, dates, lists, mappings.
_PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{name}"
                        for name in ("str", "int", "float", "bool", "null", "timestamp", "map", "seq"))


def _tag_message(tag: str) -> str:
    shown = tag.replace("tag:yaml.org,2002:", "!!")
    return _("the tag {tag!r} is not allowed: cardpress reads plain data only "
             "(text, numbers, true/false, lists and mappings)").format(tag=shown)


class _Builder:
    """Turns a composed node tree into lined containers, counting every node it builds.

    An alias is a reference to an earlier node; building it copies that node again, which is
    how a few lines of anchors expand to 10⁹ items. The count bounds the expansion.
    """

    def __init__(self, loader: _Loader, file: Path | None):
        self.loader = loader
        self.file = file
        self.nodes = 0

    def fail(self, node: yaml.Node, message: str) -> DataError:
        return DataError(Problem(message, Location(self.file, node.start_mark.line + 1)))

    def build(self, node: yaml.Node, depth: int = 0) -> Any:
        self.nodes += 1
        if self.nodes > MAX_YAML_NODES:
            raise self.fail(node, _("the document expands to more than {limit:,} values "
                                    "(aliases that repeat each other?); cardpress refuses it").format(limit=MAX_YAML_NODES))
        if depth > MAX_YAML_DEPTH:
            raise self.fail(node, _("lists and mappings are nested more than {limit} deep").format(limit=MAX_YAML_DEPTH))
        if node.tag not in _PLAIN_TAGS:
            # A tag on a list or mapping would otherwise be ignored silently, and on a scalar
            # PyYAML's safe constructors still make bytes or sets no card field means.
            raise self.fail(node, _tag_message(node.tag))
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, depth)
        if isinstance(node, yaml.SequenceNode):
            out_list = LinedList()
            out_list.lines = []
            out_list.line = node.start_mark.line + 1
            for item in node.value:
                out_list.append(self.build(item, depth + 1))
                out_list.lines.append(item.start_mark.line + 1)
            return out_list
        return self.scalar(node)

    def _mapping(self, node: yaml.MappingNode, depth: int) -> LinedDict:
        out = LinedDict()
        out.lines = {}
        out.sources = {}
        out.line = node.start_mark.line + 1
        read_up_to = node.start_mark.index
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                kind = _("mapping") if isinstance(key_node, yaml.MappingNode) else _("list")
                # An alias key carries the mark of its anchor, earlier in the file; its value
                # is where the alias is used.
                at = value_node if key_node.start_mark.index < read_up_to else key_node
                raise self.fail(at, _("a key must be a plain value such as a name or a number, not a {kind}").format(kind=kind))
            read_up_to = max(read_up_to, value_node.end_mark.index)
            self.nodes += 1
            key = self.scalar(key_node)
            if key in out:
                raise self.fail(key_node, _("duplicate key {key!r}").format(key=key))
            value = out[key] = self.build(value_node, depth + 1)
            out.lines[key] = key_node.start_mark.line + 1
            if isinstance(value_node, yaml.ScalarNode) and value is not None and not isinstance(value, str):
                out.sources[key] = value_node.value
        return out

    def scalar(self, node: yaml.ScalarNode) -> Any:
        if node.tag not in _PLAIN_TAGS:
            raise self.fail(node, _tag_message(node.tag))
        if node.tag == _INT_TAG:
            digits = node.value.strip().lstrip("+-").replace("_", "")
            if len(digits) > MAX_INT_DIGITS + _INT_PREFIX_CHARS:
                raise self.fail(node, _("a number with {digits} digits; at most {limit} are allowed").format(
                    digits=len(digits), limit=MAX_INT_DIGITS))
        try:
            value = self.loader.construct_object(node, deep=True)
        except yaml.MarkedYAMLError:
            raise
        except _CONSTRUCT_ERRORS:
            shown = node.value if len(node.value) <= 40 else node.value[:40] + "…"
            raise self.fail(node, _("{value!r} is not a valid {kind} "
                                    "(put it in quotes to keep it as text)").format(
                value=shown, kind=node.tag.rsplit(':', 1)[-1])) from None
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _TOO_BIG:
            raise self.fail(node, _("the number {value!r} has more than {limit} digits").format(
                value=node.value[:40], limit=MAX_INT_DIGITS))
        return value


def _message(exc: yaml.MarkedYAMLError) -> tuple[str, yaml.Mark | None]:
    """A designer-facing message and the mark to report for a PyYAML error."""
    problem = exc.problem or str(exc)
    if (exc.context or "").startswith("while scanning a quoted scalar") and exc.context_mark:
        # PyYAML marks where it gave up (often the end of the file); the mistake is the quote.
        return _("a quoted value starts here but its closing quote is missing"), exc.context_mark
    tag = re.search(r"constructor for the tag '([^']*)'", problem)
    if tag:
        return _tag_message(tag.group(1)), exc.problem_mark or exc.context_mark
    if "found unhashable key" in problem:
        return _("a key must be a plain value such as a name or a number"), exc.problem_mark or exc.context_mark
    return _("malformed YAML: {problem}").format(problem=_pyyaml(problem)), exc.problem_mark or exc.context_mark


#: PyYAML's most common complaints, as messages (``tr(problem)``: PyYAML's text when it is not
#: one of these; every key here is N_-marked).
_PYYAML_PROBLEMS = (N_("mapping values are not allowed in this context"), N_("mapping values are not allowed here"),
                    N_("did not find expected key"), N_("could not find expected ':'"),
                    N_("found a tab character that violates indentation"),
                    N_("found character that cannot start any token"), N_("found undefined alias"),
                    N_("did not find expected '-' indicator"), N_("did not find expected node content"),
                    N_("found unexpected end of stream"),
                    N_("did not find expected ',' or ']'"))


def _pyyaml(problem: str) -> str:
    return tr(problem) if problem in _PYYAML_PROBLEMS else problem


def parse_yaml(text: str, file: Path | None = None) -> Any:
    """See ``engine.yamlio.parse_yaml``."""
    loader = _Loader(text)
    loader.name = str(file) if file else "<input>"
    try:
        node = loader.get_single_node()
        return None if node is None else _Builder(loader, file).build(node)
    except yaml.MarkedYAMLError as exc:
        message, mark = _message(exc)
        line = mark.line + 1 if mark else None
        raise DataError(Problem(message, Location(file, line))) from None
    except yaml.YAMLError as exc:  # ReaderError: a control character the YAML spec forbids
        line = text.count("\n", 0, getattr(exc, "position", 0) or 0) + 1
        reason = getattr(exc, "reason", None) or str(exc)
        raise DataError(Problem(_("malformed YAML: {problem}").format(problem=_pyyaml(reason)), Location(file, line))) from None
    except RecursionError:
        raise DataError(Problem(_("lists and mappings are nested too deeply"), Location(file))) from None
    finally:
        loader.dispose()
