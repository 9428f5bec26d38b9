"""Against a real stack: tests/e2e/clients/python-sdk.test.ts starts one and sets TM_TEST_STACK_URL and
TM_TEST_API_KEY (a fresh tenant's key), TM_TEST_OWNER_EMAIL and TM_TEST_OWNER_PASSWORD (its owner, for
the control plane's session) and TM_TEST_DATASET (a dataset on the stub hub the stack reads); skipped
without them."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import http.client
import itertools
import json
import os
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional
from urllib.parse import urlsplit

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import]

from text_memory import WRITE_BATCH_MAX_ITEMS, AsyncTextMemory, Result, TextMemory, TextMemoryError, UploadProgress
from text_memory._answers import answer_model
from text_memory.models import ErrorEnvelope, TemplateField, WriteBatchItem, WriteResponse

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
        # The same call run again with no event time (a re-run of the script): the service chose the
        # time, so it replays; another text under the key is a conflict that names the field, not the text.
        rerun_key = f"py-rerun-{uuid.uuid4()}"
        once = tm.memory.write(namespace=namespace, text="Bo parks in bay 7", idempotency_key=rerun_key)
        rerun = tm.memory.write(namespace=namespace, text="Bo parks in bay 7", idempotency_key=rerun_key)
        assert rerun.idempotency_outcome == "Replayed" and rerun.memory_id == once.memory_id
        with pytest.raises(TextMemoryError) as changed:
            tm.memory.write(namespace=namespace, text="Bo parks in bay 9", idempotency_key=rerun_key)
        assert changed.value.status == 409 and "event.content.text" in str(changed.value)
        assert "bay 9" not in str(changed.value)

        r = tm.memory.recall(namespace=namespace, query="what does Alice drink? tea", top_k=5)
        assert r.retrieval_outcome == "matched" and 0 < r.related[0].score <= 1
        assert r.context is not None and "green tea" in r.context

        with pytest.raises(TextMemoryError) as caught:
            tm.memory.write(namespace=namespace, text="something else", idempotency_key=key)
        assert caught.value.status == 409 and caught.value.attempts == 1
        assert caught.value.idempotency_outcome == "Conflict" and str(KEY) not in repr(caught.value)

        done = tm.memory.delete(namespace=namespace)
        assert done.deletion.status == "completed" and done.namespace == namespace
        assert tm.memory.recall(namespace=namespace, query="tea").state == "no_data"


def test_recall_with_explain_against_the_stack() -> None:
    namespace = f"py-{uuid.uuid4().hex[:12]}"
    with TextMemory(URL, api_key=KEY) as tm:
        tm.memory.write(namespace=namespace, text="Bob drinks black coffee")
        tm.memory.write(namespace=namespace, text="Alice drinks green tea")

        explained = tm.memory.recall(namespace=namespace, query="what does Alice drink?", explain=True)
        plain = tm.memory.recall(namespace=namespace, query="what does Alice drink?")

        assert explained.ranking.model_version == "deterministic-lexical-v2"
        assert [r.text for r in explained.related] == ["Alice drinks green tea", "Bob drinks black coffee"]
        for r in explained.related:
            assert r.explanation is not None and [t.word for t in r.explanation.terms] == ["alice", "drink"]
            matched = sum(t.weight for t in r.explanation.terms if t.matched)
            assert abs(matched - r.score) <= 0.0002
        first = explained.related[0].explanation
        assert first is not None and [t.word for t in first.tie_break_terms] == ["what", "does"]
        assert [r.explanation for r in plain.related] == [None, None]
        tm.memory.delete(namespace=namespace)


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


# The gateway's 401 sentences (tests/e2e/support/credential-refusals.ts): the client relays the one the
# service chose, so a key that was sent and refused is never reported as a missing one.
NO_CREDENTIAL = (
    "Authentication required: send an API key (Authorization: Bearer <API_KEY> or X-API-Key) or a session token"
)
KEY_NOT_ACCEPTED = (
    "The API key was not accepted: it is unknown, revoked or mistyped."
    " Authentication requires a valid API key or session token"
)
REFUSED_KEY = "tmk_AAAAAAAA_" + "A" * 40


def test_missing_and_refused_keys_are_told_apart_sync_and_async(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TM_API_KEY", raising=False)  # "no key" must mean none, not the environment's

    def refusal(call: Any) -> TextMemoryError:
        with pytest.raises(TextMemoryError) as caught:
            call()
        return caught.value

    with TextMemory(URL, api_key=REFUSED_KEY) as refused, TextMemory(URL) as keyless:
        sync = [refusal(lambda: tm.memory.recall(namespace="ns", query="x")) for tm in (refused, keyless)]

    async def main() -> List[TextMemoryError]:
        errors: List[TextMemoryError] = []
        for key in (REFUSED_KEY, None):
            async with AsyncTextMemory(URL, api_key=key) as tm:
                with pytest.raises(TextMemoryError) as caught:
                    await tm.memory.recall(namespace="ns", query="x")
                errors.append(caught.value)
        return errors

    for errors in (sync, asyncio.run(main())):
        assert [(e.status, e.code, str(e)) for e in errors] == [
            (401, "authentication_required", KEY_NOT_ACCEPTED),
            (401, "authentication_required", NO_CREDENTIAL),
        ]
        assert REFUSED_KEY not in repr(errors[0])


# The families beyond memory. Each answer is checked against the served OpenAPI document: valid against
# its route's schema for that status (JSON Schema, every field's type, format and range), and the
# generated model of that route.
OWNER_EMAIL = os.environ.get("TM_TEST_OWNER_EMAIL")
OWNER_PASSWORD = os.environ.get("TM_TEST_OWNER_PASSWORD")
DATASET = os.environ.get("TM_TEST_DATASET")
# The third row renders past the 32,768-character limit: not retained, so `failures` has a row.
CSV = b"name,city\nAda,London\nBo,Oslo\n" + b"x" * 33_000 + b",Rome\n"


class Shapes:
    """The served OpenAPI document's answer schemas, by method, path template and status."""

    def __init__(self, doc: Any) -> None:
        self.doc = doc

    def _resolve(self, schema: Any) -> Any:
        while isinstance(schema, dict) and "$ref" in schema:
            schema = self.doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
        return schema

    def _missing(self, value: Any, schema: Any) -> List[str]:
        schema = self._resolve(schema)
        if not isinstance(schema, dict) or not isinstance(value, dict):
            return []
        for combiner in ("oneOf", "anyOf"):
            if combiner in schema:
                options = [self._missing(value, s) for s in schema[combiner]]
                return [] if any(not m for m in options) else min(options, key=len)
        missing = [name for name in schema.get("required", []) if name not in value]
        for part in schema.get("allOf", []):
            missing += self._missing(value, part)
        return missing

    def check(self, result: Any, method: str, path: str, status: str = "200") -> Any:
        raw = result.raw if isinstance(result, Result) else result
        responses = self.doc["paths"][path][method]["responses"]
        schema = responses[status]["content"]["application/json"]["schema"]
        missing = self._missing(raw, schema)
        assert not missing, f"{method.upper()} {path} {status}: the answer lacks {missing}: {raw!r}"
        invalid = [e.message for e in Draft202012Validator({**schema, "components": self.doc["components"]}).iter_errors(raw)]
        assert not invalid, f"{method.upper()} {path} {status}: the answer is invalid: {invalid}"
        model = answer_model(method.upper(), path, int(status))
        # (A parsed export file is a plain dict: only the client's answers are models.)
        assert not isinstance(result, Result) or isinstance(result, model), f"{method.upper()} {path} {status}: {type(result).__name__}, not {model.__name__}"
        return result


needs_owner = pytest.mark.skipif(
    not (URL and KEY and OWNER_EMAIL and OWNER_PASSWORD and DATASET),
    reason="no owner or dataset: set TM_TEST_OWNER_EMAIL, TM_TEST_OWNER_PASSWORD and TM_TEST_DATASET",
)


def template_fields() -> List[TemplateField]:
    return [{"name": "name", "type": "string", "required": True}, {"name": "city", "type": "string"}]


@needs_owner
def test_sync_client_every_family_against_the_stack(tmp_path: Path) -> None:
    namespace = f"py-{uuid.uuid4().hex[:12]}"
    tname = f"py_person_{uuid.uuid4().hex[:8]}"
    with TextMemory(URL, api_key=KEY) as tm:
        shapes = Shapes(tm.infrastructure.openapi().raw)
        shapes.check(tm.infrastructure.release(), "get", "/api/v1/infrastructure/release")
        for text in ("Ada likes tea", "Bo likes coffee", "Cy likes water"):
            tm.memory.write(namespace=namespace, text=text)

        # infrastructure: events over pages of 2 (the history is written asynchronously: wait for it)
        deadline = time.monotonic() + 20
        while True:
            events = list(itertools.islice(tm.infrastructure.events(limit=2, operation="memory.write"), 10))
            if len(events) >= 3 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert len(events) >= 3 and all(e.operation == "memory.write" for e in events)
        page = shapes.check(tm.infrastructure.events_page(limit=2), "get", "/api/v1/infrastructure/events")
        assert len(page.data) <= 2
        shapes.check(tm.infrastructure.usage(window_minutes=60), "get", "/api/v1/infrastructure/usage")
        shapes.check(tm.infrastructure.metrics(window_minutes=60), "get", "/api/v1/infrastructure/metrics")
        shapes.check(tm.infrastructure.anomalies(window_minutes=60), "get", "/api/v1/infrastructure/anomalies")
        listing = shapes.check(tm.infrastructure.namespaces(limit=50), "get", "/api/v1/infrastructure/namespaces")
        assert namespace in [n.namespace for n in listing.data]
        target = tmp_path / "export.json"
        written = tm.infrastructure.export_to(target, namespace=namespace)
        assert written.bytes == target.stat().st_size > 0
        exported = json.loads(target.read_bytes())
        shapes.check(exported, "get", "/api/v1/infrastructure/export")
        assert "Ada likes tea" in target.read_text()
        shapes.check(tm.infrastructure.export(namespace=namespace), "get", "/api/v1/infrastructure/export")

        # templates
        made = shapes.check(
            tm.templates.create(template_name=tname, fields=template_fields(), format="{name} lives in {city|somewhere}"),
            "post",
            "/v1/templates",
            "201",
        )
        got = shapes.check(tm.templates.get(tname), "get", "/v1/templates/{template_name_or_id}")
        assert got.revision == made.revision
        updated = tm.templates.update(tname, fields=template_fields(), description="people", if_match=got.revision)
        shapes.check(updated, "put", "/v1/templates/{template_name_or_id}")
        with pytest.raises(TextMemoryError) as stale:
            tm.templates.update(tname, fields=template_fields(), if_match=got.revision)
        assert stale.value.status == 412 and stale.value.attempts == 1
        listed = shapes.check(tm.templates.list(limit=100), "get", "/v1/templates")
        assert tname in [t.template_name for t in listed.data]

        # marketplace
        found = shapes.check(tm.marketplace.search(), "get", "/v1/marketplace/templates")
        entry = found.data[0].marketplace_template_id
        shapes.check(tm.marketplace.get(entry), "get", "/v1/marketplace/templates/{marketplace_template_id}")

        # memories (from the template; the same key again is a replay)
        key = f"py-mem-{uuid.uuid4()}"
        mem = tm.memories.create(data={"name": "Ada", "city": "London"}, template_name=tname, namespace=namespace, idempotency_key=key)
        shapes.check(mem, "post", "/v1/memories", "201")
        again = tm.memories.create(data={"name": "Ada", "city": "London"}, template_name=tname, namespace=namespace, idempotency_key=key)
        assert again.memory_id == mem.memory_id
        shapes.check(tm.memories.get(mem.memory_id), "get", "/v1/memories/{memory_id}")
        # forget it: gone for good, the same create replays as not retained, the same forget replays
        forgotten = shapes.check(tm.memories.forget(mem.memory_id), "delete", "/v1/memories/{memory_id}")
        assert forgotten.memory_id == mem.memory_id and forgotten.idempotency_outcome == "Accepted"
        retried = tm.memories.create(data={"name": "Ada", "city": "London"}, template_name=tname, namespace=namespace, idempotency_key=key)
        assert retried.state == "not_retained" and retried.memory_id is None
        assert tm.memories.forget(mem.memory_id).idempotency_outcome == "Replayed"

        # imports: upload with progress, start, wait with progress, failures; then a hub dataset
        progress: List[UploadProgress] = []
        job = tm.imports.upload(file=CSV, filename="people.csv", format="{name} lives in {city}", namespace=namespace, on_progress=progress.append)
        shapes.check(job, "post", "/v1/imports", "201")
        assert job.state == "estimated" and progress[-1].sent_bytes == progress[-1].total_bytes == len(CSV)
        shapes.check(tm.imports.start(job.id), "post", "/v1/imports/{import_id}/start", "202")
        polls: List[str] = []
        done = tm.imports.wait(job.id, poll_interval=0.2, max_wait=60, on_progress=lambda j: polls.append(j.state))
        shapes.check(done, "get", "/v1/imports/{import_id}")
        assert done.state == "completed" and polls[-1] == "completed" and done.retained == 2 and done.failed == 1
        failures = shapes.check(tm.imports.failures(job.id), "get", "/v1/imports/{import_id}/failures")
        assert len(failures.failures) == 1 and failures.failures[0].row == 4
        hub_job = tm.imports.from_dataset(dataset=str(DATASET), split="train", format="{name} lives in {city}", namespace=namespace)
        shapes.check(hub_job, "post", "/v1/imports", "201")
        assert hub_job.state == "estimated" and hub_job.id != job.id
        shapes.check(tm.imports.get(hub_job.id), "get", "/v1/imports/{import_id}")

        # control, with the owner's session
        session = tm.control.sessions.login(email=str(OWNER_EMAIL), password=str(OWNER_PASSWORD))
        shapes.check(session, "post", "/api/v1/control/sessions", "201")
        shapes.check(tm.control.account.get(), "get", "/api/v1/control/account")
        shapes.check(tm.control.users.list(), "get", "/api/v1/control/users")
        keys = shapes.check(tm.control.api_keys.list(), "get", "/api/v1/control/api-keys")
        assert str(KEY) not in json.dumps(keys.raw)
        new_key = shapes.check(tm.control.api_keys.create(name="py-sdk"), "post", "/api/v1/control/api-keys", "201")
        shapes.check(tm.control.api_keys.revoke(new_key.id), "post", "/api/v1/control/api-keys/{id}/revoke")
        shapes.check(tm.control.storage_connections.list(), "get", "/api/v1/control/storage-connections")
        shapes.check(tm.control.consent.get(), "get", "/api/v1/control/consent")
        shapes.check(tm.control.consent.events(), "get", "/api/v1/control/consent/events")
        shapes.check(tm.control.operator_tokens.list(), "get", "/api/v1/control/operator-tokens")
        operator = tm.control.operator_tokens.create(name="py-sdk", ttl_hours=1)
        shapes.check(operator, "post", "/api/v1/control/operator-tokens", "201")
        smoke = tm.infrastructure.smoke_test(operator_token=operator.token)
        shapes.check(smoke, "post", "/api/v1/infrastructure/smoke-test")
        assert smoke.outcome == "passed" and str(operator.token) not in repr(keys)
        shapes.check(tm.control.operator_tokens.revoke(operator.id), "post", "/api/v1/control/operator-tokens/{id}/revoke")
        shapes.check(tm.control.usage(window_minutes=60), "get", "/api/v1/control/usage")
        shapes.check(tm.control.billing.charges(limit=10), "get", "/api/v1/control/billing/charges")
        shapes.check(tm.control.billing.invoices(), "get", "/api/v1/control/billing/invoices")
        tm.control.sessions.logout()
        with pytest.raises(TextMemoryError) as gone:
            tm.control.account.get()  # the API key now, which the control plane does not take
        assert gone.value.status in (401, 403)

        tm.memory.delete(namespace=namespace)


@needs_owner
def test_async_client_every_family_against_the_stack(tmp_path: Path) -> None:
    namespace = f"py-{uuid.uuid4().hex[:12]}"
    tname = f"py_async_{uuid.uuid4().hex[:8]}"

    async def main() -> None:
        async with AsyncTextMemory(URL, api_key=KEY) as tm:
            shapes = Shapes((await tm.infrastructure.openapi()).raw)
            await tm.memory.write(namespace=namespace, text="Dee likes juice")
            deadline = time.monotonic() + 20
            while True:
                events = [e async for e in tm.infrastructure.events(limit=1, operation="memory.write")]
                if events or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)
            assert events and events[0].operation == "memory.write"
            shapes.check(await tm.infrastructure.usage(), "get", "/api/v1/infrastructure/usage")
            shapes.check(await tm.infrastructure.metrics(), "get", "/api/v1/infrastructure/metrics")
            shapes.check(await tm.infrastructure.anomalies(), "get", "/api/v1/infrastructure/anomalies")
            with open(tmp_path / "export.json", "wb") as sink:
                written = await tm.infrastructure.export_to(sink, namespace=namespace)
            assert written.bytes > 0 and "Dee likes juice" in (tmp_path / "export.json").read_text()

            made = await tm.templates.create(template_name=tname, fields=template_fields(), format="{name} in {city|somewhere}")
            shapes.check(made, "post", "/v1/templates", "201")
            shapes.check(await tm.templates.get(tname), "get", "/v1/templates/{template_name_or_id}")
            entry = (await tm.marketplace.search()).data[0].marketplace_template_id
            shapes.check(await tm.marketplace.get(entry), "get", "/v1/marketplace/templates/{marketplace_template_id}")
            mem = await tm.memories.create(data={"name": "Dee"}, template_name=tname, namespace=namespace)
            shapes.check(await tm.memories.get(mem.memory_id), "get", "/v1/memories/{memory_id}")
            forgotten = await tm.memories.forget(mem.memory_id)
            shapes.check(forgotten, "delete", "/v1/memories/{memory_id}")
            assert forgotten.state == "not_retained" and forgotten.memory_id == mem.memory_id

            progress: List[int] = []
            job = await tm.imports.upload(
                file=CSV, filename="people.csv", format="{name} lives in {city}", namespace=namespace,
                on_progress=lambda p: progress.append(p.sent_bytes),
            )
            await tm.imports.start(job.id)
            done = await tm.imports.wait(job.id, poll_interval=0.2, max_wait=60)
            assert done.state == "completed" and progress[-1] == len(CSV)
            shapes.check(await tm.imports.failures(job.id), "get", "/v1/imports/{import_id}/failures")
            hub_job = await tm.imports.from_dataset(dataset=str(DATASET), split="train", format="{name}", namespace=namespace)
            shapes.check(hub_job, "post", "/v1/imports", "201")

            await tm.control.sessions.login(email=str(OWNER_EMAIL), password=str(OWNER_PASSWORD))
            shapes.check(await tm.control.account.get(), "get", "/api/v1/control/account")
            shapes.check(await tm.control.consent.get(), "get", "/api/v1/control/consent")
            shapes.check(await tm.control.billing.charges(), "get", "/api/v1/control/billing/charges")
            await tm.control.sessions.logout()
            await tm.memory.delete(namespace=namespace)

    asyncio.run(main())


# A write whose answer is lost: the proxy forwards the first write to the gateway, reads the gateway's
# answer (so the write is done) and closes the client's connection without it; every later request
# passes through. The SDK retries the write with the same key and body, and the service replays it.
# (The batch write's tests cut the first batch the same way: ``cut_path``.)
WRITE_PATH = "/api/v1/memory/write"
BATCH_PATH = "/api/v1/memory/write/batch"
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "proxy-connection", "upgrade"}


class CuttingProxy:
    def __init__(self, upstream: str, cut_path: str = WRITE_PATH) -> None:
        target = urlsplit(upstream)
        self.host, self.port = target.hostname or "127.0.0.1", target.port or 80
        self.write_keys: List[Optional[str]] = []  # the idempotency key of each write that reached the proxy
        self.cut_bodies: List[bytes] = []  # the body of each request to cut_path that reached the proxy
        self.paths: List[str] = []  # every request's path, in order
        self.cut = 0
        lock = threading.Lock()
        proxy = self

        class Forward(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _forward(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
                upstream = http.client.HTTPConnection(proxy.host, proxy.port, timeout=60)
                try:
                    upstream.request(self.command, self.path, body=body, headers=headers)
                    answer = upstream.getresponse()
                    content = answer.read()
                finally:
                    upstream.close()
                is_write = self.command == "POST" and self.path.split("?")[0] == cut_path
                with lock:
                    proxy.paths.append(self.path.split("?")[0])
                    if is_write:
                        proxy.write_keys.append(self.headers.get("idempotency-key"))
                        proxy.cut_bodies.append(body or b"")
                    cut = is_write and proxy.cut == 0
                    if cut:
                        proxy.cut += 1
                if cut:  # the gateway answered; the client hears nothing and its connection closes
                    self.close_connection = True
                    return
                self.send_response(answer.status)
                for k, v in answer.getheaders():
                    if k.lower() not in HOP_BY_HOP:
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(content)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(content)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Forward)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "CuttingProxy":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def charges_for(tm: TextMemory, keys: List[str]) -> Dict[str, int]:
    """The tenant's write charges by idempotency key, once every key in ``keys`` has one (billing takes
    usage records from memory's stream asynchronously: poll, up to 30 s)."""
    deadline = time.monotonic() + 30
    while True:
        listed = tm.control.billing.charges(operation="memory.write", limit=200).raw["data"]
        counts: Dict[str, int] = {}
        for c in listed:
            counts[c.get("idempotency_key")] = counts.get(c.get("idempotency_key"), 0) + 1
        if all(k in counts for k in keys) or time.monotonic() > deadline:
            return counts
        time.sleep(0.2)


def check_one_record_one_charge(namespace: str, key: str) -> None:
    """One record in the namespace, and one charge for ``key``. A later write's charge is awaited first:
    usage is recorded in order, so a second charge for ``key`` would be there by then."""
    with TextMemory(URL, api_key=KEY) as tm:
        recalled = tm.memory.recall(namespace=namespace, query="what does Eve drink? tea", top_k=10)
        assert [r.text for r in recalled.related] == ["Eve drinks jasmine tea"]
        marker = tm.memory.write(namespace=namespace, text="Eve also drinks water").event_id
        tm.control.sessions.login(email=str(OWNER_EMAIL), password=str(OWNER_PASSWORD))
        counts = charges_for(tm, [key, marker])
        assert counts.get(key) == 1 and counts.get(marker) == 1, counts
        tm.control.sessions.logout()
        tm.memory.delete(namespace=namespace)


def test_restore_an_export_sync_and_async_against_the_stack() -> None:
    source, target, again = (f"py-{label}-{uuid.uuid4().hex[:8]}" for label in ("src", "dst", "dst2"))
    with TextMemory(URL, api_key=KEY) as tm:
        tm.memory.write(namespace=source, text="The harbour master is Ines", event_id="hm-1")
        tm.memory.write(namespace=source, text="The harbour master is Joao", event_id="hm-2", supersedes=["hm-1"])
        file = tm.infrastructure.export(namespace=source).raw
        seen: List[str] = []
        job = tm.memory.restore(file=file, namespace=target, poll_interval=0.1, on_progress=lambda j: seen.append(j.state))
        assert (job.state, job.namespace, job.from_namespace, job.written, job.failed) == ("completed", target, source, 2, 0)
        assert seen[-1] == "completed" and tm.memory.restore_status(job.id).raw == job.raw
        replayed = tm.memory.restore(file=file, namespace=target, poll_interval=0.1)
        assert (replayed.written, replayed.already_present) == (0, 2)
        assert tm.memory.restore_failures(replayed.id, limit=10).paging.total == 0
        restored = tm.infrastructure.export(namespace=target)
        assert [(r.event_id, r.status) for r in restored.records] == [("hm-1", "superseded"), ("hm-2", "current")]
        with pytest.raises(TextMemoryError) as caught:
            tm.memory.restore(file=file, namespace=" bad")
        assert caught.value.status == 0 and caught.value.code == "validation_failed"

    async def main() -> Result:
        async with AsyncTextMemory(URL, api_key=KEY) as tm:
            return await tm.memory.restore(file=file, namespace=again, poll_interval=0.1)

    assert (asyncio.run(main()).written) == 2

@needs_owner
def test_sync_write_whose_answer_is_lost_comes_back_replayed() -> None:
    namespace = f"py-{uuid.uuid4().hex[:12]}"
    with CuttingProxy(str(URL)) as proxy, TextMemory(proxy.url, api_key=KEY) as tm:
        w = tm.memory.write(namespace=namespace, text="Eve drinks jasmine tea")
    assert w.idempotency_outcome == "Replayed" and proxy.cut == 1
    assert proxy.write_keys == [w.event_id, w.event_id] and str(w.event_id).startswith("evt_")
    check_one_record_one_charge(namespace, str(w.event_id))


@needs_owner
def test_async_write_whose_answer_is_lost_comes_back_replayed() -> None:
    namespace = f"py-{uuid.uuid4().hex[:12]}"

    async def main() -> Result:
        async with AsyncTextMemory(proxy.url, api_key=KEY) as tm:
            return await tm.memory.write(namespace=namespace, text="Eve drinks jasmine tea")

    with CuttingProxy(str(URL)) as proxy:
        w = asyncio.run(main())
    assert w.idempotency_outcome == "Replayed" and proxy.cut == 1
    assert proxy.write_keys == [w.event_id, w.event_id] and str(w.event_id).startswith("evt_")
    check_one_record_one_charge(namespace, str(w.event_id))


# The batch write: mixed items, a resend, a lost answer, and the item bound.
AT = "2026-11-01T10:00:00Z"


def batch_item(key: str, text: str) -> WriteBatchItem:
    return {"idempotency_key": key, "event": {"occurred_at": AT, "content": {"text": text}}}


def charged_once(tm: TextMemory, namespace: str, keys: List[str]) -> Dict[str, int]:
    """Each key's write charges, once a marker written after them is charged too (usage is recorded in
    order, so a second charge for any of them would be there by then)."""
    marker = tm.memory.write(namespace=namespace, text="a marker written last").event_id
    tm.control.sessions.login(email=str(OWNER_EMAIL), password=str(OWNER_PASSWORD))
    counts = charges_for(tm, [*keys, str(marker)])
    tm.control.sessions.logout()
    return {key: counts.get(key, 0) for key in keys}


@needs_owner
def test_sync_write_batch_with_good_bad_replayed_and_conflicting_items_against_the_stack() -> None:
    namespace = f"py-{uuid.uuid4().hex[:12]}"
    run = uuid.uuid4().hex[:8]
    new, replayed, conflicting = f"py-b-new-{run}", f"py-b-old-{run}", f"py-b-taken-{run}"
    with TextMemory(URL, api_key=KEY) as tm:
        shapes = Shapes(tm.infrastructure.openapi().raw)
        assert tm.infrastructure.capabilities().limits.write_batch_max_items == WRITE_BATCH_MAX_ITEMS
        # Written one at a time first: the batch replays the one and conflicts with the other.
        tm.memory.write(namespace=namespace, text="Gus drinks oolong", idempotency_key=replayed, occurred_at=AT)
        tm.memory.write(namespace=namespace, text="Hal drinks cocoa", idempotency_key=conflicting, occurred_at=AT)
        items = [
            batch_item(new, "Fay drinks matcha"),
            batch_item(f"py-b-bad-{run}", "   "),
            batch_item(replayed, "Gus drinks oolong"),
            batch_item(conflicting, "Hal drinks something else"),
        ]

        r = tm.memory.write_batch(namespace=namespace, items=items)

        shapes.check(r, "post", BATCH_PATH)
        assert (r.state, r.namespace, r.retryable) == ("retained", namespace, False)
        assert r.item_counts.raw == {"total": 4, "accepted": 1, "replayed": 1, "conflict": 1, "invalid": 1, "failed": 0}
        assert [x.index for x in r.results] == [0, 1, 2, 3]
        assert [x.status for x in r.results] == [200, 400, 200, 409]
        good, bad, again, taken = (x.body for x in r.results)
        assert isinstance(good, WriteResponse) and good.idempotency_outcome == "Accepted" and good.event_id == new
        assert good.request_id == r.request_id
        assert isinstance(bad, ErrorEnvelope) and bad.details is not None and bad.details.code == "validation_failed"
        assert [f.path for f in bad.details.fields or []] == ["items[1].event.content.text"]
        assert isinstance(again, WriteResponse) and again.idempotency_outcome == "Replayed"
        assert isinstance(taken, ErrorEnvelope) and taken.idempotency_outcome == "Conflict"
        assert taken.details is not None and taken.details.code == "idempotency_conflict"

        # The same batch sent again (what a caller does after losing the answer): the written items
        # replay, the bad and conflicting ones are answered as before, nothing is written twice.
        resent = tm.memory.write_batch(namespace=namespace, items=items)
        assert [x.status for x in resent.results] == [200, 400, 200, 409]
        assert resent.item_counts.raw == {"total": 4, "accepted": 0, "replayed": 2, "conflict": 1, "invalid": 1, "failed": 0}
        assert resent.results[0].body.memory_id == good.memory_id

        recalled = tm.memory.recall(namespace=namespace, query="who drinks what", top_k=10)
        assert sorted(x.text for x in recalled.related) == ["Fay drinks matcha", "Gus drinks oolong", "Hal drinks cocoa"]
        assert charged_once(tm, namespace, [new, replayed, conflicting]) == {new: 1, replayed: 1, conflicting: 1}
        tm.memory.delete(namespace=namespace)


@needs_owner
def test_sync_write_batch_whose_answer_is_lost_comes_back_replayed_and_the_bound_is_checked_before_sending() -> None:
    namespace = f"py-{uuid.uuid4().hex[:12]}"
    keys = [f"py-b-lost-{uuid.uuid4().hex[:8]}-{i}" for i in range(3)]
    items = [batch_item(key, f"Ivy note {i} about tea") for i, key in enumerate(keys)]
    with CuttingProxy(str(URL), cut_path=BATCH_PATH) as proxy, TextMemory(proxy.url, api_key=KEY) as tm:
        r = tm.memory.write_batch(namespace=namespace, items=items)
        assert proxy.cut == 1 and len(proxy.cut_bodies) == 2 and proxy.cut_bodies[0] == proxy.cut_bodies[1]
        assert [x.body.idempotency_outcome for x in r.results] == ["Replayed"] * 3
        assert r.item_counts.replayed == 3 and r.state == "retained"

        before = len(proxy.paths)
        too_many = [batch_item(f"py-b-over-{i}", "Ivy again") for i in range(WRITE_BATCH_MAX_ITEMS + 1)]
        with pytest.raises(TextMemoryError) as caught:
            tm.memory.write_batch(namespace=namespace, items=too_many)
        assert len(proxy.paths) == before  # nothing sent
        assert caught.value.code == "validation_failed" and caught.value.details is not None
        assert caught.value.details["fields"] == [{"path": "items", "message": "items must hold at most 100 items"}]

    with TextMemory(URL, api_key=KEY) as tm:
        recalled = tm.memory.recall(namespace=namespace, query="Ivy note tea", top_k=10)
        assert len(recalled.related) == 3
        assert charged_once(tm, namespace, keys) == {key: 1 for key in keys}
        tm.memory.delete(namespace=namespace)


@needs_owner
def test_async_write_batch_whose_answer_is_lost_comes_back_replayed() -> None:
    namespace = f"py-{uuid.uuid4().hex[:12]}"
    keys = [f"py-b-async-{uuid.uuid4().hex[:8]}-{i}" for i in range(2)]
    items = [batch_item(keys[0], "Jo drinks rooibos"), batch_item(keys[1], "")]

    async def main() -> Any:
        async with AsyncTextMemory(proxy.url, api_key=KEY) as tm:
            with pytest.raises(TextMemoryError) as caught:
                await tm.memory.write_batch(namespace=namespace, items=[])
            assert caught.value.details is not None
            assert caught.value.details["fields"] == [{"path": "items", "message": "items must hold at least one item"}]
            return await tm.memory.write_batch(namespace=namespace, items=items)

    with CuttingProxy(str(URL), cut_path=BATCH_PATH) as proxy:
        r = asyncio.run(main())
    assert proxy.cut == 1 and len(proxy.cut_bodies) == 2 and BATCH_PATH in proxy.paths
    assert [x.status for x in r.results] == [200, 400]
    assert r.results[0].body.idempotency_outcome == "Replayed" and isinstance(r.results[1].body, ErrorEnvelope)
    with TextMemory(URL, api_key=KEY) as tm:
        assert charged_once(tm, namespace, keys[:1]) == {keys[0]: 1}
        tm.memory.delete(namespace=namespace)


# Webhooks: endpoints registered with the owner's session, delivered to a receiver this test runs
# on 127.0.0.1 (the test stack allows loopback), verified as a Python receiver would verify them.
class Receiver:
    """A customer's webhook receiver: records every request and answers 200."""

    def __init__(self) -> None:
        self.requests: List[Dict[str, Any]] = []
        received = self.requests

        class Record(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                received.append({"path": self.path, "headers": headers, "body": body})
                self.send_response(200)
                self.send_header("content-length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Record)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def at(self, path: str, count: int) -> List[Dict[str, Any]]:
        """The requests to ``path`` once there are ``count`` (polled: deliveries are asynchronous)."""
        deadline = time.monotonic() + 20
        while True:
            seen = [r for r in list(self.requests) if r["path"] == path]
            if len(seen) >= count or time.monotonic() > deadline:
                assert len(seen) == count, f"{len(seen)} requests at {path}, not {count}"
                return seen
            time.sleep(0.1)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def verified(secret: str, request: Dict[str, Any]) -> Any:
    """The Standard Webhooks check: HMAC-SHA256 of "id.timestamp.body" under the base64 key after
    ``whsec_``, one of the space-separated ``v1,`` signatures; the payload when it matches."""
    headers, body = request["headers"], request["body"]
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(base64.b64decode(secret[len("whsec_") :]), signed, hashlib.sha256).digest()).decode()
    signatures = [s.split(",", 1)[1] for s in headers["webhook-signature"].split(" ")]
    assert any(hmac.compare_digest(expected, s) for s in signatures), "no signature matches"
    return json.loads(body)


@needs_owner
def test_sync_client_webhooks_against_the_stack() -> None:
    receiver = Receiver()
    path = f"/py-{uuid.uuid4().hex[:8]}"
    namespace = f"py-hooks-{uuid.uuid4().hex[:8]}"
    try:
        with TextMemory(URL, api_key=KEY) as tm:
            shapes = Shapes(tm.infrastructure.openapi().raw)
            tm.control.sessions.login(email=str(OWNER_EMAIL), password=str(OWNER_PASSWORD))
            base = "/api/v1/control/webhook-endpoints"

            created = tm.control.webhooks.create(url=receiver.url + path, events=["memory.retained"], description="py")
            shapes.check(created, "post", base, "201")
            assert created.secret.startswith("whsec_") and created.enabled is True and created.include_text is False
            listed = shapes.check(tm.control.webhooks.list(), "get", base)
            assert [e.id for e in listed.data] == [created.id] and created.secret not in json.dumps(listed.raw)
            one = shapes.check(tm.control.webhooks.get(created.id), "get", f"{base}/{{id}}")
            assert "secret" not in one and one.url == receiver.url + path

            written = tm.memory.write(namespace=namespace, text="a note for the webhook")
            [first] = receiver.at(path, 1)
            payload = verified(created.secret, first)
            assert payload["type"] == "memory.retained" and payload["data"]["memory_id"] == written.memory_id
            assert "a note for the webhook" not in first["body"].decode()

            rotated = shapes.check(tm.control.webhooks.rotate_secret(created.id), "post", f"{base}/{{id}}/rotate-secret")
            assert rotated.secret != created.secret and rotated.previous_secret_expires_at
            page = shapes.check(tm.control.webhooks.deliveries_page(created.id, limit=1), "get", f"{base}/{{id}}/deliveries")
            assert len(page.data) == 1 and page.next_cursor is None
            [delivery] = list(tm.control.webhooks.deliveries(created.id, limit=1))
            assert delivery.message_id == first["headers"]["webhook-id"] and delivery.event_type == "memory.retained"
            deadline = time.monotonic() + 20
            while delivery.status != "succeeded" and time.monotonic() < deadline:
                time.sleep(0.1)
                [delivery] = list(tm.control.webhooks.deliveries(created.id))
            assert delivery.status == "succeeded" and delivery.attempts[0].status_code == 200

            again = tm.control.webhooks.redeliver(created.id, delivery.id)
            shapes.check(again, "post", f"{base}/{{id}}/deliveries/{{delivery_id}}/redeliver", "202")
            assert again.status == "pending" and again.id == delivery.id
            second = receiver.at(path, 2)[1]
            assert second["headers"]["webhook-id"] == delivery.message_id
            # Signed with the new secret and, for the overlap, the previous one.
            assert verified(rotated.secret, second) == verified(created.secret, second) == payload

            changed = tm.control.webhooks.update(created.id, events=["memory.deleted"], enabled=False)
            shapes.check(changed, "patch", f"{base}/{{id}}")
            assert changed.events == ["memory.deleted"] and changed.enabled is False
            with pytest.raises(TextMemoryError) as refused:
                tm.control.webhooks.redeliver(created.id, delivery.id)
            assert refused.value.status == 412 and refused.value.code == "precondition_failed"
            deleted = shapes.check(tm.control.webhooks.delete(created.id), "delete", f"{base}/{{id}}")
            assert deleted.deleted is True and deleted.id == created.id
            with pytest.raises(TextMemoryError) as gone:
                tm.control.webhooks.get(created.id)
            assert gone.value.status == 404 and gone.value.code == "not_found" and gone.value.attempts == 1
            tm.memory.delete(namespace=namespace)
            tm.control.sessions.logout()
    finally:
        receiver.close()


@needs_owner
def test_async_client_webhooks_against_the_stack() -> None:
    receiver = Receiver()
    path = f"/py-async-{uuid.uuid4().hex[:8]}"
    namespace = f"py-hooks-{uuid.uuid4().hex[:8]}"

    async def main() -> None:
        async with AsyncTextMemory(URL, api_key=KEY) as tm:
            await tm.control.sessions.login(email=str(OWNER_EMAIL), password=str(OWNER_PASSWORD))
            created = await tm.control.webhooks.create(url=receiver.url + path, events=["memory.retained"])
            with pytest.raises(TextMemoryError) as invalid:
                await tm.control.webhooks.create(url="http://192.168.0.9/x", events=["memory.retained"])
            assert invalid.value.status == 400 and [f["path"] for f in (invalid.value.details or {})["fields"]] == ["url"]
            written = [await tm.memory.write(namespace=namespace, text=f"async hook note {n}") for n in range(3)]
            await asyncio.get_running_loop().run_in_executor(None, receiver.at, path, 3)
            listed = [d async for d in tm.control.webhooks.deliveries(created.id, limit=2)]
            assert len(listed) == 3 and len({d.message_id for d in listed}) == 3
            memory_ids = sorted(verified(created.secret, r)["data"]["memory_id"] for r in receiver.at(path, 3))
            assert memory_ids == sorted(str(w.memory_id) for w in written)
            assert (await tm.control.webhooks.get(created.id)).id == created.id
            assert (await tm.control.webhooks.delete(created.id)).deleted is True
            assert (await tm.control.webhooks.list()).data == []
            await tm.memory.delete(namespace=namespace)
            await tm.control.sessions.logout()

    try:
        asyncio.run(main())
    finally:
        receiver.close()
