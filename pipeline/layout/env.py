"""The one Jinja environment factory. Every template cardpress renders — card faces and backs,
their macros, rulebook sources, glossary definitions — comes from ``make_environment``.

A game folder may come from a stranger, so its templates are hostile until proven otherwise:

* **No code.** The environment is an ``ImmutableSandboxedEnvironment``: no ``_``-attributes,
  no mutating methods; on top of that the data objects templates see expose only their own
  fields and methods (no pydantic internals such as ``model_copy``/``model_config``, no file
  paths, no classes or modules).
* **Nothing outside the templates trees is read.** The loader resolves symlinks and refuses
  absolute names and anything outside the game folder's ``templates/`` or the shipped
  ``templates/`` tree.
* **Bounded work.** One render may run ``MAX_TEMPLATE_ITERATIONS`` loop iterations in all
  (``range`` and ``{% for %}``), produce ``MAX_TEMPLATE_OUTPUT_CHARS`` characters, and take
  ``MAX_TEMPLATE_SECONDS``; ``*``, ``**``, ``+``, ``%``, ``~``, filters and method calls may not
  build a value larger than the output bound (or an integer longer than data allows), so a
  string or power bomb fails before it allocates.

Failures surface as ``TemplateFailure`` carrying the template file and line (from the template
frames of the traceback); callers add what was being rendered (card, back, rulebook).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import time
import types
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache, update_wrapper
from pathlib import Path, PurePath, PurePosixPath
from typing import Any, Callable, Iterable, Iterator, Sequence

import jinja2
from jinja2 import nodes
from jinja2.compiler import CodeGenerator
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedFormatter
from pydantic import BaseModel

from engine import limits
from engine.errors import CardpressError
from engine.i18n import N_, _
from engine.i18n import _ as tr
from engine.paths import UnsafePath, confine, read_bounded, templates_root

#: Largest string, list or mapping a template expression may build (a render's whole output
#: has the same bound, so no single value needs to be larger).
MAX_VALUE_LEN = limits.MAX_TEMPLATE_OUTPUT_CHARS
#: Bits of the largest integer template arithmetic may build: as many digits as data may have.
MAX_INT_BITS = math.ceil(limits.MAX_INT_DIGITS * math.log2(10))
#: Template frames named as callers of a failing line (recursion would list hundreds).
_CALLERS_SHOWN = 3
#: How often (in loop iterations) a long un-hooked loop looks at the clock.
_CLOCK_EVERY = 4096


class TemplateFailure(CardpressError):
    """A template could not be loaded or rendered. ``file``/``line`` are the innermost template
    frame (None when the failure is not inside a template, e.g. a template that is missing);
    ``stack`` lists every template frame, outermost first."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 stack: Sequence[tuple[str, int]] = (), timed_out: bool = False):
        self.message, self.file, self.line, self.stack = message, file, line, tuple(stack)
        #: The render ran out of time: callers do not try the same template again for every card.
        self.timed_out = timed_out
        super().__init__(f"{self.where}: {message}" if file else message)

    @property
    def where(self) -> str:
        """``file, line N`` (plus the templates it was called from), or '' when unknown."""
        if not self.file:
            return ""
        at = _("{file}, line {line}")
        text = at.format(file=self.file, line=self.line) if self.line else self.file
        callers = list(dict.fromkeys(at.format(file=f, line=n) for f, n in reversed(self.stack[:-1])
                                     if (f, n) != (self.file, self.line)))
        if callers:
            shown = callers[:_CALLERS_SHOWN] + (["…"] if len(callers) > _CALLERS_SHOWN else [])
            text += _(" (called from {callers})").format(callers="; ".join(shown))
        return text


class TemplateLimit(SecurityError):
    """A render went over one of its bounds (iterations, size, time, integer length)."""


class TemplateTimeout(TemplateLimit):
    """A render took longer than ``MAX_TEMPLATE_SECONDS``."""


# ---------------------------------------------------------------------------- the render budget


class _Budget:
    """What one render has used: loop iterations and its deadline."""

    __slots__ = ("iterations", "deadline")

    def __init__(self) -> None:
        self.iterations = 0
        self.deadline = time.monotonic() + limits.MAX_TEMPLATE_SECONDS

    def charge(self, n: int) -> None:
        self.iterations += n
        if self.iterations > limits.MAX_TEMPLATE_ITERATIONS:
            raise TemplateLimit(_("the template runs more than {limit:,} loop iterations in one render; "
                                  "cardpress stops it here").format(limit=limits.MAX_TEMPLATE_ITERATIONS))
        self.clock()

    def clock(self) -> None:
        if time.monotonic() > self.deadline:
            raise TemplateTimeout(_("the template takes more than {seconds:g} s for one render; "
                                    "cardpress stops it here").format(seconds=limits.MAX_TEMPLATE_SECONDS))


_budget: ContextVar[_Budget | None] = ContextVar("template_budget", default=None)


@contextmanager
def _bounded() -> Iterator[None]:
    """A fresh budget for an outermost render; nested renders (imports, macros called by a filter)
    share their caller's."""
    if _budget.get() is not None:
        yield
        return
    token = _budget.set(_Budget())
    try:
        yield
    finally:
        _budget.reset(token)


def _clock() -> None:
    budget = _budget.get()
    if budget is not None:
        budget.clock()


#: What a size check is about (``what`` below): N_-marked keys, translated (``tr``) only when a
#: message is made — the checks run on every value a template prints. ``{name}``: a filter or
#: method; ``{type}``: a Python type's name.
_A_VALUE = N_("a {type}")
_THE_VALUE = N_("the value")
_FORMATTED_FIELD = N_("a formatted field")
_FORMATTED_VALUE = N_("a formatted value")
_PRINTED_VALUE = N_("the printed value")
_GIVEN_TO = N_("the value given to |{name}")
_REPEATED = N_("{type} repeated {n:,} times")
_JOINED = N_("a value joined with '~'")


def _what(what: str, **fields: Any) -> str:
    return tr(what).format(**fields)  # what: one of the N_ keys of this module


def _too_big(what: str, size: int, **fields: Any) -> TemplateLimit:
    return TemplateLimit(_("{what} would be {size:,} long; a template value may hold at most {limit:,}")
                         .format(what=_what(what, **fields), size=size, limit=MAX_VALUE_LEN))


def _check_len(value: Any) -> Any:
    if isinstance(value, (str, list, tuple, dict, set, frozenset, bytes)) and len(value) > MAX_VALUE_LEN:
        raise _too_big(_A_VALUE, len(value), type=type(value).__name__)
    return value


_CONTAINERS = (list, tuple, dict, set, frozenset)


def _weight(value: Any, what: str, **fields: Any) -> int:
    """Characters and items ``value`` holds, all the way down (a list of a million references to
    one long string is small to build but enormous to print); raises past ``MAX_VALUE_LEN``
    without walking further."""
    total = 0
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            total += len(v)
        elif isinstance(v, _CONTAINERS):
            total += len(v)
            if total <= MAX_VALUE_LEN:
                stack.extend(v.values() if isinstance(v, dict) else v)
                if isinstance(v, dict):
                    stack.extend(v.keys())
        else:
            total += 1
        if total > MAX_VALUE_LEN:
            raise _too_big(what, total, **fields)
    return total


def _check_weight(value: Any, what: str = _THE_VALUE, **fields: Any) -> Any:
    if isinstance(value, _CONTAINERS):
        _weight(value, what, **fields)
    return value


def _is_record(value: Any) -> bool:
    """A data object (game definition, card, location, path) rather than text or a number."""
    return isinstance(value, (BaseModel, PurePath)) or (dataclasses.is_dataclass(value) and not isinstance(value, type))


def _check_printable(value: Any, what: str, **fields: Any) -> Any:
    """Text made from ``value`` is bounded, and never the repr of a data object: that would
    print the receiver's file paths (a definition's folder, a card's file) onto a card."""
    stack = [value]
    while stack:
        v = stack.pop()
        if _is_record(v):
            raise SecurityError(_("{what} is a {type}, which templates do not print; print one "
                                  "of its fields (e.g. game.name, card.name)")
                                .format(what=_what(what, **fields), type=type(v).__name__))
        if isinstance(v, _CONTAINERS):
            _weight(v, what, **fields)
            stack.extend(v.values() if isinstance(v, dict) else v)
    return value


def _check_count(n: Any, what: str, **fields: Any) -> None:
    if isinstance(n, int) and not isinstance(n, bool) and abs(n) > MAX_VALUE_LEN:
        raise _too_big(what, abs(n), **fields)


def _int_too_long(bits: int) -> TemplateLimit:
    if bits > 2 * MAX_INT_BITS:
        size = _("about {n:,} digits").format(n=round(bits / math.log2(10)))
    else:
        size = _("more than {n} digits").format(n=limits.MAX_INT_DIGITS)
    return TemplateLimit(_("the number would have {size}; template numbers, like numbers in card data, "
                           "have at most {n}").format(size=size, n=limits.MAX_INT_DIGITS))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _check_mul(left: Any, right: Any) -> None:
    if _is_int(left) and _is_int(right):
        if left.bit_length() + right.bit_length() > MAX_INT_BITS + 1:
            raise _int_too_long(left.bit_length() + right.bit_length())
        return
    for seq, n in ((left, right), (right, left)):
        if isinstance(seq, (str, list, tuple, bytes)) and _is_int(n) and n > 0:
            if len(seq) * n > MAX_VALUE_LEN:
                raise _too_big(_REPEATED, len(seq) * n, type=type(seq).__name__, n=n)
            if not isinstance(seq, (str, bytes)) and _weight(seq, N_("the repeated list")) * n > MAX_VALUE_LEN:
                raise _too_big(_REPEATED, _weight(seq, N_("the list")) * n, type=type(seq).__name__, n=n)


def _check_pow(base: Any, exp: Any) -> None:
    if _is_int(base) and _is_int(exp) and exp > 0 and abs(base) > 1:
        bits = exp * math.log2(abs(base))
        if bits > MAX_INT_BITS:
            raise _int_too_long(int(bits))


def _check_add(left: Any, right: Any) -> None:
    if isinstance(left, (str, list, tuple)) and isinstance(right, (str, list, tuple)):
        if len(left) + len(right) > MAX_VALUE_LEN:
            raise _too_big(N_("joining two values"), len(left) + len(right))
        if isinstance(left, (list, tuple)):
            _weight([left, right], N_("joining two lists"))


_PERCENT_SPEC = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(\*|\d+)?(?:\.(\*|\d+))?")
_DIGITS = re.compile(r"\d+")


def _check_percent(fmt: str, args: Any) -> None:
    """``'%9999999999d' % x`` (or ``|format``) would allocate the width before we see the result."""
    starred = False
    for m in _PERCENT_SPEC.finditer(fmt):
        for group in m.groups():
            if group == "*":
                starred = True
            elif group:
                _check_count(int(group), _FORMATTED_FIELD)
    if starred:
        for a in args if isinstance(args, tuple) else (args,):
            _check_count(a, _FORMATTED_FIELD)


def _check_spec(spec: str) -> None:
    """Widths and precisions in a ``str.format`` spec (``{:>999999999}``)."""
    for digits in _DIGITS.findall(spec):
        # More digits than the bound itself has: too big, and not worth converting to an int.
        if len(digits) > len(str(MAX_VALUE_LEN)):
            raise TemplateLimit(_("a formatted field {digits}… wide; a template value may hold at most {limit:,}")
                                .format(digits=digits[:12], limit=MAX_VALUE_LEN))
        _check_count(int(digits), _FORMATTED_FIELD)


def _check_replace(text: Any, old: Any, new: Any, count: Any = -1) -> None:
    if not (isinstance(text, str) and isinstance(old, str) and isinstance(new, str)):
        return
    hits = len(text) + 1 if old == "" else text.count(old)
    if _is_int(count) and count >= 0:
        hits = min(hits, count)
    size = len(text) + hits * (len(new) - len(old))
    if size > MAX_VALUE_LEN:
        raise _too_big(N_("the replaced text"), size)


def _check_join(sep: Any, items: Any) -> list | None:
    """Materialise ``items`` (bounded) and check the joined size; None if not a join we can size."""
    if not isinstance(sep, str):
        return None
    items = list(items)
    size = len(sep) * max(len(items) - 1, 0) + _weight(items, N_("the joined text"))
    if size > MAX_VALUE_LEN:
        raise _too_big(N_("the joined text"), size)
    return items


def _precheck_str_method(method: Any, args: tuple, kwargs: dict) -> tuple:
    """Refuse ``str`` method calls whose result would be huge, before they run."""
    text = method.__self__
    name = method.__name__
    if name in ("ljust", "rjust", "center", "zfill") and args:
        _check_count(args[0], N_("the padded text ({name})"), name=name)
    elif name == "expandtabs":
        size = (args[0] if args else kwargs.get("tabsize", 8))
        if _is_int(size):
            _check_count(size * (text.count("\t") + 1), N_("the expanded text"))
    elif name == "replace" and len(args) >= 2:
        _check_replace(text, args[0], args[1], args[2] if len(args) > 2 else kwargs.get("count", -1))
    elif name == "join" and args:
        items = _check_join(text, args[0])
        if items is not None:
            args = (items, *args[1:])
    return args


# ---------------------------------------------------------------------------- filters


def _precheck_filter(name: str, args: tuple, kwargs: dict) -> tuple:
    """Filters that take a size or build text from their arguments: check before they run.
    ``args`` starts with the filtered value (after any context/environment argument)."""
    if not args:
        return args
    value, rest = args[0], args[1:]
    if name in ("center", "wordwrap", "truncate", "batch", "slice"):
        for a in (*rest, *kwargs.values()):
            _check_count(a, N_("the result of |{name}"), name=name)
    elif name == "indent":
        width = rest[0] if rest else kwargs.get("width", 4)
        lines = value.count("\n") + 1 if isinstance(value, str) else 1
        per_line = len(width) if isinstance(width, str) else width
        _check_count(per_line * lines if _is_int(per_line) else 0, N_("the indented text"))
    elif name == "format" and isinstance(value, str):
        _check_percent(value, tuple(rest) or tuple(kwargs.values()))
    elif name == "replace" and len(rest) >= 2:
        _check_replace(value, rest[0], rest[1], rest[2] if len(rest) > 2 else kwargs.get("count", -1))
    elif name == "join" and not isinstance(value, jinja2.Undefined):
        items = _check_join(rest[0] if rest else kwargs.get("d", ""), value)
        if items is not None:
            args = (items, *rest)
    return args


#: Filters that turn their value into text (the rest keep it as data: ``map``, ``dictsort``…).
_PRINTING_FILTERS = frozenset({"string", "join", "pprint", "format", "center", "indent", "wordwrap",
                               "truncate", "trim", "upper", "lower", "title", "capitalize", "replace",
                               "striptags", "urlencode", "urlize", "e", "escape", "forceescape", "esc"})


def _bounded_filter(name: str, func: Callable) -> Callable:
    """``func`` with the size checks above and the clock; Jinja's pass_context/environment
    markers are kept (``update_wrapper`` copies ``__dict__``)."""
    passes = getattr(func, "jinja_pass_arg", None)
    skip = 1 if passes is not None else 0

    def bounded(*args: Any, **kwargs: Any) -> Any:
        _clock()
        if len(args) > skip:
            if name in _PRINTING_FILTERS:
                _check_printable(args[skip], _GIVEN_TO, name=name)
            else:
                _check_weight(args[skip], _GIVEN_TO, name=name)
        if skip:
            args = (args[0], *_precheck_filter(name, args[1:], kwargs))
        else:
            args = _precheck_filter(name, args, kwargs)
        return _check_len(func(*args, **kwargs))

    return update_wrapper(bounded, func)


# ---------------------------------------------------------------------------- attribute policy

#: Template-visible methods and fields end at our own model classes; pydantic's machinery
#: (``model_copy``, ``model_config``, ``copy``, ``dict``, ``construct`` …) is not data.
_PYDANTIC_PREFIX = "model_"


@lru_cache(maxsize=1024)
def _model_attribute_ok(cls: type, attr: str) -> bool:
    if attr.startswith(_PYDANTIC_PREFIX):
        return False
    if attr in cls.model_fields:
        return True
    for klass in cls.__mro__:
        if klass is BaseModel or not issubclass(klass, BaseModel) or klass.__module__.startswith("pydantic"):
            continue
        if attr in vars(klass):
            return True
    return False


# ---------------------------------------------------------------------------- the loader

_DRIVE = re.compile(r"^[A-Za-z]:")


class ConfinedLoader(jinja2.BaseLoader):
    """Looks templates up in ``search_dirs`` (first match wins), refusing anything whose real
    path (symlinks followed) is outside ``allowed_roots``, any absolute name, and any file that
    is not a regular file or is larger than a text file may be."""

    def __init__(self, search_dirs: Sequence[Path], allowed_roots: Sequence[Path]):
        self.search_dirs = [Path(d) for d in search_dirs]
        self.allowed_roots = [Path(r) for r in allowed_roots]

    def get_source(self, environment: jinja2.Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        if "\x00" in template or template.startswith(("/", "\\")) or _DRIVE.match(template) or \
                PurePosixPath(template).is_absolute():
            raise UnsafePath(_("template name {name!r} is an absolute path; templates are named "
                               "relative to the game folder's templates/").format(name=template))
        for folder in self.search_dirs:
            candidate = folder / template
            if not os.path.lexists(candidate):
                continue
            real = confine(candidate, self.allowed_roots, N_("template"))
            if real.is_dir():
                continue
            data = read_bounded(real, limits.MAX_TEMPLATE_FILE_BYTES, N_("template"))
            try:
                source = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise UnsafePath(_("template {name!r} is not UTF-8 text ({reason})")
                                 .format(name=str(candidate), reason=exc.reason)) from None
            mtime = real.stat().st_mtime_ns
            return source, str(candidate), lambda: _mtime(real) == mtime
        if ".." in PurePosixPath(template).parts:
            # Not found and it climbs: say why rather than just "not found".
            raise UnsafePath(_("template {name!r} climbs out with '..'; name a file inside templates/").format(name=template))
        raise jinja2.TemplateNotFound(template)

    def list_templates(self) -> list[str]:  # pragma: no cover - not used by cardpress
        return []


def _mtime(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


# ---------------------------------------------------------------------------- the environment


class _BoundedCodeGenerator(CodeGenerator):
    """Routes ``~`` and ``{% for %}`` through the environment so they count against the budget."""

    def visit_Concat(self, node: nodes.Concat, frame: Any) -> None:  # noqa: N802 - Jinja's naming
        self.write("environment.bounded_join((")
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(", ")
        self.write("))")

    def visit_For(self, node: nodes.For, frame: Any) -> None:  # noqa: N802
        node.iter = nodes.Call(nodes.EnvironmentAttribute("counted"), [node.iter], [], None, None,
                               lineno=node.iter.lineno)
        super().visit_For(node, frame)


class BoundedTemplate(jinja2.Template):
    """A template whose ``render`` runs under a budget and counts what it writes."""

    def render(self, *args: Any, **kwargs: Any) -> str:
        ctx = self.new_context(dict(*args, **kwargs))
        with _bounded():
            return _collect(self.root_render_func(ctx))

    def generate(self, *args: Any, **kwargs: Any) -> Iterator[str]:
        """Streaming would escape the budget (it outlives the call): yield the bounded render."""
        yield self.render(*args, **kwargs)

    def make_module(self, vars=None, shared=False, locals=None):  # noqa: A002 - Jinja's signature
        with _bounded():
            return super().make_module(vars, shared, locals)


def _collect(pieces: Iterator[str]) -> str:
    out: list[str] = []
    total = 0
    for piece in pieces:
        total += len(piece)
        if total > limits.MAX_TEMPLATE_OUTPUT_CHARS:
            # Raised inside the template's frame, so the failure names the line writing it.
            pieces.throw(TemplateLimit(_("the template writes more than {limit:,} characters for one render; "
                                         "cardpress stops it here").format(limit=limits.MAX_TEMPLATE_OUTPUT_CHARS)))
        out.append(piece)
    return "".join(out)


class _BoundedFormatter(SandboxedFormatter):
    def format_field(self, value: Any, format_spec: str) -> Any:
        _check_spec(format_spec)
        _check_printable(value, _FORMATTED_VALUE)
        return _check_len(super().format_field(value, format_spec))


class CardpressEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with cardpress's attribute policy, budget hooks and confined loader."""

    intercepted_binops = frozenset({"*", "**", "+", "-", "%"})
    code_generator_class = _BoundedCodeGenerator
    template_class = BoundedTemplate

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.concat = self._bounded_concat  # macro bodies, {% set %} blocks, caller()
        self.globals["range"] = self._range
        # lipsum writes as many paragraphs as asked, in one call: no template needs it.
        self.globals.pop("lipsum", None)
        self.filters = {name: _bounded_filter(name, f) for name, f in self.filters.items()}

    # -- policy
    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if not super().is_safe_attribute(obj, attr, value):
            return False
        if isinstance(value, (PurePath, type, types.ModuleType)) or isinstance(obj, type):
            # Templates see data: not the file system, not classes (``dict.mro()`` leads to
            # ``object``) and not modules.
            return False
        if isinstance(obj, BaseModel):
            return _model_attribute_ok(type(obj), attr)
        return True

    def add_filters(self, filters: dict[str, Callable]) -> None:
        """Add filters, bounded like the built-in ones."""
        for name, func in filters.items():
            self.filters[name] = _bounded_filter(name, func)

    # -- hooks the sandboxed code calls
    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        _clock()
        if operator == "*":
            _check_mul(left, right)
        elif operator == "**":
            _check_pow(left, right)
        elif operator == "+":
            _check_add(left, right)
        elif operator == "%" and isinstance(left, str):
            _check_percent(left, right)
            _check_printable(right, _FORMATTED_VALUE)
        result = self.binop_table[operator](left, right)
        if _is_int(result) and result.bit_length() > MAX_INT_BITS:
            # Sums cannot explode in one step, but doubled in a loop they grow without end.
            raise _int_too_long(result.bit_length())
        return _check_len(result)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805
        _clock()
        if isinstance(__obj, types.BuiltinMethodType) and isinstance(getattr(__obj, "__self__", None), str):
            args = _precheck_str_method(__obj, args, kwargs)
        return _check_len(super().call(__context, __obj, *args, **kwargs))

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """``str.format``/``format_map`` through a formatter that refuses huge field widths."""
        if not isinstance(value, (types.MethodType, types.BuiltinMethodType)) or \
                value.__name__ not in ("format", "format_map") or not isinstance(value.__self__, str):
            return None
        text = value.__self__
        vformat = _BoundedFormatter(self).vformat
        is_map = value.__name__ == "format_map"

        def wrapper(*args: Any, **kwargs: Any) -> str:
            if is_map:
                if kwargs or len(args) != 1:
                    raise TypeError(_("format_map() takes exactly one mapping"))
                return _check_len(vformat(text, (), args[0]))
            return _check_len(vformat(text, args, kwargs))

        return update_wrapper(wrapper, value)

    def _range(self, *args: int) -> range:
        """``range`` charged against the render's iteration budget when it is made."""
        rng = range(*args)
        budget = _budget.get()
        if budget is not None:
            budget.charge(len(rng))
        elif len(rng) > limits.MAX_TEMPLATE_ITERATIONS:
            raise TemplateLimit(_("range of {n:,} numbers; at most {limit:,}")
                                .format(n=len(rng), limit=limits.MAX_TEMPLATE_ITERATIONS))
        return rng

    def counted(self, iterable: Any) -> Any:
        """What ``{% for %}`` iterates: sized iterables are charged up front (``range`` already
        was), others one item at a time."""
        budget = _budget.get()
        if budget is None or type(iterable) is range:
            return iterable
        if hasattr(iterable, "__len__"):
            budget.charge(len(iterable))
            return iterable
        return self._counting(iter(iterable), budget)

    @staticmethod
    def _counting(it: Iterator[Any], budget: _Budget) -> Iterator[Any]:
        for n, item in enumerate(it):
            budget.iterations += 1
            if n % _CLOCK_EVERY == 0:
                budget.charge(0)
            yield item
        budget.charge(0)

    def bounded_join(self, parts: Iterable[Any]) -> str:
        """``a ~ b``: sized before it is built."""
        strs = [p if isinstance(p, str) else str(_check_printable(p, _JOINED)) for p in parts]
        size = sum(map(len, strs))
        if size > MAX_VALUE_LEN:
            raise _too_big(N_("joining text with '~'"), size)
        return "".join(strs)

    def _bounded_concat(self, parts: Iterable[str]) -> str:
        strs = parts if isinstance(parts, list) else list(parts)
        size = sum(map(len, strs))
        if size > limits.MAX_TEMPLATE_OUTPUT_CHARS:
            raise _too_big(N_("a macro's or block's text"), size)
        return "".join(strs)

    def from_named_string(self, source: str, filename: str) -> jinja2.Template:
        """Like ``from_string``, but errors name ``filename`` (e.g. a glossary file)."""
        code = self.compile(source, name=filename, filename=filename)
        return self.template_class.from_code(self, code, self.make_globals(None), None)


def make_environment(search_dirs: Sequence[Path], allowed_roots: Sequence[Path], *,
                     filters: dict[str, Callable] | None = None, globals: dict[str, Any] | None = None,
                     **options: Any) -> CardpressEnvironment:
    """The sandboxed, confined, bounded environment every cardpress template renders in.

    ``search_dirs`` are looked up in order; ``allowed_roots`` are the trees a template (or what
    it includes/imports/extends) may resolve into. ``options`` are Jinja options
    (``trim_blocks``…); ``undefined`` defaults to ``StrictUndefined`` so a misspelt name is an
    error, and templates are not re-checked on disk during one run.
    """
    options.setdefault("undefined", jinja2.StrictUndefined)
    options.setdefault("autoescape", False)
    options.setdefault("auto_reload", False)
    options.setdefault("finalize", _printable)
    env = CardpressEnvironment(loader=ConfinedLoader(search_dirs, allowed_roots), **options)
    if filters:
        env.add_filters(filters)
    if globals:
        env.globals.update(globals)
    return env


def _printable(value: Any) -> Any:
    """``{{ value }}``: weighed, and refused if it is a data object, before it becomes text."""
    if isinstance(value, (str, int, float)):
        return value
    return _check_printable(value, _PRINTED_VALUE)


def template_roots(folder: Path | None) -> list[Path]:
    """Where a game's templates (and what they include) may live: its own ``templates/`` and
    the shipped ``templates/`` tree."""
    roots = [templates_root()]
    if folder is not None:
        roots.insert(0, folder / "templates")
    return roots


def own_templates_dir(folder: Path | None) -> Path | None:
    """A game folder's own ``templates/``, if it has one; refused if it is a symlink leading out."""
    if folder is None:
        return None
    own = folder / "templates"
    if not own.is_dir():
        return None
    confine(own, [folder], N_("templates folder"))
    return own


# ---------------------------------------------------------------------------- failures


def _template_frames(tb: Any) -> list[tuple[str, int]]:
    """(file, line) of every compiled-template frame of a traceback, outermost first."""
    frames = []
    while tb is not None:
        template = tb.tb_frame.f_globals.get("__jinja_template__")
        if template is not None:
            frames.append((template.filename or template.name or "<template>",
                           template.get_corresponding_lineno(tb.tb_lineno)))
        tb = tb.tb_next
    deduped: list[tuple[str, int]] = []
    for frame in frames:
        if not deduped or deduped[-1] != frame:
            deduped.append(frame)
    return deduped


def _message(exc: BaseException) -> str:
    if isinstance(exc, TemplateLimit):
        return str(exc)
    if isinstance(exc, SecurityError):
        return _("not allowed in a template: {error}").format(error=exc)
    if isinstance(exc, jinja2.TemplatesNotFound):
        return _("no template {names}").format(names=_(" or ").join(map(repr, exc.templates)))
    if isinstance(exc, jinja2.TemplateNotFound):
        return _("no template {name!r}").format(name=exc.name)
    if isinstance(exc, jinja2.UndefinedError):
        return exc.message or str(exc)
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return _("syntax error: {error}").format(error=exc.message)
    if isinstance(exc, jinja2.TemplateError):
        return exc.message or str(exc)
    if isinstance(exc, RecursionError):
        return _("templates or macros call themselves too deeply (a macro that never stops calling itself?)")
    if isinstance(exc, MemoryError):
        return _("the template needs more memory than any card could")
    if isinstance(exc, CardpressError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def failure(exc: BaseException) -> TemplateFailure:
    """A ``TemplateFailure`` for any exception raised loading or rendering a template."""
    if isinstance(exc, TemplateFailure):
        return exc
    if isinstance(exc, jinja2.TemplateSyntaxError):
        return TemplateFailure(_message(exc), exc.filename or exc.name, exc.lineno)
    frames = _template_frames(exc.__traceback__)
    file, line = frames[-1] if frames else (None, None)
    return TemplateFailure(_message(exc), file, line, frames, timed_out=isinstance(exc, TemplateTimeout))


#: What a template render may raise besides our own errors: anything a hostile template can
#: provoke (type errors, division by zero, overflow, recursion, memory) becomes a message.
RENDER_ERRORS = (Exception, RecursionError, MemoryError)


def render(template: jinja2.Template, context: dict[str, Any]) -> str:
    """Render under the budget; any failure becomes a ``TemplateFailure`` naming file and line."""
    try:
        return template.render(context)
    except RENDER_ERRORS as exc:
        raise failure(exc) from None


def load(env: jinja2.Environment, names: Sequence[str]) -> jinja2.Template:
    """The first of ``names`` that exists; failures (missing, unsafe, syntax) as ``TemplateFailure``."""
    try:
        return env.select_template(list(names))
    except RENDER_ERRORS as exc:
        raise failure(exc) from None
