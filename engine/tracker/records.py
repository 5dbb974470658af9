"""``record``: the tracker's frozen, slotted dataclasses, without a method generated per class.

Every event and state class is a dataclass (the codec reads their fields and type hints). A
plain ``@dataclass(frozen=True, slots=True)`` generates ``__init__``, ``__repr__``, ``__eq__``,
``__hash__``, ``__setattr__`` and ``__delattr__`` from source text with ``exec``, about 0.6 ms
a class on this machine (Python 3.11): with ~100 event and state classes that was a quarter of
a ``cardpress track`` command. A record gets the same behaviour from one shared ``Record``
base, written once, and the decorator only lists the fields:

- ``Record(...)`` takes the fields by keyword (and, unless ``kw_only``, in order), fills the
  defaults, and refuses unknown or missing ones, as a dataclass does;
- instances are frozen (``FrozenInstanceError`` on assignment) and slotted;
- equality and hashing are by type and fields in order; ``repr`` is ``Name(field=value, …)``.

``dataclasses.fields``, ``is_dataclass`` and ``replace`` work on records as on any dataclass.
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")

_MISSING = dataclasses.MISSING


class Record:
    """Base of every record: the methods a frozen dataclass would have, shared by all of them."""

    __slots__ = ()
    #: (field names in order, their defaults (``_MISSING``: required), how many may be positional).
    __record__: tuple[tuple[str, ...], tuple[Any, ...], int] = ((), (), 0)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        names, defaults, positional = type(self).__record__
        if len(args) > positional:
            raise TypeError(f"{type(self).__name__}() takes {positional} positional arguments, got {len(args)}")
        setter = object.__setattr__
        for i, name in enumerate(names):
            if i < len(args):
                if name in kwargs:
                    raise TypeError(f"{type(self).__name__}() got multiple values for {name!r}")
                value = args[i]
            elif name in kwargs:
                value = kwargs.pop(name)
            else:
                value = defaults[i]
                if value is _MISSING:
                    raise TypeError(f"{type(self).__name__}() missing required argument {name!r}")
            setter(self, name, value)
        if kwargs:
            raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {next(iter(kwargs))!r}")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in type(self).__record__[0])

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((self.__class__, self._values()))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in type(self).__record__[0])
        return f"{type(self).__name__}({fields})"

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def record(cls: type[T] | None = None, /, *, kw_only: bool = False) -> Any:
    """Make ``cls`` (a subclass of ``Record``) a frozen, slotted dataclass of its annotations.

    >>> @record(kw_only=True)
    ... class CostGained(Record):
    ...     player: int
    ...     amount: int = 0
    >>> CostGained(player=1) == CostGained(player=1, amount=0)
    True
    """

    def wrap(cls: type[T]) -> type[T]:
        if not issubclass(cls, Record):
            raise TypeError(f"{cls.__name__} must subclass Record")
        made = dataclasses.dataclass(cls, init=False, repr=False, eq=False, frozen=False, match_args=False,
                                     kw_only=kw_only, slots=True)
        fields = dataclasses.fields(made)
        for f in fields:
            if f.default_factory is not _MISSING:
                raise TypeError(f"{made.__name__}.{f.name}: a record's defaults are values (tuples, not lists)")
        positional = 0
        for f in fields:
            if f.kw_only:
                break
            positional += 1
        made.__record__ = (tuple(f.name for f in fields), tuple(f.default for f in fields), positional)
        return made

    return wrap if cls is None else wrap(cls)


__all__ = ["Record", "record"]
