"""The families beyond memory, against the scripted server: event paging (sync and async iterators),
export streaming to a path and to a file object, upload progress and its multipart body, import
waiting, the control session, and which calls are repeated after a lost answer."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path
from typing import Any, List
from urllib.parse import parse_qs, urlsplit

import pytest

from conftest import API_KEY, Handler, Script, drop_connection, envelope, ok
from text_memory import AsyncTextMemory, Result, TextMemory, TextMemoryError, UploadProgress


def query_of(path: str) -> dict[str, List[str]]:
    return parse_qs(urlsplit(path).query)


def page(rows: List[int], cursor: Any) -> Any:
    return ok({"data": [{"n": n} for n in rows], "paging": {"next_cursor": cursor}})


def test_when_events_are_iterated_then_pages_follow_next_cursor_with_the_same_filters(server: Script) -> None:
    server.answers = [page([1, 2], "c1"), page([3], "c2"), page([], None)]

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        events = tm.infrastructure.events(outcome="failed", limit=2, offset=5)
        assert server.seen == []  # nothing is fetched before the loop asks
        assert [e.n for e in events] == [1, 2, 3]

    queries = [query_of(s.path) for s in server.seen]
    assert [urlsplit(s.path).path for s in server.seen] == ["/api/v1/infrastructure/events"] * 3
    assert queries[0] == {"outcome": ["failed"], "limit": ["2"], "offset": ["5"]}
    assert queries[1] == {"outcome": ["failed"], "limit": ["2"], "cursor": ["c1"]}
    assert queries[2] == {"outcome": ["failed"], "limit": ["2"], "cursor": ["c2"]}


def test_when_events_are_iterated_asynchronously_then_the_same_pages_are_fetched(server: Script) -> None:
    server.answers = [page([1], "c1"), envelope(503, "unavailable", True, headers={"retry-after": "0"}), page([2], None)]

    async def main() -> List[int]:
        async with AsyncTextMemory(server.base_url, api_key=API_KEY) as tm:
            return [e.n async for e in tm.infrastructure.events(from_="2026-11-01T00:00:00Z")]

    assert asyncio.run(main()) == [1, 2]
    assert query_of(server.seen[0].path) == {"from": ["2026-11-01T00:00:00Z"], "offset": ["0"]}
    # The page that answered 503 is asked again with the same cursor.
    assert query_of(server.seen[1].path) == query_of(server.seen[2].path) == {"from": ["2026-11-01T00:00:00Z"], "cursor": ["c1"]}


EXPORT = json.dumps({"records": [{"text": "x" * 1000, "n": n} for n in range(300)]}).encode()


def stream_export(handler: Handler, _body: bytes) -> None:
    """The export as the gateway sends it: chunked, in pieces."""
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("transfer-encoding", "chunked")
    handler.send_header("x-request-id", "req-export")
    handler.end_headers()
    for i in range(0, len(EXPORT), 50_000):
        piece = EXPORT[i : i + 50_000]
        handler.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
    handler.wfile.write(b"0\r\n\r\n")


def broken_export(handler: Handler, _body: bytes) -> None:
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(EXPORT)))
    handler.end_headers()
    handler.wfile.write(EXPORT[:1000])
    handler.close_connection = True


def test_when_the_export_is_streamed_to_a_path_then_the_file_holds_the_answer_byte_for_byte(server: Script, tmp_path: Path) -> None:
    server.answers = [envelope(503, "unavailable", True, headers={"retry-after": "0"}), stream_export]
    target = tmp_path / "export.json"

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        r = tm.infrastructure.export_to(target, namespace=["a", "b"])

    assert target.read_bytes() == EXPORT and r.bytes == len(EXPORT) and r.request_id == "req-export"
    assert len(server.seen) == 2 and query_of(server.seen[1].path) == {"namespace": ["a", "b"]}


def test_when_the_export_is_streamed_to_a_file_object_asynchronously_then_it_holds_the_answer(server: Script) -> None:
    server.answers = [stream_export]
    sink = io.BytesIO()

    async def main() -> Result:
        async with AsyncTextMemory(server.base_url, api_key=API_KEY) as tm:
            return await tm.infrastructure.export_to(sink, namespace="a")

    r = asyncio.run(main())
    assert sink.getvalue() == EXPORT and r.bytes == len(EXPORT) and not sink.closed


def test_when_the_export_breaks_off_then_it_raises_once_without_a_retry(server: Script, tmp_path: Path) -> None:
    server.answers = [broken_export, stream_export]

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        with pytest.raises(TextMemoryError) as caught:
            tm.infrastructure.export_to(tmp_path / "export.json")

    assert "broke off" in str(caught.value) and caught.value.retryable is False
    assert len(server.seen) == 1

    async def main() -> None:
        async with AsyncTextMemory(server.base_url, api_key=API_KEY) as tm:
            await tm.infrastructure.export_to(io.BytesIO())

    server.answers = [broken_export]
    with pytest.raises(TextMemoryError, match="broke off"):
        asyncio.run(main())
    assert len(server.seen) == 2


FILE = b"name,city\n" + b"".join(f"person{n},town{n}\n".encode() for n in range(20_000))


def multipart_parts(seen_body: bytes, content_type: str) -> dict[str, bytes]:
    boundary = content_type.split("boundary=")[1].encode()
    parts = {}
    for chunk in seen_body.split(b"--" + boundary)[1:-1]:
        head, _, value = chunk[2:-2].partition(b"\r\n\r\n")
        name = head.split(b'name="')[1].split(b'"')[0].decode()
        parts[name] = value
    return parts


def test_when_a_file_is_uploaded_then_progress_counts_its_bytes_and_the_body_is_multipart(server: Script, tmp_path: Path) -> None:
    path = tmp_path / "people.csv"
    path.write_bytes(FILE)
    server.answers = [ok({"import_id": "imp_1", "state": "estimated"}, 201)]
    progress: List[UploadProgress] = []

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        job = tm.imports.upload(file=path, format="{name} lives in {city}", namespace="people", on_progress=progress.append)

    assert job.state == "estimated"
    seen = server.seen[0]
    assert seen.method == "POST" and seen.path == "/v1/imports"
    assert int(seen.headers["content-length"]) == len(seen.body)
    assert 'filename="people.csv"' in seen.body.decode()
    parts = multipart_parts(seen.body, seen.headers["content-type"])
    assert parts == {"format": b"{name} lives in {city}", "namespace": b"people", "file": FILE}
    sent = [p.sent_bytes for p in progress]
    assert sent[0] == 0 and sent[-1] == len(FILE) and sent == sorted(sent) and len(sent) > 3
    assert {p.total_bytes for p in progress} == {len(FILE)}


def test_when_an_upload_is_rate_limited_then_the_whole_file_is_sent_again_but_a_lost_answer_is_not(server: Script) -> None:
    server.answers = [envelope(429, "rate_limited", True, headers={"retry-after": "0"}), ok({"import_id": "imp_2"}, 201)]
    source = io.BytesIO(b"skip" + FILE)
    source.seek(4)  # a file object uploads from where it stands

    async def main(**kw: Any) -> Result:
        async with AsyncTextMemory(server.base_url, api_key=API_KEY) as tm:
            return await tm.imports.upload(**kw)

    assert asyncio.run(main(file=source, filename="people.csv")).import_id == "imp_2"
    assert [multipart_parts(s.body, s.headers["content-type"])["file"] for s in server.seen] == [FILE, FILE]

    server.answers = [drop_connection, ok({"import_id": "imp_3"}, 201)]
    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        with pytest.raises(TextMemoryError) as caught:
            tm.imports.upload(file=b"a,b\n1,2\n", filename="x.csv")
    assert caught.value.code == "connection_failed" and caught.value.attempts == 1 and len(server.seen) == 3


def test_when_an_import_is_awaited_then_each_poll_is_reported_until_it_completes(server: Script) -> None:
    server.answers = [ok({"state": "processing", "processed": 1}), ok({"state": "processing", "processed": 2}), ok({"state": "completed", "processed": 3})]
    seen: List[int] = []

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        job = tm.imports.wait("imp_1", poll_interval=0.01, on_progress=lambda j: seen.append(j.processed))

    assert job.state == "completed" and seen == [1, 2, 3]
    assert [s.path for s in server.seen] == ["/v1/imports/imp_1"] * 3

    server.answers = [ok({"state": "processing", "processed": 1}), ok({"state": "failed", "processed": 1})]

    async def main() -> Result:
        async with AsyncTextMemory(server.base_url, api_key=API_KEY) as tm:
            return await tm.imports.wait("imp_1", poll_interval=0.01)

    assert asyncio.run(main()).state == "failed"


def test_when_an_owner_logs_in_then_control_calls_carry_the_session_and_logout_forgets_it(server: Script) -> None:
    server.answers = [ok({"token": "tms_session_0123456789"}, 201), ok({"tenant": {"id": "t1"}}), ok(status=200), ok({})]

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        tm.control.sessions.login(email="o@example.test", password="pw-secret")
        assert tm.control.account.get().tenant.id == "t1"
        tm.control.sessions.logout()
        tm.control.account.get()

    assert "authorization" not in server.seen[0].headers
    assert json.loads(server.seen[0].body) == {"email": "o@example.test", "password": "pw-secret"}
    assert server.seen[1].headers["authorization"] == "Bearer tms_session_0123456789"
    assert (server.seen[2].method, server.seen[2].path) == ("DELETE", "/api/v1/control/sessions/current")
    assert server.seen[3].headers["authorization"] == f"Bearer {API_KEY}"  # the key, once the session is gone


@pytest.mark.parametrize(
    "call, attempts",
    [
        pytest.param(lambda tm: tm.templates.create(template_name="t", fields=[{"name": "a"}]), 1, id="templates.create"),
        pytest.param(lambda tm: tm.templates.update("t", fields=[{"name": "a"}]), 1, id="templates.update"),
        pytest.param(lambda tm: tm.templates.update("t", fields=[{"name": "a", "type": "string"}], if_match=2), 2, id="templates.update+if_match"),
        pytest.param(lambda tm: tm.templates.list(limit=5), 2, id="templates.list"),
        pytest.param(lambda tm: tm.marketplace.search(keyword="crm"), 2, id="marketplace.search"),
        pytest.param(lambda tm: tm.memories.create(data={"a": 1}, template_name="t"), 2, id="memories.create"),
        pytest.param(lambda tm: tm.memories.forget("m1"), 2, id="memories.forget"),
        pytest.param(lambda tm: tm.imports.from_dataset(dataset="o/d", split="train"), 1, id="imports.from_dataset"),
        pytest.param(lambda tm: tm.imports.start("imp_1"), 2, id="imports.start"),
        pytest.param(lambda tm: tm.control.api_keys.create(name="k"), 1, id="control.api_keys.create"),
        pytest.param(lambda tm: tm.control.api_keys.rotate("k1"), 1, id="control.api_keys.rotate"),
        pytest.param(lambda tm: tm.control.api_keys.revoke("k1"), 2, id="control.api_keys.revoke"),
        pytest.param(lambda tm: tm.control.users.update("u1", role="admin"), 2, id="control.users.update"),
        pytest.param(lambda tm: tm.control.billing.close_invoice_period(period="2026-10"), 2, id="control.billing.close_invoice_period"),
        pytest.param(lambda tm: tm.control.webhooks.create(url="https://h.example/x", events=["memory.retained"]), 1, id="control.webhooks.create"),
        pytest.param(lambda tm: tm.control.webhooks.rotate_secret("w1"), 1, id="control.webhooks.rotate_secret"),
        pytest.param(lambda tm: tm.control.webhooks.delete("w1"), 1, id="control.webhooks.delete"),
        pytest.param(lambda tm: tm.control.webhooks.update("w1", enabled=True), 2, id="control.webhooks.update"),
        pytest.param(lambda tm: tm.control.webhooks.redeliver("w1", "d1"), 2, id="control.webhooks.redeliver"),
        pytest.param(lambda tm: tm.control.webhooks.deliveries_page("w1"), 2, id="control.webhooks.deliveries_page"),
    ],
)
def test_when_the_answer_is_lost_then_only_calls_safe_to_repeat_are_sent_again(server: Script, call: Any, attempts: int) -> None:
    server.answers = [drop_connection, ok({"ok": True})]

    with TextMemory(server.base_url, api_key=API_KEY, session_token="tms_0123456789abcdef", backoff_max=0.01) as tm:
        if attempts == 1:
            with pytest.raises(TextMemoryError) as caught:
                call(tm)
            assert caught.value.code == "connection_failed"
        else:
            assert call(tm).ok is True

    assert len(server.seen) == attempts
    assert server.seen[0].body == server.seen[-1].body and server.seen[0].headers.get("idempotency-key") == server.seen[-1].headers.get("idempotency-key")


def deliveries(ids: List[str], cursor: Any) -> Any:
    return ok({"data": [{"id": i, "attempts": []} for i in ids], "next_cursor": cursor})


def test_when_webhook_deliveries_are_iterated_then_pages_follow_next_cursor_sync_and_async(server: Script) -> None:
    server.answers = [deliveries(["d3", "d2"], "c1"), deliveries(["d1"], None), deliveries(["d3"], None)]

    with TextMemory(server.base_url, session_token="tms_0123456789abcdef") as tm:
        listed = tm.control.webhooks.deliveries("end point", limit=2)
        assert server.seen == []  # nothing is fetched before the loop asks
        assert [d.id for d in listed] == ["d3", "d2", "d1"]

    async def main() -> List[str]:
        async with AsyncTextMemory(server.base_url, session_token="tms_0123456789abcdef") as tm:
            return [d.id async for d in tm.control.webhooks.deliveries("w1")]

    assert asyncio.run(main()) == ["d3"]
    assert [urlsplit(s.path).path for s in server.seen] == [
        "/api/v1/control/webhook-endpoints/end%20point/deliveries",
        "/api/v1/control/webhook-endpoints/end%20point/deliveries",
        "/api/v1/control/webhook-endpoints/w1/deliveries",
    ]
    assert [query_of(s.path) for s in server.seen] == [{"limit": ["2"]}, {"limit": ["2"], "cursor": ["c1"]}, {}]
    assert all(s.headers["authorization"] == "Bearer tms_0123456789abcdef" for s in server.seen)


def test_when_webhook_endpoints_are_managed_then_each_call_sends_its_route_and_only_the_fields_given(server: Script) -> None:
    server.answers = [ok({"id": "w1", "secret": "whsec_x"}, 201), ok({"id": "w1"}), ok({"id": "w1", "deleted": True})]

    with TextMemory(server.base_url, session_token="tms_0123456789abcdef") as tm:
        created = tm.control.webhooks.create(url="https://h.example/x", events=("memory.retained",), include_text=False)
        tm.control.webhooks.update("w1", enabled=False)
        tm.control.webhooks.delete("w1")

    assert created.secret == "whsec_x"
    assert [(s.method, s.path) for s in server.seen] == [
        ("POST", "/api/v1/control/webhook-endpoints"),
        ("PATCH", "/api/v1/control/webhook-endpoints/w1"),
        ("DELETE", "/api/v1/control/webhook-endpoints/w1"),
    ]
    assert json.loads(server.seen[0].body) == {"url": "https://h.example/x", "events": ["memory.retained"], "include_text": False}
    assert json.loads(server.seen[1].body) == {"enabled": False}


def test_when_a_template_is_updated_with_a_revision_then_it_is_sent_as_if_match(server: Script) -> None:
    server.answers = [ok({"revision": 3}), ok({"revision": 4})]

    async def main() -> None:
        async with AsyncTextMemory(server.base_url, api_key=API_KEY) as tm:
            await tm.templates.update("my tpl", fields=[{"name": "a", "type": "string"}], if_match=2, description="d")
            await tm.templates.update("my tpl", fields=[{"name": "a", "type": "string"}], if_match='"3"')

    asyncio.run(main())
    assert [s.headers["if-match"] for s in server.seen] == ['"2"', '"3"']
    assert server.seen[0].path == "/v1/templates/my%20tpl" and server.seen[0].method == "PUT"
    assert json.loads(server.seen[0].body) == {"fields": [{"name": "a", "type": "string"}], "description": "d"}


REPORT = {"outcome": "failed", "steps": [{"step": "write", "ok": False}], "error": "write failed", "retryable": True}


def test_when_the_smoke_test_fails_then_its_report_is_returned_and_not_run_again(server: Script) -> None:
    server.answers = [envelope(503, "unavailable", True, headers={"retry-after": "0"}), ok(REPORT, 503)]

    with TextMemory(server.base_url, api_key=API_KEY, operator_token="tmo_operator_0123456789") as tm:
        report = tm.infrastructure.smoke_test()

    assert report.outcome == "failed" and report.steps[0].step == "write" and len(server.seen) == 2
    assert server.seen[0].headers["x-operator-token"] == "tmo_operator_0123456789"
    assert (server.seen[0].method, server.seen[0].path) == ("POST", "/api/v1/infrastructure/smoke-test")

    server.answers = [drop_connection, ok({"outcome": "passed", "steps": []})]

    async def main() -> None:
        async with AsyncTextMemory(server.base_url, api_key=API_KEY) as tm:
            await tm.infrastructure.smoke_test(operator_token="tmo_other_0123456789")

    with pytest.raises(TextMemoryError) as caught:
        asyncio.run(main())
    assert caught.value.code == "connection_failed" and len(server.seen) == 3  # metered: not repeated
    assert server.seen[2].headers["x-operator-token"] == "tmo_other_0123456789"

    with TextMemory(server.base_url, api_key=API_KEY) as tm:
        with pytest.raises(TextMemoryError, match="operator_token is required"):
            tm.infrastructure.smoke_test()
