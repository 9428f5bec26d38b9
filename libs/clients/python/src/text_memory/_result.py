"""Answers with attribute access to their fields, keeping the raw JSON."""

from __future__ import annotations

from typing import Any, ClassVar, Dict, Iterator, Optional, Sequence, Type


def wrap(value: Any) -> Any:
    """A JSON value with every object in it made a Result (lists stay lists)."""
    if isinstance(value, dict):
        return Result(value)
    if isinstance(value, list):
        return [wrap(item) for item in value]
    return value


class Result:
    """One JSON object of an answer: ``r.idempotency_outcome``, ``r.related[0].score``, ``r["state"]``.

    ``raw`` is the object as the server sent it (a dict). A field the answer does not hold raises
    AttributeError (``getattr(r, "context", None)`` for an optional one)."""

    __slots__ = ("_raw",)

    def __init__(self, raw: Dict[str, Any]) -> None:
        object.__setattr__(self, "_raw", raw)

    @property
    def raw(self) -> Dict[str, Any]:
        return self._raw  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        raw: Dict[str, Any] = object.__getattribute__(self, "_raw")
        if name in raw:
            return wrap(raw[name])
        raise AttributeError(f"the answer has no field {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Result is read-only; its raw dict is the answer")

    def __getitem__(self, name: str) -> Any:
        return wrap(self._raw[name])

    def __contains__(self, name: object) -> bool:
        return name in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def __eq__(self, other: object) -> bool:
        mine: Dict[str, Any] = self._raw
        if isinstance(other, Result):
            return mine == other.raw
        return mine == other

    __hash__ = None  # type: ignore[assignment]

    def get(self, name: str, default: Any = None) -> Any:
        return wrap(self._raw[name]) if name in self._raw else default

    def __dir__(self) -> Any:
        return [*super().__dir__(), *self._raw.keys()]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._raw!r})"


class Model(Result):
    """A Result of a schema the API publishes: the generated classes in ``_models.py`` declare its
    fields' types, and name the model of each nested object, list of objects or map of objects. A field
    of the schema that the answer leaves out reads as None (``r.context``); any other missing name is an
    AttributeError, as on a Result. A field the schema does not know yet (a newer server) still reads."""

    __slots__ = ()
    #: field -> the nested model: ``"Usage"``, ``"[RelatedResult]"`` (a list), ``"{ServiceHealth}"`` (a map),
    #: ``"WriteResponse|ErrorEnvelope"`` (one of several: the one the value fits, see ``fitting``), or None.
    _fields: ClassVar[Dict[str, Optional[str]]] = {}
    _registry: ClassVar[Dict[str, Type["Model"]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        Model._registry[cls.__name__] = cls

    def _typed(self, name: str) -> Any:
        return typed(self._raw[name], type(self)._fields.get(name))

    def __getattr__(self, name: str) -> Any:
        raw: Dict[str, Any] = object.__getattribute__(self, "_raw")
        if name in raw:
            return self._typed(name)
        if name in type(self)._fields:
            return None
        raise AttributeError(f"the answer has no field {name!r}")

    def __getitem__(self, name: str) -> Any:
        return self._typed(name)

    def get(self, name: str, default: Any = None) -> Any:
        return self._typed(name) if name in self._raw else default


class Entries(Result):
    """A map of a model (``status.services["memory"]``): its values are that model."""

    __slots__ = ("_models",)

    def __init__(self, raw: Dict[str, Any], models: Sequence[str]) -> None:
        super().__init__(raw)
        object.__setattr__(self, "_models", tuple(models))

    def _typed(self, name: str) -> Any:
        return fitting(self._models, self._raw[name])

    def __getattr__(self, name: str) -> Any:
        raw: Dict[str, Any] = object.__getattribute__(self, "_raw")
        if name in raw:
            return self._typed(name)
        raise AttributeError(f"the answer has no field {name!r}")

    def __getitem__(self, name: str) -> Any:
        return self._typed(name)

    def get(self, name: str, default: Any = None) -> Any:
        return self._typed(name) if name in self._raw else default


def fitting(models: Sequence[str], value: Any) -> Any:
    """An object as the model it fits, of ``models`` (names): with one, that one; with several (a batch
    item's body is a write's answer or an error envelope), the one whose fields hold most of the
    object's keys, the first on a tie. The schemas refuse unknown fields, so the right one holds them
    all; counting, rather than asking for all, keeps a newer server's extra field from losing the type."""
    if not isinstance(value, dict):
        return wrap(value)
    if len(models) == 1:
        return Model._registry[models[0]](value)
    candidates = [Model._registry[name] for name in models]
    return max(candidates, key=lambda model: sum(key in model._fields for key in value))(value)


def typed(value: Any, nested: Optional[str]) -> Any:
    """A field's value as its model says: one model (or one of several), a list of it, or a map of it;
    else ``wrap``."""
    if nested is None:
        return wrap(value)
    models = nested.strip("[]{}").split("|")
    if nested.startswith("[") and isinstance(value, list):
        return [fitting(models, item) for item in value]
    if nested.startswith("{") and isinstance(value, dict):
        return Entries(value, models)
    return fitting(models, value)
