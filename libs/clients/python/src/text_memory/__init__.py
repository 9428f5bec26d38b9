"""Python client for the Text-Memory Service API v1: ``TextMemory`` (sync) and ``AsyncTextMemory``."""

from ._async_client import AsyncImports, AsyncInfrastructure, AsyncMemory, AsyncTextMemory, AsyncWebhooks
from ._client import Imports, Infrastructure, Memory, TextMemory, Webhooks
from ._core import WRITE_BATCH_MAX_ITEMS, RetryEvent, new_event_id
from ._families import Control, Marketplace, Memories, Templates, WebhookCalls
from ._errors import TextMemoryError
from . import models
from ._result import Model, Result
from ._retry import RetryPolicy
from ._upload import UploadProgress
from ._version import __version__

__all__ = [
    "AsyncImports",
    "AsyncInfrastructure",
    "AsyncMemory",
    "AsyncTextMemory",
    "AsyncWebhooks",
    "Control",
    "Imports",
    "Infrastructure",
    "Marketplace",
    "Memories",
    "Memory",
    "Model",
    "Result",
    "RetryEvent",
    "RetryPolicy",
    "Templates",
    "TextMemory",
    "TextMemoryError",
    "UploadProgress",
    "WebhookCalls",
    "Webhooks",
    "WRITE_BATCH_MAX_ITEMS",
    "__version__",
    "models",
    "new_event_id",
]
