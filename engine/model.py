"""The base of every model read from a game folder (``game.yaml`` and each game's numbers).

Normally ``Model`` is a frozen pydantic model: reading a ``game.yaml`` validates it and every
problem is reported with its line. Importing pydantic and building the models costs ~0.3 s,
more than a whole ``cardpress track next`` may take, so a tracker command that took the
command line's fast path (``pipeline.main``) runs with **checked records** instead: the same
classes (same fields, defaults and methods — the class bodies are shared), built on a plain
frozen base from a definition that was validated earlier and cached with a seal
(``engine.definitions.read_checked``). That process never validates anything; a definition
not in the cache raises ``NotChecked`` and the command re-runs on the full path.

The mode is chosen once per process, before any model class exists: ``engine.CHECKED_RECORDS``.
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar

import engine

#: True in a fast-path process: models are plain records, pydantic is never imported.
CHECKED_RECORDS: bool = bool(getattr(engine, "CHECKED_RECORDS", False))


class NotChecked(Exception):
    """A checked-records process needed a definition validated (no verified cache of it)."""


if not CHECKED_RECORDS:
    from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

    class Model(BaseModel):
        """Frozen, strict-about-keys base: an unknown key in game.yaml is an error, not ignored."""

        model_config = ConfigDict(frozen=True, extra="forbid")

else:
    _REQUIRED: Any = object()

    class _FieldInfo:
        """What ``Field(...)`` says that matters to a record: its default and its alias."""

        __slots__ = ("default", "alias")

        def __init__(self, default: Any, alias: str | None):
            self.default, self.alias = default, alias

    def Field(default: Any = _REQUIRED, *, alias: str | None = None, **_ignored: Any) -> Any:  # noqa: N802
        return _FieldInfo(default, alias)

    def AfterValidator(fn: Callable) -> Callable:  # noqa: N802 - validation happened when the cache was written
        return fn

    def model_validator(*, mode: str) -> Callable[[Callable], Callable]:
        return lambda fn: fn

    class ValidationError(ValueError):
        """Never raised: records are not validated."""

    #: Record classes by ``module.QualName``: the only classes a cached definition may name.
    RECORDS: dict[str, type] = {}

    def _copied(value: Any) -> Any:
        # A default like ``{}`` is shared by the class; each record gets its own (as pydantic does).
        return dict(value) if isinstance(value, dict) else list(value) if isinstance(value, list) else value

    class Model:
        """A frozen record with the fields of its annotations (see the module docstring)."""

        model_fields: ClassVar[dict[str, tuple[str | None, Any]]] = {}

        def __init_subclass__(cls, **kwargs: Any) -> None:
            super().__init_subclass__(**kwargs)
            fields: dict[str, tuple[str | None, Any]] = {}
            for klass in reversed(cls.__mro__):
                for name, annotation in vars(klass).get("__annotations__", {}).items():
                    if name.startswith("_") or str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                        continue
                    default = vars(klass).get(name, _REQUIRED)
                    alias = None
                    if isinstance(default, _FieldInfo):
                        default, alias = default.default, default.alias
                    fields[name] = (alias, default)
            cls.model_fields = fields
            RECORDS[f"{cls.__module__}.{cls.__qualname__}"] = cls

        def __init__(self, **data: Any) -> None:
            for name, (alias, default) in self.model_fields.items():
                if name in data:
                    value = data.pop(name)
                elif alias is not None and alias in data:
                    value = data.pop(alias)
                elif default is _REQUIRED:
                    raise TypeError(f"{type(self).__name__}: missing field {name!r}")
                else:
                    value = _copied(default)
                object.__setattr__(self, name, value)
            if data:
                raise TypeError(f"{type(self).__name__}: unknown field(s) {sorted(data)}")

        def __setattr__(self, name: str, value: Any) -> None:
            raise TypeError(f"{type(self).__name__} is frozen")

        def _values(self) -> tuple:
            return tuple(getattr(self, name) for name in self.model_fields)

        def __eq__(self, other: object) -> bool:
            return type(other) is type(self) and self._values() == other._values()  # type: ignore[attr-defined]

        def __hash__(self) -> int:
            return hash((type(self), self._values()))

        def __repr__(self) -> str:
            inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.model_fields)
            return f"{type(self).__name__}({inner})"

        def model_copy(self, *, update: dict[str, Any] | None = None) -> Any:
            copy = object.__new__(type(self))
            for name in self.model_fields:
                object.__setattr__(copy, name, getattr(self, name))
            for name, value in (update or {}).items():
                object.__setattr__(copy, name, value)
            return copy


__all__ = ["Model", "Field", "AfterValidator", "model_validator", "ValidationError", "CHECKED_RECORDS",
           "NotChecked"]
