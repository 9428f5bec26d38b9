"""Python client for the Text-Memory Service API v1: ``TextMemory`` (sync) and ``AsyncTextMemory``."""

from ._async_client import AsyncInfrastructure, AsyncMemory, AsyncTextMemory
from ._client import Infrastructure, Memory, TextMemory
from ._core import RetryEvent, new_event_id
from ._errors import TextMemoryError
from ._result import Result
from ._retry import RetryPolicy
from ._version import __version__

__all__ = [
    "AsyncInfrastructure",
    "AsyncMemory",
    "AsyncTextMemory",
    "Infrastructure",
    "Memory",
    "Result",
    "RetryEvent",
    "RetryPolicy",
    "TextMemory",
    "TextMemoryError",
    "__version__",
    "new_event_id",
]
