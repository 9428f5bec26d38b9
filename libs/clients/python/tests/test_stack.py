"""Against a real stack: tests/e2e/python-sdk.test.ts starts one and sets TM_TEST_STACK_URL and
TM_TEST_API_KEY (a fresh tenant's key); skipped without them."""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest

from text_memory import AsyncTextMemory, TextMemory, TextMemoryError

URL = os.environ.get("TM_TEST_STACK_URL")
KEY = os.environ.get("TM_TEST_API_KEY")
pytestmark = pytest.mark.skipif(not (URL and KEY), reason="no stack: set TM_TEST_STACK_URL and TM_TEST_API_KEY")


def test_sync_client_against_the_stack() -> None:
    namespace = f"py-{uuid.uuid4().hex[:12]}"
    with TextMemory(URL, api_key=KEY) as tm:
        health = tm.infrastructure.health()
        assert health.available is True and health.contract_version == "v1"
        assert tm.infrastructure.live().status == "alive"
        limits = tm.infrastructure.capabilities().limits
        assert limits.raw  # published; the SDK's own checks use the same numbers (README)
        assert tm.infrastructure.status().contract_version == "v1"

        key, at = f"py-key-{uuid.uuid4()}", "2026-11-01T10:00:00Z"
        first = tm.memory.write(
            namespace=namespace, text="Alice prefers green tea", idempotency_key=key, occurred_at=at, recall=True
        )
        assert first.idempotency_outcome == "Accepted" and first.state == "retained"
        assert first.related_recall.related[0].event_id == first.event_id == key
        # The same write again (what a retry after a lost answer sends): replayed, not doubled.
        again = tm.memory.write(namespace=namespace, text="Alice prefers green tea", idempotency_key=key, occurred_at=at)
        assert again.idempotency_outcome == "Replayed" and again.memory_id == first.memory_id

        r = tm.memory.recall(namespace=namespace, query="what does Alice drink? tea", top_k=5)
        assert r.retrieval_outcome == "matched" and 0 < r.related[0].score <= 1
        assert "green tea" in r.context

        with pytest.raises(TextMemoryError) as caught:
            tm.memory.write(namespace=namespace, text="something else", idempotency_key=key)
        assert caught.value.status == 409 and caught.value.attempts == 1
        assert caught.value.idempotency_outcome == "Conflict" and str(KEY) not in repr(caught.value)

        done = tm.memory.delete(namespace=namespace)
        assert done.deletion.status == "completed" and done.namespace == namespace
        assert tm.memory.recall(namespace=namespace, query="tea").state == "no_data"


def test_async_client_against_the_stack() -> None:
    namespace = f"py-{uuid.uuid4().hex[:12]}"

    async def main() -> None:
        async with AsyncTextMemory(URL, api_key=KEY) as tm:
            assert (await tm.infrastructure.health()).available is True
            w = await tm.memory.write(namespace=namespace, text="Bo drinks black coffee")
            assert w.idempotency_outcome == "Accepted"
            r = await tm.memory.recall(namespace=namespace, query="coffee")
            assert r.related[0].text == "Bo drinks black coffee"
            assert (await tm.memory.delete(namespace=namespace)).deletion.status == "completed"

    asyncio.run(main())
