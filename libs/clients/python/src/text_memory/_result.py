"""Answers with attribute access to their fields, keeping the raw JSON."""

from __future__ import annotations

from typing import Any, Dict, Iterator


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
        return f"Result({self._raw!r})"
