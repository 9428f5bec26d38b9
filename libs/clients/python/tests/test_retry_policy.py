"""The retry policy, as libs/clients/sdk/test/retry-policy.test.ts checks it, for both clients."""

from __future__ import annotations

import asyncio
import json
import re
import threading
import time
from typing import Any, Callable, Dict, List

import pytest

from conftest import API_KEY, Handler, Script, drop_connection, envelope, never, ok
from text_memory import AsyncTextMemory, RetryEvent, TextMemory, TextMemoryError

KINDS = ["sync", "async"]


def run(kind: str, server: Script, call: Callable[[Any], Any], retries: List[RetryEvent] | None = None, **options: Any) -> Any:
    """The call made with a sync or an async client; backoff tiny so retries are quick."""
    settings: Dict[str, Any] = {
        "api_key": API_KEY,
        "backoff_base": 0.001,
        "backoff_max": 0.005,
        "on_retry": (retries.append if retries is not None else None),
        **options,
    }
    if kind == "sync":
        with TextMemory(server.base_url, **settings) as tm:
            return call(tm)

    async def main() -> Any:
        async with AsyncTextMemory(server.base_url, **settings) as tm:
            return await call(tm)

    return asyncio.run(main())


def fails(kind: str, server: Script, call: Callable[[Any], Any], **options: Any) -> TextMemoryError:
    with pytest.raises(TextMemoryError) as caught:
        run(kind, server, call, **options)
    return caught.value


def write(tm: Any, **extra: Any) -> Any:
    return tm.memory.write(namespace="ns", text="Alice prefers green tea", **extra)


@pytest.mark.parametrize("kind", KINDS)
def test_when_a_write_gets_503_twice_then_it_is_sent_three_times_with_one_key(kind: str, server: Script) -> None:
    server.answers = [envelope(503, "service_unavailable", True), envelope(503, "service_unavailable", True), ok()]

    result = run(kind, server, write)

    assert result.ok is True
    assert len(server.seen) == 3
    first = server.keys_sent()[0]
    assert first is not None and re.fullmatch(r"evt_[0-9a-f-]{36}", first)
    assert server.keys_sent() == [first, first, first]
    # The same bytes every time: key and event_id (the key) fixed before the first attempt, and no
    # event time made up (the service chooses it, so a re-run of the same call replays).
    assert server.seen[0].body == server.seen[1].body == server.seen[2].body
    body = server.bodies()[0]
    assert body["idempotency_key"] == body["event"]["event_id"] == first
    assert body["contract_version"] == "v1" and body["operation"] == "memory.write" and body["namespace"] == "ns"
    assert "occurred_at" not in body["event"]


@pytest.mark.parametrize("kind", KINDS)
def test_when_503_keeps_coming_then_it_stops_after_max_retries_and_raises_the_last(kind: str, server: Script) -> None:
    server.answers = [envelope(503, "service_unavailable", True) for _ in range(4)]

    error = fails(kind, server, write)

    assert len(server.seen) == 3
    assert (error.status, error.code, error.retryable, error.attempts) == (503, "service_unavailable", True, 3)


@pytest.mark.parametrize("kind", KINDS)
def test_when_max_retries_is_set_per_call_then_that_call_uses_it(kind: str, server: Script) -> None:
    server.answers = [envelope(503, "service_unavailable", True) for _ in range(6)]

    fails(kind, server, lambda tm: tm.infrastructure.status(max_retries=0), max_retries=4)

    assert len(server.seen) == 1


@pytest.mark.parametrize("kind", KINDS)
def test_when_429_says_retry_after_then_the_wait_is_capped_by_retry_after_max(kind: str, server: Script) -> None:
    server.answers = [envelope(429, "rate_limited", True, headers={"retry-after": "30"}), ok()]
    retries: List[RetryEvent] = []

    run(kind, server, lambda tm: tm.memory.recall(namespace="ns", query="tea"), retries, retry_after_max=0.003)

    assert len(server.seen) == 2
    assert [(r.attempt, r.error.status, r.delay) for r in retries] == [(1, 429, 0.003)]


@pytest.mark.parametrize("kind", KINDS)
def test_when_a_write_gets_409_idempotency_in_flight_then_it_is_retried_with_the_same_key(kind: str, server: Script) -> None:
    server.answers = [envelope(409, "idempotency_in_flight", True, {"idempotency_outcome": "Retryable"}), ok()]

    run(kind, server, lambda tm: write(tm, idempotency_key="my-key-1"))

    assert server.keys_sent() == ["my-key-1", "my-key-1"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "status,code",
    [(400, "validation_failed"), (401, "authentication_required"), (403, "permission_denied"), (404, "not_found")],
)
def test_when_the_answer_is_not_retryable_then_there_is_one_attempt(kind: str, server: Script, status: int, code: str) -> None:
    server.answers = [envelope(status, code, False), ok()]

    error = fails(kind, server, write)

    assert len(server.seen) == 1
    assert (error.status, error.code, error.retryable, error.attempts, error.request_id) == (status, code, False, 1, "req-1")


@pytest.mark.parametrize("kind", KINDS)
def test_when_a_write_gets_409_idempotency_conflict_then_it_is_not_retried_and_says_conflict(kind: str, server: Script) -> None:
    server.answers = [envelope(409, "idempotency_conflict", False, {"idempotency_outcome": "Conflict"}), ok()]

    error = fails(kind, server, lambda tm: write(tm, idempotency_key="taken"))

    assert len(server.seen) == 1
    assert (error.status, error.code, error.retryable, error.idempotency_outcome) == (409, "idempotency_conflict", False, "Conflict")
    assert error.details == {"code": "idempotency_conflict", "request_id": "req-1"}


@pytest.mark.parametrize("kind", KINDS)
def test_when_health_answers_503_with_its_report_then_it_is_returned_after_one_attempt(kind: str, server: Script) -> None:
    report = {"status": "unavailable", "available": False, "services": {"memory": {"available": False}}}
    server.answers = [envelope(503, "service_unavailable", True, report), ok()]

    health = run(kind, server, lambda tm: tm.infrastructure.health())

    assert len(server.seen) == 1
    assert health.status == "unavailable" and health.available is False and health.services.memory.available is False
    assert "authorization" not in server.seen[0].headers


@pytest.mark.parametrize("kind", KINDS)
def test_when_a_call_fails_then_neither_its_text_nor_its_repr_holds_the_api_key(kind: str, server: Script) -> None:
    server.answers = [envelope(401, "authentication_required", False)]

    error = fails(kind, server, write)

    assert API_KEY not in str(error) and API_KEY not in repr(error) and API_KEY not in json.dumps(vars(error), default=str)
    assert server.seen[0].headers["authorization"] == f"Bearer {API_KEY}"


@pytest.mark.parametrize("kind", KINDS)
def test_when_the_connection_drops_after_a_write_was_received_then_the_retry_repeats_it_with_the_same_key(
    kind: str, server: Script
) -> None:
    server.answers = [drop_connection, ok({"idempotency_outcome": "Replayed"})]
    retries: List[RetryEvent] = []

    result = run(kind, server, write, retries)

    assert result.idempotency_outcome == "Replayed"
    assert len(server.seen) == 2
    assert server.seen[0].body == server.seen[1].body
    assert server.keys_sent()[0] == server.keys_sent()[1]
    assert (retries[0].error.status, retries[0].error.code) == (0, "connection_failed")


@pytest.mark.parametrize("kind", KINDS)
def test_when_no_answer_comes_within_the_timeout_then_a_get_is_tried_1_plus_max_retries_times(kind: str, server: Script) -> None:
    server.answers = [never, never, never]

    error = fails(kind, server, lambda tm: tm.infrastructure.live(), timeout=0.2)

    assert len(server.seen) == 3
    assert (error.status, error.code, error.attempts) == (0, "timeout", 3)


def test_when_an_async_call_is_cancelled_during_the_backoff_then_no_further_attempt_is_made(server: Script) -> None:
    server.answers = [envelope(503, "service_unavailable", True), ok()]

    async def main() -> None:
        async with AsyncTextMemory(server.base_url, api_key=API_KEY, backoff_base=60, backoff_max=60) as tm:
            task = asyncio.ensure_future(tm.infrastructure.status())
            while not server.seen:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(main())

    assert len(server.seen) == 1


def set_when_seen(server: Script, cancel: threading.Event, requests: int) -> threading.Thread:
    """Sets ``cancel`` once the server has taken ``requests`` requests (a call cancelled from elsewhere)."""

    def watch() -> None:
        while len(server.seen) < requests:
            time.sleep(0.01)
        cancel.set()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return thread


def test_when_a_sync_call_is_cancelled_during_the_backoff_then_it_stops_at_once_without_another_attempt(server: Script) -> None:
    server.answers = [envelope(503, "service_unavailable", True), ok()]
    cancel = threading.Event()
    set_when_seen(server, cancel, 1)

    with TextMemory(server.base_url, api_key=API_KEY, backoff_base=60, backoff_max=60) as tm:
        with pytest.raises(TextMemoryError) as caught:
            tm.infrastructure.status(cancel=cancel)

    assert (caught.value.code, caught.value.status, caught.value.retryable, caught.value.attempts) == ("aborted", 0, False, 1)
    assert len(server.seen) == 1


def test_when_a_sync_call_is_cancelled_while_its_attempt_waits_then_no_retry_follows(server: Script) -> None:
    # The server answers nothing and then drops the connection: without the cancel, this GET is retried.
    server.answers = [never, ok()]
    cancel = threading.Event()
    set_when_seen(server, cancel, 1)

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        with pytest.raises(TextMemoryError) as caught:
            tm.templates.list(cancel=cancel)

    assert (caught.value.code, caught.value.attempts) == ("aborted", 1)
    assert len(server.seen) == 1


def test_when_a_sync_call_is_cancelled_before_it_starts_then_nothing_is_sent(server: Script) -> None:
    cancel = threading.Event()
    cancel.set()

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        with pytest.raises(TextMemoryError) as caught:
            tm.memory.write(namespace="ns", text="never sent", cancel=cancel)

    assert (caught.value.code, caught.value.attempts) == ("aborted", 0)
    assert server.seen == []


def test_when_an_async_call_is_cancelled_while_its_attempt_waits_then_it_stops_without_another_attempt(server: Script) -> None:
    server.answers = [never, ok()]

    async def main() -> None:
        async with AsyncTextMemory(server.base_url, api_key=API_KEY) as tm:
            task = asyncio.ensure_future(tm.templates.list())
            while not server.seen:
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(main())

    assert len(server.seen) == 1  # the client is closed: no attempt can follow


def test_when_a_sync_call_is_cancelled_after_the_server_took_it_then_the_answer_that_arrives_is_returned(server: Script) -> None:
    cancel = threading.Event()

    def cancelled_while_working(handler: Handler, body: bytes) -> None:
        cancel.set()  # the caller gives up while the server is doing the work
        ok({"idempotency_outcome": "Accepted"})(handler, body)

    server.answers = [cancelled_while_working]
    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        written = tm.memory.write(namespace="ns", text="done before the cancel was seen", cancel=cancel)

    assert written.idempotency_outcome == "Accepted" and len(server.seen) == 1
