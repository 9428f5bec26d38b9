"""Which model an answer is: the route table generated into ``_models.py``, matched by method and path."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Pattern, Tuple, Type

from .models import ROUTES
from ._result import Model, Result


def _pattern(template: str) -> Pattern[str]:
    # A path parameter is one percent-encoded segment (the families encode ids with enc()).
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")


_ROUTES: List[Tuple[str, Pattern[str], Dict[int, Type[Model]]]] = [(m, _pattern(p), a) for m, p, a in ROUTES]


def answer_model(method: str, path: str, status: int) -> Type[Result]:
    """The model of a route's answer with this status; ``Result`` for a route or status the document has
    no model for (a newer server's, or a body this SDK adds itself)."""
    for route_method, pattern, answers in _ROUTES:
        if route_method == method and pattern.match(path):
            return answers.get(status, Result)
    return Result


def as_answer(method: str, path: str, status: int, data: Any) -> Any:
    model = answer_model(method, path, status)
    return model(data) if isinstance(data, dict) else Result(data)
