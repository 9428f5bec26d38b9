"""The SDK's one error, and how a server's answer becomes one (libs/clients/sdk/src/errors.ts)."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional

#: Codes the SDK itself gives, beside the server's ``details.code``: a request that never got an
#: answer, or one refused before sending.
CLIENT_ERROR_CODES = ("validation_failed", "connection_failed", "timeout", "aborted", "invalid_response")


class TextMemoryError(Exception):
    """Every failed call: the server answered with its envelope, the connection failed, or the input
    was refused before sending (``status`` 0 when no answer came). Its text never holds a credential:
    it is built from the server's ``error`` or from the SDK's own words."""

    status: int
    """HTTP status; 0 when there was no answer (connection failure, timeout, client-side check)."""
    error: str
    """The envelope's ``error`` (also ``str(err)``)."""
    code: str
    """``details.code`` from the server, or one of CLIENT_ERROR_CODES."""
    details: Optional[Dict[str, Any]]
    request_id: Optional[str]
    retryable: bool
    idempotency_outcome: Optional[str]
    """On a failed write: ``Conflict`` (reconcile, do not retry) or ``Retryable`` (retry with the same key)."""
    attempts: int
    """Attempts made, retries included."""

    def __init__(
        self,
        *,
        status: int,
        error: str,
        code: str,
        retryable: bool,
        details: Optional[Dict[str, Any]] = None,
        request_id: Optional[str] = None,
        idempotency_outcome: Optional[str] = None,
        attempts: int = 0,
    ) -> None:
        super().__init__(error)
        self.status = status
        self.error = error
        self.code = code
        self.details = details
        detail_id = details.get("request_id") if details else None
        self.request_id = request_id if request_id is not None else (detail_id if isinstance(detail_id, str) else None)
        self.retryable = retryable
        self.idempotency_outcome = idempotency_outcome
        self.attempts = attempts
        # A server's Retry-After in seconds (capped), read by the retry loop.
        self.retry_after: Optional[float] = None

    def __str__(self) -> str:
        return self.error

    def __repr__(self) -> str:
        return (
            f"TextMemoryError(status={self.status!r}, code={self.code!r}, error={self.error!r}, "
            f"request_id={self.request_id!r}, retryable={self.retryable!r}, attempts={self.attempts!r})"
        )

    def __reduce__(self) -> Any:  # picklable, keyword-only constructor
        return (_rebuild, (self.__dict__.copy(),))

    @classmethod
    def validation(cls, fields: List[Dict[str, str]]) -> "TextMemoryError":
        """A refusal before sending, shaped like the server's 400 ``validation_failed``."""
        text = "; ".join(f"{f['path']}: {f['message']}" for f in fields)
        return cls(
            status=0,
            error=f"Invalid request: {text}",
            code="validation_failed",
            retryable=False,
            details={"code": "validation_failed", "fields": fields},
        )


def _rebuild(state: Dict[str, Any]) -> TextMemoryError:
    error = TextMemoryError(status=0, error="", code="", retryable=False)
    error.__dict__.update(state)
    error.args = (error.error,)
    return error


def is_retryable_status(status: int) -> bool:
    """The statuses the spec calls retryable when a body does not say (429, 503, 504)."""
    return status in (429, 503, 504)


def error_from_response(status: int, body: Any, header_request_id: Optional[str]) -> TextMemoryError:
    """The server's answer as an error: our envelope, or the OpenAI-compatible one of the chat routes."""
    envelope: Mapping[str, Any] = body if isinstance(body, dict) else {}
    raw_details = envelope.get("details")
    details: Optional[Dict[str, Any]] = raw_details if isinstance(raw_details, dict) else None
    raw_error = envelope.get("error")
    # The chat routes answer {"error": {"message", "type", "code"}}.
    open_ai: Mapping[str, Any] = raw_error if isinstance(raw_error, dict) else {}
    if isinstance(raw_error, str):
        message = raw_error
    elif isinstance(open_ai.get("message"), str):
        message = open_ai["message"]
    else:
        message = f"HTTP {status}"
    detail_code = details.get("code") if details else None
    if isinstance(detail_code, str):
        code = detail_code
    elif isinstance(open_ai.get("code"), str):
        code = open_ai["code"]
    elif isinstance(open_ai.get("type"), str):
        code = open_ai["type"]
    else:
        code = f"http_{status}"
    raw_retryable = envelope.get("retryable")
    retryable = raw_retryable if isinstance(raw_retryable, bool) else is_retryable_status(status)
    outcome = envelope.get("idempotency_outcome")
    request_id = envelope.get("request_id")
    if not isinstance(request_id, str):
        detail_id = details.get("request_id") if details else None
        request_id = detail_id if isinstance(detail_id, str) else header_request_id
    return TextMemoryError(
        status=status,
        error=message,
        code=code,
        retryable=retryable,
        details=details,
        request_id=request_id,
        idempotency_outcome=outcome if outcome in ("Conflict", "Retryable") else None,
    )
