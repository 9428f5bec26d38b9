"""``memory.write_batch`` against the scripted server: the body sent, the typed answer, the retries (as
``write``'s) and the item bound checked before sending. The real stack's answers are in test_stack.py."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, Dict, List

import pytest

from conftest import API_KEY, Script, drop_connection, envelope, ok
from text_memory import WRITE_BATCH_MAX_ITEMS, AsyncTextMemory, TextMemory, TextMemoryError, models

KINDS = ["sync", "async"]


def run(kind: str, server: Script, call: Callable[[Any], Any]) -> Any:
    """The call made with a sync or an async client; backoff tiny so retries are quick."""
    settings: Dict[str, Any] = {"api_key": API_KEY, "backoff_base": 0.001, "backoff_max": 0.005}
    if kind == "sync":
        with TextMemory(server.base_url, **settings) as tm:
            return call(tm)

    async def main() -> Any:
        async with AsyncTextMemory(server.base_url, **settings) as tm:
            return await call(tm)

    return asyncio.run(main())


def item(key: str, text: str) -> models.WriteBatchItem:
    return {"idempotency_key": key, "event": {"occurred_at": "2026-11-01T10:00:00Z", "content": {"text": text}}}


ITEMS = [item("k1", "Alice prefers green tea"), item("k2", " ")]


def written(index: int, key: str, outcome: str) -> Dict[str, Any]:
    body = {
        "contract_version": "v1",
        "operation": "memory.write",
        "state": "retained",
        "request_id": "req-batch",
        "retryable": False,
        "idempotency_key": key,
        "idempotency_outcome": outcome,
        "namespace": "ns",
        "event_id": key,
        "memory_id": f"mem-{key}",
    }
    return {"index": index, "status": 200, "body": body}


REFUSED = {
    "index": 1,
    "status": 400,
    "body": {
        "contract_version": "v1",
        "error": "items[1].event.content.text must not be empty",
        "retryable": False,
        "request_id": "req-batch",
        "details": {
            "code": "validation_failed",
            "request_id": "req-batch",
            "fields": [{"path": "items[1].event.content.text", "message": "event.content.text must not be empty"}],
        },
    },
}


def batch_answer(*results: Dict[str, Any]) -> Dict[str, Any]:
    statuses = [r["status"] for r in results]
    return {
        "contract_version": "v1",
        "operation": "memory.write_batch",
        "state": "retained" if 200 in statuses else "no_data",
        "request_id": "req-batch",
        "retryable": False,
        "namespace": "ns",
        "item_counts": {
            "total": len(results),
            "accepted": sum(1 for r in results if r["status"] == 200 and r["body"]["idempotency_outcome"] == "Accepted"),
            "replayed": sum(1 for r in results if r["status"] == 200 and r["body"]["idempotency_outcome"] == "Replayed"),
            "conflict": statuses.count(409),
            "invalid": statuses.count(400),
            "failed": 0,
        },
        "results": list(results),
    }


@pytest.mark.parametrize("kind", KINDS)
def test_when_a_batch_is_written_then_its_items_go_as_given_and_each_result_is_its_own_model(kind: str, server: Script) -> None:
    server.answers = [ok(batch_answer(written(0, "k1", "Accepted"), REFUSED))]

    r = run(kind, server, lambda tm: tm.memory.write_batch(namespace="ns", items=ITEMS))

    assert server.seen[0].method == "POST" and server.seen[0].path == "/api/v1/memory/write/batch"
    # Keys are per item: no Idempotency-Key header (the route refuses one), and nothing filled in.
    assert "idempotency-key" not in server.seen[0].headers
    assert server.bodies() == [{"contract_version": "v1", "operation": "memory.write_batch", "namespace": "ns", "items": ITEMS}]
    assert isinstance(r, models.WriteBatchResponse) and isinstance(r.item_counts, models.WriteBatchItemCounts)
    assert (r.item_counts.accepted, r.item_counts.invalid) == (1, 1)
    ok_item, bad_item = r.results
    assert isinstance(ok_item, models.WriteBatchItemResult) and isinstance(ok_item.body, models.WriteResponse)
    assert ok_item.body.idempotency_outcome == "Accepted" and ok_item.body.memory_id == "mem-k1"
    assert isinstance(bad_item.body, models.ErrorEnvelope) and bad_item.status == 400
    assert isinstance(bad_item.body.details, models.ErrorEnvelopeDetails)
    fields = bad_item.body.details.fields
    assert fields is not None and fields[0].path == "items[1].event.content.text"
    assert bad_item.body.idempotency_outcome is None  # in the envelope's schema, not in this answer


@pytest.mark.parametrize("kind", KINDS)
def test_when_a_batch_gets_503_or_loses_its_answer_then_the_same_items_are_sent_again(kind: str, server: Script) -> None:
    server.answers = [
        envelope(503, "service_unavailable", True),
        drop_connection,
        ok(batch_answer(written(0, "k1", "Replayed"), REFUSED)),
    ]

    r = run(kind, server, lambda tm: tm.memory.write_batch(namespace="ns", items=ITEMS))

    assert len(server.seen) == 3
    # The same bytes every time: the items' keys name the same writes, so the resend replays them.
    assert server.seen[0].body == server.seen[1].body == server.seen[2].body
    assert r.results[0].body.idempotency_outcome == "Replayed"


@pytest.mark.parametrize("kind", KINDS)
def test_when_a_batch_is_refused_whole_then_it_is_not_sent_again(kind: str, server: Script) -> None:
    server.answers = [envelope(400, "validation_failed", False)]

    with pytest.raises(TextMemoryError) as caught:
        run(kind, server, lambda tm: tm.memory.write_batch(namespace="ns", items=ITEMS))

    assert (caught.value.status, caught.value.attempts, len(server.seen)) == (400, 1, 1)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "items, message",
    [
        ([item(f"k{i}", "t") for i in range(WRITE_BATCH_MAX_ITEMS + 1)], "items must hold at most 100 items"),
        ([], "items must hold at least one item"),
        (item("k1", "t"), "items must be a list of items"),
        ("k1", "items must be a list of items"),
    ],
)
def test_when_a_batch_has_no_items_or_more_than_100_then_it_is_refused_before_sending(
    kind: str, server: Script, items: Any, message: str
) -> None:
    with pytest.raises(TextMemoryError) as caught:
        run(kind, server, lambda tm: tm.memory.write_batch(namespace="ns", items=items))

    assert server.seen == []
    error = caught.value
    assert (error.status, error.code, error.retryable) == (0, "validation_failed", False)
    # The server's field and message (libs/contracts/src/memory/memory.ts), so both read alike.
    assert error.details is not None and error.details["fields"] == [{"path": "items", "message": message}]


def test_when_a_batch_holds_exactly_100_items_then_it_is_sent(server: Script) -> None:
    items: List[models.WriteBatchItem] = [item(f"k{i}", "t") for i in range(WRITE_BATCH_MAX_ITEMS)]
    server.answers = [ok(batch_answer(*(written(i, f"k{i}", "Accepted") for i in range(WRITE_BATCH_MAX_ITEMS))))]

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        r = tm.memory.write_batch(namespace="ns", items=items)

    assert len(json.loads(server.seen[0].body)["items"]) == 100 and r.item_counts.accepted == 100


def test_when_the_namespace_is_invalid_then_the_batch_is_refused_before_sending(server: Script) -> None:
    with TextMemory(server.base_url, api_key=API_KEY) as tm, pytest.raises(TextMemoryError) as caught:
        tm.memory.write_batch(namespace="", items=ITEMS)

    assert server.seen == [] and caught.value.details is not None
    assert caught.value.details["fields"] == [{"path": "namespace", "message": "namespace must not be empty"}]
