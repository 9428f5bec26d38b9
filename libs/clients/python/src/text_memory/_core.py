"""What the sync and async clients share: everything about a call that is not I/O. Building the request
(URL, headers, body, fixed before the first attempt), reading an answer into a result or an error,
deciding whether and how long to wait before a retry, and the client-side checks. The two clients only
send, sleep and loop, so they cannot drift apart."""

from __future__ import annotations

import json
import os
import re
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import IO, Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union
from urllib.parse import quote, urlencode, urlsplit

from ._errors import TextMemoryError, error_from_response
from ._retry import RetryPolicy, backoff_seconds, retry_after_seconds, should_retry
from ._upload import Upload
from .models import EventSourceInput, WriteBatchItem

# The service's input limits, as GET /api/v1/infrastructure/capabilities publishes them (libs/clients/sdk/src/limits.ts).
NAMESPACE_MAX_LENGTH = 128
NAMESPACE_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/-]*$")
TEXT_MAX_CHARS = 32_768
CUE_MAX_CHARS = 4_096
TOP_K_MIN, TOP_K_MAX = 1, 100
WRITE_BATCH_MAX_ITEMS = 100

#: How long ``memory.delete`` waits for the deletion job in all (a 1M-record namespace takes a few minutes).
DELETE_MAX_WAIT = 600.0
#: Pause between polls of the deletion (the server's Retry-After, 1 s).
DELETE_POLL = 1.0

Credential = str  # "api_key" | "session" | "either" | "none"
Time = Union[str, datetime]


@dataclass(frozen=True)
class RetryEvent:
    """Given to ``on_retry`` before each retry, after its delay is chosen."""

    attempt: int
    """The attempt that failed, from 1."""
    error: TextMemoryError
    delay: float
    """Seconds until the next attempt."""


@dataclass(frozen=True)
class Spec:
    """One call: route, credential, whether it is safe to send again after a lost answer, and the body."""

    method: str
    path: str
    credential: Credential
    safe: bool
    query: Optional[Mapping[str, Any]] = None
    json: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    #: Non-2xx statuses whose body is the answer, returned without a retry (health's 503 is its report).
    answers: Tuple[int, ...] = ()
    #: Or: a non-2xx answer is the result when this says so of its status and parsed body.
    answers_if: Optional[Callable[[int, Any], bool]] = None
    #: A multipart file body, read again on each attempt (``json`` is then None).
    upload: Optional[Upload] = None


@dataclass(frozen=True)
class Prepared:
    """A call ready to send: the same URL, headers and body bytes on every attempt."""

    method: str
    url: str
    headers: Dict[str, str]
    content: Optional[bytes]
    spec: Spec
    policy: RetryPolicy


@dataclass(frozen=True)
class Answer:
    status: int
    data: Any
    headers: Mapping[str, str]


# HTTP's whitespace, which is stripped from both ends of a header value.
_WS = " \t\r\n"
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


def _describe(char: str) -> str:
    code = ord(char)
    if code in (0x0A, 0x0D):
        return "a line break"
    if code == 0x20:
        return "a space"
    if code == 0x09:
        return "a tab"
    if code < 0x20 or code == 0x7F:
        return "a control character"
    return "a character outside ASCII"


def credential_problem(value: str) -> Optional[str]:
    """Why a credential cannot be sent, or None. Keys and tokens are visible ASCII; anything else in one
    is a pasting mistake, which the HTTP library would refuse with the value in its message."""
    trimmed = value.strip(_WS)
    if trimmed == "":
        return "is empty"
    for i, char in enumerate(trimmed):
        if not 0x21 <= ord(char) <= 0x7E:
            return f"holds {_describe(char)} at character {i + 1} of {len(trimmed)}"
    return None


def header_value_problem(value: str) -> Optional[str]:
    """Why a header value cannot be sent, or None. httpx sends header values as ASCII and refuses control
    characters; surrounding whitespace is trimmed (HTTP ignores it), so only the inside is checked."""
    trimmed = value.strip(_WS)
    for i, char in enumerate(trimmed):
        if (ord(char) < 0x20 and char != "\t") or ord(char) > 0x7E:
            return f"holds {_describe(char)} at character {i + 1} of {len(trimmed)}"
    return None


def aborted(attempts: int) -> TextMemoryError:
    """The error of a call cancelled by its ``cancel`` event (the TypeScript SDK's abort): never retried."""
    return TextMemoryError(status=0, error="The request was cancelled", code="aborted", retryable=False, attempts=attempts)


def unsendable(path: str, message: str) -> TextMemoryError:
    """The error for a value that cannot go into a request: a validation error, never retried."""
    return TextMemoryError(
        status=0,
        error=message,
        code="validation_failed",
        retryable=False,
        details={"code": "validation_failed", "fields": [{"path": path, "message": message}]},
    )


def checked_credential(name: str, value: Optional[str]) -> Optional[str]:
    """The credential without surrounding whitespace, refused at construction when it cannot be sent;
    the message names the option, never the value."""
    if value is None:
        return None
    problem = credential_problem(value) if isinstance(value, str) else "is not a string"
    if problem is not None:
        raise unsendable(name, f"{name} {problem}: give it exactly as issued (the value is not shown)")
    return value.strip(_WS)


# No default address: a client that quietly called 127.0.0.1 would hide a missing setting in production.
# The message says both ways to give one, and the local stack's address.
BASE_URL_REQUIRED = (
    'base_url is required: pass it (TextMemory("http://127.0.0.1:8080", …)) or set TM_BASE_URL; '
    "http://127.0.0.1:8080 is the local stack's gateway under `npm start`"
)


def checked_base_url(base_url: Optional[str]) -> str:
    if not base_url:
        raise unsendable("base_url", BASE_URL_REQUIRED)
    parts = urlsplit(base_url)
    if parts.username is not None or parts.password is not None:
        raise unsendable(
            "base_url",
            "base_url holds a user name or password: give the address alone and the key as api_key "
            "(the address is not shown)",
        )
    return base_url.rstrip("/")


# Same paths and messages as the server's 400 validation_failed (libs/clients/sdk/src/validation.ts).
def check_namespace(namespace: object, path: str = "namespace") -> List[Dict[str, str]]:
    if not isinstance(namespace, str):
        return [{"path": path, "message": "is required"}]
    if len(namespace) == 0:
        return [{"path": path, "message": "namespace must not be empty"}]
    if len(namespace) > NAMESPACE_MAX_LENGTH:
        return [{"path": path, "message": f"namespace must be at most {NAMESPACE_MAX_LENGTH} characters"}]
    if not NAMESPACE_PATTERN.match(namespace):
        return [
            {
                "path": path,
                "message": "namespace must start with a letter or digit and use only letters, digits and . _ : / -",
            }
        ]
    return []


def check_text(text: object, path: str, maximum: int) -> List[Dict[str, str]]:
    if not isinstance(text, str):
        return [{"path": path, "message": "is required"}]
    # JavaScript counts UTF-16 code units; so does the server.
    if len(text.encode("utf-16-le")) // 2 > maximum:
        return [{"path": path, "message": f"{path} must be at most {maximum} characters"}]
    if text.strip() == "":
        return [{"path": path, "message": f"{path} must not be empty"}]
    return []


def check_top_k(top_k: object) -> List[Dict[str, str]]:
    if top_k is None:
        return []
    if not isinstance(top_k, int) or isinstance(top_k, bool):
        return [{"path": "top_k", "message": "top_k must be an integer"}]
    if top_k < TOP_K_MIN:
        return [{"path": "top_k", "message": f"top_k must be at least {TOP_K_MIN}"}]
    if top_k > TOP_K_MAX:
        return [{"path": "top_k", "message": f"top_k must be at most {TOP_K_MAX}"}]
    return []


def check_explain(explain: object) -> List[Dict[str, str]]:
    if explain is None or isinstance(explain, bool):
        return []
    return [{"path": "explain", "message": "explain must be true or false"}]


def check_batch_items(items: object) -> List[Dict[str, str]]:
    """A batch's item count, as the server's ``items`` rule words it; each item the server checks alone
    (one bad item refuses only itself, so refusing it here would refuse its neighbours too)."""
    if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
        return [{"path": "items", "message": "items must be a list of items"}]
    if len(items) == 0:
        return [{"path": "items", "message": "items must hold at least one item"}]
    if len(items) > WRITE_BATCH_MAX_ITEMS:
        return [{"path": "items", "message": f"items must hold at most {WRITE_BATCH_MAX_ITEMS} items"}]
    return []


def assert_valid(*results: List[Dict[str, str]]) -> None:
    fields = [f for result in results for f in result]
    if fields:
        raise TextMemoryError.validation(fields)


def iso(time: Time, path: str) -> str:
    """A time as the API takes it: a string as given, a datetime in UTC with milliseconds (as JavaScript
    writes one). A naive datetime is refused: the API needs a zone."""
    if isinstance(time, str):
        return time
    if time.tzinfo is None or time.utcoffset() is None:
        raise TextMemoryError.validation([{"path": path, "message": f"{path} must have a time zone"}])
    text = time.astimezone(timezone.utc).isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def new_event_id() -> str:
    """An event identifier for a write that names none: sent as the idempotency key and event id."""
    return f"evt_{uuid.uuid4()}"


RecallOption = Union[bool, Mapping[str, Any], None]


def write_spec(
    namespace: str,
    text: str,
    idempotency_key: Optional[str],
    event_id: Optional[str],
    occurred_at: Optional[Time],
    source: Optional[EventSourceInput],
    supersedes: Optional[Sequence[str]],
    recall: RecallOption,
) -> Spec:
    """The write, with its idempotency key fixed here, once, before the first attempt: every retry sends
    the same body and key, so a write whose answer was lost comes back Replayed. No event time is made
    up: without one the service uses the time it retains the write, and the same call run again (a
    re-run of the script, the same key) replays instead of conflicting."""
    assert_valid(check_namespace(namespace), check_text(text, "event.content.text", TEXT_MAX_CHARS))
    if isinstance(recall, Mapping):
        assert_valid(check_top_k(recall.get("top_k")), check_explain(recall.get("explain")))
    key = idempotency_key if idempotency_key is not None else new_event_id()
    event: Dict[str, Any] = {
        "event_id": event_id if event_id is not None else key,
        "content": {"text": text},
    }
    if occurred_at is not None:
        event["occurred_at"] = iso(occurred_at, "event.occurred_at")
    if source:
        event["source"] = dict(source)
    if supersedes:
        event["supersedes"] = list(supersedes)
    body = {
        "contract_version": "v1",
        "operation": "memory.write",
        "namespace": namespace,
        "idempotency_key": key,
        "event": event,
    }
    return Spec("POST", "/api/v1/memory/write", "api_key", True, json=body, headers={"idempotency-key": key})


def write_batch_spec(namespace: str, items: Sequence[WriteBatchItem]) -> Spec:
    """Up to 100 writes to one namespace in one request, each item's ``{idempotency_key, event}`` sent as
    given: nothing is filled in, so every attempt sends the same items under the same keys, and a batch
    whose answer was lost replays on the retry. The body is fixed here, before the first attempt."""
    assert_valid(check_namespace(namespace), check_batch_items(items))
    body = {
        "contract_version": "v1",
        "operation": "memory.write_batch",
        "namespace": namespace,
        "items": list(items),
    }
    return Spec("POST", "/api/v1/memory/write/batch", "api_key", True, json=body)


def related_recall_args(text: str, recall: RecallOption) -> Dict[str, Any]:
    """The recall after a write: ``True`` recalls with the written text, a mapping gives
    query/top_k/as_of/explain."""
    options: Mapping[str, Any] = recall if isinstance(recall, Mapping) else {}
    query = options.get("query")
    return {
        "query": text[:CUE_MAX_CHARS] if query is None else query,
        "top_k": options.get("top_k"),
        "as_of": options.get("as_of"),
        "explain": options.get("explain"),
    }


def recall_spec(namespace: str, query: str, top_k: Optional[int], as_of: Optional[Time], explain: Optional[bool]) -> Spec:
    assert_valid(
        check_namespace(namespace),
        check_text(query, "cue.text", CUE_MAX_CHARS),
        check_top_k(top_k),
        check_explain(explain),
    )
    body: Dict[str, Any] = {
        "contract_version": "v1",
        "operation": "memory.recall",
        "namespace": namespace,
        "cue": {"text": query},
    }
    if top_k is not None:
        body["top_k"] = top_k
    if as_of is not None:
        body["as_of"] = iso(as_of, "as_of")
    if explain is not None:
        body["explain"] = explain
    return Spec("POST", "/api/v1/memory/recall", "api_key", True, json=body)


def delete_spec(namespace: str) -> Spec:
    # Asking again while a deletion runs answers the same job, so the call is safe to repeat.
    assert_valid(check_namespace(namespace))
    return Spec("DELETE", "/api/v1/memory", "api_key", True, query={"namespace": namespace})


def deletion_spec(deletion_id: str) -> Spec:
    return Spec("GET", f"/api/v1/memory/deletions/{quote(deletion_id, safe='')}", "api_key", True)


def delete_ask_again(error: TextMemoryError, elapsed: float, max_wait: float) -> Optional[float]:
    """While the DELETE answers a retryable 503 (its template data is still being deleted in batches,
    which goes on between asks) and the wait allows: the pause before asking again; else None (raise)."""
    if not (error.status == 503 and error.retryable):
        return None
    pause = error.retry_after if error.retry_after is not None else DELETE_POLL
    return None if elapsed + pause > max_wait else pause


def delete_next_poll(receipt: Any, elapsed: float, max_wait: float, poll_interval: Optional[float]) -> Optional[float]:
    """The pause before polling the deletion again, or None when it is done or the wait ran out (the
    receipt as it stands is returned; the server goes on)."""
    deletion = receipt.get("deletion") if isinstance(receipt, dict) else None
    if not isinstance(deletion, dict) or deletion.get("status") != "in_progress":
        return None
    pause = DELETE_POLL if poll_interval is None else poll_interval
    return None if elapsed + pause > max_wait else pause


HEALTH = Spec("GET", "/api/v1/infrastructure/health", "none", True, answers=(503,))
LIVE = Spec("GET", "/api/v1/infrastructure/health/live", "none", True)
CAPABILITIES = Spec("GET", "/api/v1/infrastructure/capabilities", "none", True)
STATUS = Spec("GET", "/api/v1/infrastructure/status", "either", True)


def open_sink(destination: Union[str, "os.PathLike[str]", IO[bytes]]) -> Tuple[IO[bytes], bool]:
    """Where ``export_to`` writes: a path (opened here, closed after) or a binary file object (yours)."""
    if isinstance(destination, (str, os.PathLike)):
        return open(destination, "wb"), True
    return destination, False


def is_smoke_test_report(status: int, body: Any) -> bool:
    """A smoke test's report, as the route's 503 carries it; the gateway's other 503s are envelopes only."""
    return (
        status == 503
        and isinstance(body, dict)
        and isinstance(body.get("steps"), list)
        and isinstance(body.get("outcome"), str)
    )


def smoke_test_spec(operator_token: Optional[str]) -> Spec:
    """The authorized diagnostic. Metered: a lost answer is not repeated blindly (safe=False)."""
    token = checked_credential("operator_token", operator_token)
    if token is None:
        raise unsendable("operator_token", "operator_token is required: pass operator_token= to the call or the client")
    return Spec(
        "POST",
        "/api/v1/infrastructure/smoke-test",
        "api_key",
        False,
        headers={"x-operator-token": token},
        answers_if=is_smoke_test_report,
    )


def restore_spec(file: Mapping[str, Any], namespace: Optional[str], from_namespace: Optional[str]) -> Spec:
    """``POST /api/v1/memory/restore``: the export file as the body, the mapping in the query.
    Safe to send again: a second restore of the same file stores and bills nothing."""
    assert_valid(
        [] if namespace is None else check_namespace(namespace, "namespace"),
        [] if from_namespace is None else check_namespace(from_namespace, "from_namespace"),
    )
    query = {k: v for k, v in (("namespace", namespace), ("from_namespace", from_namespace)) if v is not None}
    return Spec("POST", "/api/v1/memory/restore", "api_key", True, query=query, json=dict(file))


def restore_status_spec(restore_id: str) -> Spec:
    return Spec("GET", f"/api/v1/memory/restore/{quote(restore_id, safe='')}", "api_key", True)


def restore_failures_spec(restore_id: str, limit: Optional[int], offset: Optional[int]) -> Spec:
    query = {k: v for k, v in (("limit", limit), ("offset", offset)) if v is not None}
    return Spec("GET", f"/api/v1/memory/restore/{quote(restore_id, safe='')}/failures", "api_key", True, query=query)


def restore_next_poll(job: Any, elapsed: float, max_wait: float, poll_interval: Optional[float]) -> Optional[float]:
    """The pause before polling the restore again, or None when it has completed or the wait ran out
    (the job as it stands is returned; the server goes on)."""
    if not isinstance(job, dict) or job.get("state") == "completed":
        return None
    pause = DELETE_POLL if poll_interval is None else poll_interval
    return None if elapsed + pause > max_wait else pause


def deletion_id(receipt: Any) -> str:
    return str(receipt["deletion"]["id"])


#: Headers the SDK sets whose values are no secret; every other value is masked in error text.
_PLAIN_HEADERS = {"accept", "content-type", "x-request-id", "idempotency-key", "if-match", "user-agent"}


class Core:
    """A client's settings and the non-I/O half of every call."""

    def __init__(
        self,
        *,
        base_url: Optional[str],
        api_key: Optional[str],
        session_token: Optional[str],
        operator_token: Optional[str],
        policy: RetryPolicy,
        headers: Optional[Mapping[str, str]],
        on_retry: Optional[Callable[[RetryEvent], None]],
        user_agent: str,
    ) -> None:
        self.base_url = checked_base_url(base_url if base_url is not None else os.environ.get("TM_BASE_URL"))
        self.api_key = checked_credential("api_key", api_key if api_key is not None else os.environ.get("TM_API_KEY"))
        self.session_token = checked_credential("session_token", session_token)
        self.operator_token = checked_credential("operator_token", operator_token)
        self.policy = policy
        self.headers = dict(headers or {})
        self.on_retry = on_retry
        self.user_agent = user_agent

    def token(self, credential: Credential) -> Optional[str]:
        if credential == "none":
            return None
        if credential == "session":
            return self.session_token or self.api_key
        return self.api_key or self.session_token

    def prepare(
        self,
        spec: Spec,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Prepared:
        """URL, headers and body bytes, each header checked before the HTTP library sees it (it would
        refuse a bad value with an error quoting it, and that value may be a credential)."""
        headers: Dict[str, str] = {}

        def put(name: str, value: str) -> None:
            if not _HEADER_NAME.match(name):
                raise unsendable("headers", f"{json.dumps(name)} is not a valid HTTP header name")
            problem = header_value_problem(value)
            if problem is not None:
                raise unsendable(
                    f"headers.{name}", f"The {name} header cannot be sent: its value {problem} (the value is not shown)"
                )
            headers[name.lower()] = value.strip(_WS)

        put("accept", "application/json")
        put("user-agent", self.user_agent)
        for name, value in self.headers.items():
            put(name, value)
        token = self.token(spec.credential)
        if token:
            put("authorization", f"Bearer {token}")
        content: Optional[bytes] = None
        if spec.json is not None:
            content = json.dumps(spec.json, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            put("content-type", "application/json")
        if spec.upload is not None:
            put("content-type", spec.upload.content_type)
            put("content-length", str(spec.upload.content_length))
        if request_id is not None:
            put("x-request-id", request_id)
        for name, value in {**spec.headers, **(extra_headers or {})}.items():
            put(name, value)
        query = {k: v for k, v in (spec.query or {}).items() if v is not None}
        url = f"{self.base_url}{spec.path}"
        if query:
            url += "?" + urlencode(query, doseq=True)
        policy = self.policy.with_overrides(timeout=timeout, max_retries=max_retries)
        return Prepared(spec.method, url, headers, content, spec, policy)

    def redact(self, text: str, prepared: Prepared) -> str:
        """Text with every credential and every header value the caller added masked."""
        needles = {t for t in (self.api_key, self.session_token, self.operator_token) if t}
        needles.update(v for k, v in prepared.headers.items() if k not in _PLAIN_HEADERS and len(v) >= 8)
        for needle in sorted(needles, key=len, reverse=True):
            text = text.replace(needle, "[redacted]")
        return text

    def outcome(self, prepared: Prepared, status: int, headers: Mapping[str, str], body: bytes) -> Union[Answer, TextMemoryError]:
        """An answer read: the result, or the error it came to (with Retry-After in seconds, capped)."""
        request_id = headers.get("x-request-id")
        parsed, valid = _parse(body, headers.get("content-type"))
        spec = prepared.spec
        if 200 <= status < 300 or status in spec.answers or (valid and spec.answers_if is not None and spec.answers_if(status, parsed)):
            if not valid:
                return TextMemoryError(
                    status=status,
                    error="The answer was not valid JSON",
                    code="invalid_response",
                    retryable=False,
                    request_id=request_id,
                )
            return Answer(status, parsed, headers)
        error = error_from_response(status, parsed if valid else None, request_id)
        error.retry_after = retry_after_seconds(headers.get("retry-after"), prepared.policy)
        return error

    def failure(self, prepared: Prepared, exc: BaseException, timed_out: bool) -> TextMemoryError:
        """No answer: a timeout or a lost connection. The outcome of a write is unknown: it is retried
        with the same idempotency key when the call is safe to repeat."""
        if timed_out:
            message = f"No answer within {prepared.policy.timeout:g} s"
        else:
            reason = str(exc) or type(exc).__name__
            message = self.redact(f"Could not reach {self.base_url}: {reason}", prepared)
        return TextMemoryError(
            status=0,
            error=message,
            code="timeout" if timed_out else "connection_failed",
            retryable=prepared.spec.safe,
        )

    def retry_delay(self, prepared: Prepared, error: TextMemoryError, attempt: int) -> Optional[float]:
        """After failed attempt ``attempt`` (from 0): the seconds to wait before the next, or None to
        raise ``error``. Counts the attempt on the error and tells ``on_retry``."""
        error.attempts = attempt + 1
        if not should_retry(error, attempt, prepared.policy, prepared.spec.safe):
            return None
        delay = error.retry_after if error.retry_after is not None else backoff_seconds(attempt, prepared.policy)
        if self.on_retry is not None:
            self.on_retry(RetryEvent(attempt=attempt + 1, error=error, delay=delay))
        return delay

    def broken_off(self, prepared: Prepared, exc: BaseException, written: int, request_id: Optional[str]) -> TextMemoryError:
        """A streamed answer that stopped part-way (``export_to``): not retried, as its bytes are written."""
        reason = self.redact(str(exc) or type(exc).__name__, prepared)
        return TextMemoryError(
            status=0,
            error=f"The export broke off after {written} bytes: {reason}",
            code="connection_failed",
            retryable=False,
            request_id=request_id,
        )

    def __repr__(self) -> str:
        return f"base_url={self.base_url!r}"


def _parse(body: bytes, content_type: Optional[str]) -> Tuple[Any, bool]:
    if body == b"":
        return None, True
    if content_type and "json" not in content_type.lower():
        return body.decode("utf-8", "replace"), True
    try:
        return json.loads(body), True
    except ValueError:
        return None, False
