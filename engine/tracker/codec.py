"""Data-only (de)serialisation of the tracker's frozen dataclasses: events, state, snapshots.

Nothing read from a store file or an import is trusted, so decoding is driven by the classes'
own type hints and *checks* every value: an ``int`` field takes a whole number (not a bool, not
a string, at most ``MAX_INT_DIGITS`` digits), a ``tuple[int, ...]`` a bounded list of them, a
``str`` at most ``MAX_FIELD_CHARS`` characters, a nested dataclass a record whose ``"type"`` tag
names a registered class of the expected kind. Nothing is evaluated, imported or looked up by
name outside the registry, so a doctored record can at worst be refused.

The codec knows no game: any frozen dataclass registered with ``register`` (events, state
classes, the next game's own) is handled from its fields. Records are plain JSON:
``{"type": "CostGained", "player": 0, "amount": 11, "reason": ""}``; tuples become lists.

Canonical JSON (``canonical``) is what checksums are computed over: sorted keys, no spaces,
no NaN, the same bytes on every machine for the same data.
"""

from __future__ import annotations

from engine.i18n import _
import dataclasses
import json
import math
import types
import typing
from typing import Any, Callable

from ..errors import CardpressError
from ..limits import MAX_FIELD_CHARS, MAX_INT_DIGITS, MAX_TRACK_LIST_ITEMS

#: The key of a record naming its class.
TAG = "type"

#: Largest magnitude of a stored whole number (``MAX_INT_DIGITS`` digits).
MAX_INT = 10 ** MAX_INT_DIGITS - 1

#: Items in one tuple of a record (a level pile, a chain, a timer list): far above any game.
MAX_ITEMS = MAX_TRACK_LIST_ITEMS

#: Nesting of a command's arguments (``new`` stores lists and a dict of deck files).
MAX_ARGS_DEPTH = 4


class CodecError(CardpressError):
    """A record that does not fit its class; ``path`` says where (``events[2].amount``)."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.detail = message
        super().__init__(f"{path}: {message}" if path else message)


REGISTRY: dict[str, type] = {}
_DECODERS: dict[Any, Callable[[Any, str], Any]] = {}


def register(*classes: type) -> None:
    """Make dataclasses known by their class name (the ``"type"`` tag of their records)."""
    for cls in classes:
        if not dataclasses.is_dataclass(cls):
            raise TypeError(f"{cls!r} is not a dataclass")
        if any(f.name == TAG for f in dataclasses.fields(cls)):
            raise TypeError(f"{cls.__name__} has a field named {TAG!r}, which records use for the class name")
        known = REGISTRY.get(cls.__name__)
        if known is not None and known is not cls:
            raise TypeError(f"two classes named {cls.__name__} registered")
        REGISTRY[cls.__name__] = cls


# ---------------------------------------------------------------------------- encoding


def encode(value: Any) -> Any:
    """A dataclass (recursively) → JSON-ready data; tuples → lists."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        record: dict[str, Any] = {TAG: type(value).__name__}
        for f in dataclasses.fields(value):
            record[f.name] = encode(getattr(value, f.name))
        return record
    if isinstance(value, (tuple, list)):
        return [encode(v) for v in value]
    return value


def canonical(data: Any) -> str:
    """The one JSON text of ``data`` that checksums are computed over."""
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)


# ---------------------------------------------------------------------------- decoding


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _int(value: Any, path: str) -> int:
    if type(value) is not int:
        raise CodecError(path, _("expected a whole number, got {value}").format(value=_describe(value)))
    if not -MAX_INT <= value <= MAX_INT:
        raise CodecError(path, _("number out of range (more than {MAX_INT_DIGITS} digits)").format(MAX_INT_DIGITS=MAX_INT_DIGITS))
    return value


def _float(value: Any, path: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value):
        raise CodecError(path, _("expected a finite number, got {value}").format(value=_describe(value)))
    return float(value)


def _str(value: Any, path: str) -> str:
    if type(value) is not str:
        raise CodecError(path, _("expected text, got {value}").format(value=_describe(value)))
    if len(value) > MAX_FIELD_CHARS:
        raise CodecError(path, _("text of {n_value} characters (at most {MAX_FIELD_CHARS})").format(n_value=len(value), MAX_FIELD_CHARS=MAX_FIELD_CHARS))
    return value


def _bool(value: Any, path: str) -> bool:
    if type(value) is not bool:
        raise CodecError(path, _("expected true or false, got {value}").format(value=_describe(value)))
    return value


def _none(value: Any, path: str) -> None:
    if value is not None:
        raise CodecError(path, _("expected null, got {value}").format(value=_describe(value)))
    return None


_SCALARS: dict[Any, Callable[[Any, str], Any]] = {int: _int, float: _float, str: _str, bool: _bool,
                                                   type(None): _none}


def _items(value: Any, path: str) -> list:
    if type(value) is not list:
        raise CodecError(path, _("expected a list, got {value}").format(value=_describe(value)))
    if len(value) > MAX_ITEMS:
        raise CodecError(path, _("list of {n_value} items (at most {MAX_ITEMS})").format(n_value=len(value), MAX_ITEMS=MAX_ITEMS))
    return value


def _decoder(hint: Any) -> Callable[[Any, str], Any]:
    """A checking decoder for a type hint, built once per hint."""
    found = _DECODERS.get(hint)
    if found is not None:
        return found
    if hint in _SCALARS:
        fn = _SCALARS[hint]
    elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
        fn = _record_decoder(hint)
    else:
        origin, params = typing.get_origin(hint), typing.get_args(hint)
        if origin in (typing.Union, types.UnionType):
            fn = _union_decoder(params)
        elif origin is tuple and len(params) == 2 and params[1] is Ellipsis:
            item = _decoder(params[0])

            def fn(value: Any, path: str, item=item) -> tuple:
                return tuple(item(v, f"{path}[{i}]") for i, v in enumerate(_items(value, path)))
        elif origin is tuple:
            parts = [_decoder(p) for p in params]

            def fn(value: Any, path: str, parts=parts) -> tuple:
                items = _items(value, path)
                if len(items) != len(parts):
                    raise CodecError(path, _("expected {n_parts} items, got {n_items}").format(n_parts=len(parts), n_items=len(items)))
                return tuple(part(v, f"{path}[{i}]") for i, (part, v) in enumerate(zip(parts, items)))
        else:
            raise TypeError(f"the codec cannot decode {hint!r}")
    _DECODERS[hint] = fn
    return fn


def _union_decoder(params: tuple) -> Callable[[Any, str], Any]:
    options = [_decoder(p) for p in params]
    nullable = type(None) in params

    def fn(value: Any, path: str) -> Any:
        if value is None and nullable:
            return None
        last: CodecError | None = None
        for option in options:
            try:
                return option(value, path)
            except CodecError as exc:
                last = exc
        assert last is not None
        raise last

    return fn


def _record_decoder(cls: type) -> Callable[[Any, str], Any]:
    """Decode a record of ``cls`` or of a registered subclass of it (an ``Event`` field takes any event)."""

    def fn(value: Any, path: str) -> Any:
        if type(value) is not dict:
            raise CodecError(path, _("expected a {name} record, got {value}").format(name=cls.__name__, value=_describe(value)))
        tag = value.get(TAG, cls.__name__)
        actual = REGISTRY.get(tag) if type(tag) is str else None
        if actual is None or not issubclass(actual, cls):
            raise CodecError(f"{path}.{TAG}" if path else TAG, _("unknown {name} type {tag}").format(name=cls.__name__, tag=_describe(tag)))
        return _fields_of(actual)(value, path)

    return fn


_FIELD_DECODERS: dict[type, Callable[[dict, str], Any]] = {}


def _fields_of(cls: type) -> Callable[[dict, str], Any]:
    found = _FIELD_DECODERS.get(cls)
    if found is not None:
        return found
    hints = typing.get_type_hints(cls)
    specs = []
    for f in dataclasses.fields(cls):
        required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        specs.append((f.name, _decoder(hints[f.name]), required))
    names = {name for name, _sep, _rest in specs} | {TAG}

    def fn(value: dict, path: str) -> Any:
        extra = [k for k in value if k not in names]
        if extra:
            raise CodecError(path, _("{name} has no field {extra}").format(name=cls.__name__, extra=_describe(extra[0])))
        kwargs = {}
        for name, decode_field, required in specs:
            if name in value:
                kwargs[name] = decode_field(value[name], f"{path}.{name}" if path else name)
            elif required:
                raise CodecError(f"{path}.{name}" if path else name, _("missing (a {name} needs it)").format(name=cls.__name__))
        return cls(**kwargs)

    _FIELD_DECODERS[cls] = fn
    return fn


def decode(data: Any, cls: Any, path: str = "") -> Any:
    """``data`` checked against and built into ``cls`` (a registered dataclass or a type hint).

    Raises ``CodecError`` naming the path of the first value that does not fit.
    """
    return _decoder(cls)(data, path)


def check_args(value: Any, path: str = "args", depth: int = 0) -> Any:
    """A command's arguments: a JSON object of bounded scalars, lists and objects."""
    if depth > MAX_ARGS_DEPTH:
        raise CodecError(path, _("nested too deeply"))
    if type(value) is dict:
        if len(value) > MAX_ITEMS:
            raise CodecError(path, _("{n_value} keys (at most {MAX_ITEMS})").format(n_value=len(value), MAX_ITEMS=MAX_ITEMS))
        for key, item in value.items():
            _str(key, path)
            check_args(item, f"{path}.{key}", depth + 1)
        return value
    if depth == 0:
        raise CodecError(path, _("expected an object, got {value}").format(value=_describe(value)))
    if type(value) is list:
        for i, item in enumerate(_items(value, path)):
            check_args(item, f"{path}[{i}]", depth + 1)
        return value
    if type(value) is float:
        return _float(value, path)
    if type(value) is int:
        return _int(value, path)
    if value is None or type(value) is bool:
        return value
    return _str(value, path)
