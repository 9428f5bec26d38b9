"""Construction, results, the deletion job and client-side checks."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone
from typing import Any, List

import pytest

from conftest import API_KEY, Script, ok
from text_memory import AsyncTextMemory, Result, RetryPolicy, TextMemory, TextMemoryError
from text_memory.models import DeleteReceipt, ExplainedTerm, RecallExplanation, RecallResponse
from text_memory._retry import backoff_seconds, retry_after_seconds


def test_when_no_base_url_or_key_is_given_then_tm_base_url_and_tm_api_key_are_read(server: Script, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TM_BASE_URL", server.base_url + "/")
    monkeypatch.setenv("TM_API_KEY", API_KEY)
    server.answers = [ok({"status": "ok"})]

    with TextMemory() as tm:
        assert tm.base_url == server.base_url
        tm.infrastructure.status()

    assert server.seen[0].path == "/api/v1/infrastructure/status"
    assert server.seen[0].headers["authorization"] == f"Bearer {API_KEY}"
    assert API_KEY not in repr(tm)


@pytest.mark.parametrize("client", [TextMemory, AsyncTextMemory])
@pytest.mark.parametrize("unset", ["absent", "empty"])
def test_when_there_is_no_base_url_then_construction_fails_naming_both_ways_to_give_one(
    client: Any, unset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if unset == "absent":
        monkeypatch.delenv("TM_BASE_URL", raising=False)
    else:
        monkeypatch.setenv("TM_BASE_URL", "")
    with pytest.raises(TextMemoryError) as caught:
        client(api_key=API_KEY)
    message = (
        'base_url is required: pass it (TextMemory("http://127.0.0.1:8080", …)) or set TM_BASE_URL; '
        "http://127.0.0.1:8080 is the local stack's gateway under `npm start`"
    )
    assert str(caught.value) == message
    assert caught.value.code == "validation_failed" and caught.value.status == 0
    assert caught.value.details is not None
    assert caught.value.details["fields"] == [{"path": "base_url", "message": message}]


def test_when_a_key_holds_a_line_break_then_construction_fails_without_showing_it() -> None:
    with pytest.raises(TextMemoryError) as caught:
        TextMemory("http://127.0.0.1:1", api_key="tmk_secret\nvalue")
    assert "tmk_secret" not in str(caught.value) and "api_key holds a line break" in str(caught.value)


def test_when_a_recall_answers_then_fields_are_attributes_and_the_raw_answer_is_kept(server: Script) -> None:
    answer = {"state": "retained", "related": [{"event_id": "e1", "score": 0.5, "text": "green tea"}], "context": "green tea"}
    server.answers = [ok(answer)]

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        r = tm.memory.recall(namespace="ns", query="tea", top_k=3, as_of=datetime(2026, 11, 1, 12, tzinfo=timezone(timedelta(hours=1))))

    assert r.related[0].score == 0.5 and r["state"] == "retained" and r.raw == answer
    assert isinstance(r.related[0], Result) and "context" in r
    with pytest.raises(AttributeError):
        r.missing
    assert server.bodies()[0] == {
        "contract_version": "v1",
        "operation": "memory.recall",
        "namespace": "ns",
        "cue": {"text": "tea"},
        "top_k": 3,
        "as_of": "2026-11-01T11:00:00.000Z",
    }


def test_when_a_write_asks_for_recall_then_the_related_recall_uses_the_written_text(server: Script) -> None:
    server.answers = [ok({"idempotency_outcome": "Accepted"}), ok({"related": []})]

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        r = tm.memory.write(
            namespace="ns",
            text="Alice prefers green tea",
            event_id="e-1",
            occurred_at="2026-11-01T10:00:00Z",
            source={"type": "direct_user_input"},
            supersedes=["e-0"],
            recall=True,
        )

    assert r.idempotency_outcome == "Accepted" and r.related_recall.related == []
    write, recall = server.bodies()
    assert write["event"] == {
        "event_id": "e-1",
        "occurred_at": "2026-11-01T10:00:00Z",
        "content": {"text": "Alice prefers green tea"},
        "source": {"type": "direct_user_input"},
        "supersedes": ["e-0"],
    }
    assert recall["cue"] == {"text": "Alice prefers green tea"}


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_when_a_recall_asks_for_explain_then_it_is_sent_and_each_explanation_reads_as_typed_models(kind: str, server: Script) -> None:
    explanation = {
        "terms": [{"word": "drinks", "term": "drink", "weight": 0.6, "matched": True}, {"word": "alice", "term": "alic", "weight": 0.4, "matched": False}],
        "tie_break_terms": [{"word": "what", "term": "what", "weight": 1, "matched": False}],
    }
    server.answers = [ok({"related": [{"event_id": "e1", "score": 0.6, "matched_terms": 1, "explanation": explanation}]})]

    if kind == "sync":
        with TextMemory(server.base_url, api_key=API_KEY) as tm:
            r = tm.memory.recall(namespace="ns", query="what drinks Alice", explain=True)
    else:

        async def main() -> RecallResponse:
            async with AsyncTextMemory(server.base_url, api_key=API_KEY) as tm:
                return await tm.memory.recall(namespace="ns", query="what drinks Alice", explain=True)

        r = asyncio.run(main())

    assert server.bodies()[0]["explain"] is True
    explained = r.related[0].explanation
    assert isinstance(explained, RecallExplanation) and isinstance(explained.terms[0], ExplainedTerm)
    assert [(t.word, t.term, t.weight, t.matched) for t in explained.terms] == [("drinks", "drink", 0.6, True), ("alice", "alic", 0.4, False)]
    assert [t.word for t in explained.tie_break_terms] == ["what"]


def test_when_explain_is_not_given_then_it_is_not_sent_and_a_write_passes_it_to_its_related_recall(server: Script) -> None:
    server.answers = [ok({"related": []}), ok({"idempotency_outcome": "Accepted"}), ok({"related": []})]

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        plain = tm.memory.recall(namespace="ns", query="tea")
        tm.memory.write(namespace="ns", text="green tea", recall={"query": "tea", "explain": True})

    assert plain.related == [] and "explain" not in server.bodies()[0]
    assert server.bodies()[2] == {"contract_version": "v1", "operation": "memory.recall", "namespace": "ns", "cue": {"text": "tea"}, "explain": True}


@pytest.mark.parametrize("explain", ["yes", 1])
def test_when_explain_is_not_a_bool_then_the_recall_is_refused_without_a_request(server: Script, explain: Any) -> None:
    with TextMemory(server.base_url, api_key=API_KEY) as tm, pytest.raises(TextMemoryError) as caught:
        tm.memory.recall(namespace="ns", query="tea", explain=explain)
    assert caught.value.details == {"code": "validation_failed", "fields": [{"path": "explain", "message": "explain must be true or false"}]}
    assert server.seen == []


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_when_a_delete_answers_202_then_the_deletion_is_polled_until_completed(kind: str, server: Script) -> None:
    def receipt(status: str, deleted: int) -> Any:
        return {"namespace": "ns", "deleted": deleted, "deletion": {"id": "del 1", "status": status, "progress": {"records_deleted": deleted, "records_total": 2, "batches": deleted}}}

    server.answers = [
        ok(receipt("in_progress", 0), 202, {"location": "/api/v1/memory/deletions/del%201", "retry-after": "1"}),
        ok(receipt("in_progress", 1)),
        ok(receipt("completed", 2)),
    ]
    progress: List[int] = []

    def on_progress(r: Result) -> None:
        progress.append(r.deletion.progress.records_deleted)

    if kind == "sync":
        with TextMemory(server.base_url, api_key=API_KEY) as tm:
            final = tm.memory.delete(namespace="ns", on_progress=on_progress, poll_interval=0.01)
    else:

        async def main() -> DeleteReceipt:
            async with AsyncTextMemory(server.base_url, api_key=API_KEY) as atm:
                return await atm.memory.delete(namespace="ns", on_progress=on_progress, poll_interval=0.01)

        final = asyncio.run(main())

    assert final.deletion.status == "completed" and progress == [0, 1, 2]
    assert [(s.method, s.path) for s in server.seen] == [
        ("DELETE", "/api/v1/memory?namespace=ns"),
        ("GET", "/api/v1/memory/deletions/del%201"),
        ("GET", "/api/v1/memory/deletions/del%201"),
    ]


@pytest.mark.parametrize(
    "namespace,text,path,message",
    [
        ("", "x", "namespace", "namespace must not be empty"),
        ("n" * 129, "x", "namespace", "namespace must be at most 128 characters"),
        ("-bad", "x", "namespace", "namespace must start with a letter or digit and use only letters, digits and . _ : / -"),
        ("ns", "  ", "event.content.text", "event.content.text must not be empty"),
        ("ns", "x" * 32_769, "event.content.text", "event.content.text must be at most 32768 characters"),
    ],
)
def test_when_a_write_is_invalid_then_it_is_refused_without_a_request(server: Script, namespace: str, text: str, path: str, message: str) -> None:
    with TextMemory(server.base_url, api_key=API_KEY) as tm, pytest.raises(TextMemoryError) as caught:
        tm.memory.write(namespace=namespace, text=text)

    error = caught.value
    assert (error.status, error.code, error.retryable) == (0, "validation_failed", False)
    assert error.details == {"code": "validation_failed", "fields": [{"path": path, "message": message}]}
    assert server.seen == []


@pytest.mark.parametrize("top_k", [0, 101, 2.5])
def test_when_top_k_is_out_of_range_then_the_recall_is_refused_without_a_request(server: Script, top_k: Any) -> None:
    with TextMemory(server.base_url, api_key=API_KEY) as tm, pytest.raises(TextMemoryError) as caught:
        tm.memory.recall(namespace="ns", query="tea", top_k=top_k)
    assert caught.value.details is not None and caught.value.details["fields"][0]["path"] == "top_k"
    assert server.seen == []


def test_retry_after_reads_seconds_and_http_dates_capped() -> None:
    policy = RetryPolicy(retry_after_max=30)
    assert retry_after_seconds("2", policy) == 2
    assert retry_after_seconds("120", policy) == 30
    assert retry_after_seconds("Thu, 26 Nov 2026 10:00:10 GMT", policy, now=datetime(2026, 11, 26, 10, tzinfo=timezone.utc).timestamp()) == 10
    assert retry_after_seconds("soon", policy) is None and retry_after_seconds(None, policy) is None


def test_backoff_is_full_jitter_under_a_doubling_ceiling() -> None:
    policy = RetryPolicy()
    assert [backoff_seconds(n, policy, random=lambda: 1.0) for n in range(6)] == [0.5, 1, 2, 4, 8, 8]
    assert backoff_seconds(3, policy, random=lambda: 0.0) == 0


@pytest.mark.parametrize("value", ["é", "a\x01b", "tab\x7f"])
def test_when_a_header_value_cannot_be_sent_then_the_call_is_refused_before_any_request(server: Script, value: str) -> None:
    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        with pytest.raises(TextMemoryError) as caught:
            tm.infrastructure.status(request_id=value)
        with pytest.raises(TextMemoryError):
            tm.templates.list(extra_headers={"x-trace": value})

    assert (caught.value.code, caught.value.retryable, caught.value.attempts) == ("validation_failed", False, 0)
    assert value not in str(caught.value)
    assert server.seen == []


def test_when_a_header_value_has_surrounding_whitespace_then_it_is_sent_trimmed(server: Script) -> None:
    server.answers = [ok({"data": []})]
    with TextMemory(server.base_url, api_key=API_KEY, headers={"x-team": " blue\t"}) as tm:
        tm.templates.list(request_id="req-1 \n")

    assert (server.seen[0].headers["x-request-id"], server.seen[0].headers["x-team"]) == ("req-1", "blue")
