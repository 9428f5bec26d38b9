"""The async client, and the source of the sync one: scripts/unasync.py writes _client.py from this file
(``async def`` → ``def``, ``await`` dropped, ``AsyncX`` → ``X``, and ``cancel=`` on every call), so the
two clients' methods, signatures and docstrings are written once. What is not shared is their I/O
(_async_transport.py, _transport.py); everything else is the shared core (_core.py) and families
(_families.py)."""

from __future__ import annotations

import asyncio
import os
import time
from typing import IO, Any, AsyncIterator, Awaitable, Callable, List, Mapping, Optional, Sequence, Tuple, Union

import httpx

from ._async_transport import AsyncTransport
from ._core import (
    CAPABILITIES,
    DELETE_MAX_WAIT,
    HEALTH,
    LIVE,
    STATUS,
    Core,
    RecallOption,
    RetryEvent,
    Spec,
    Time,
    delete_ask_again,
    delete_next_poll,
    delete_spec,
    deletion_id,
    deletion_spec,
    open_sink,
    recall_spec,
    restore_failures_spec,
    restore_next_poll,
    restore_spec,
    restore_status_spec,
    related_recall_args,
    write_batch_spec,
    write_spec,
)
from ._errors import TextMemoryError
from ._families import (
    Control,
    DeliveryPages,
    EventPages,
    ImportCalls,
    InfrastructureCalls,
    Marketplace,
    Memories,
    Templates,
    WebhookCalls,
    events_query,
    export_spec,
    import_finished,
    import_spec,
)
from ._answers import as_answer
from .models import (
    EventSourceInput,
    CapabilitiesResponse,
    DeleteReceipt,
    HealthResponse,
    HealthUnavailable,
    ImportJob,
    LivenessResponse,
    RecallResponse,
    RestoreFailurePage,
    RestoreJob,
    RequestEvent,
    StatusResponse,
    WebhookDelivery,
    WriteBatchItem,
    WriteBatchResponse,
    WriteResponse,
)
from ._result import Result
from ._retry import RetryPolicy
from ._upload import FileSource, Upload, UploadProgress
from ._version import USER_AGENT


class AsyncTextMemory:
    """The Text-Memory client (async: ``async with AsyncTextMemory() as tm``). Methods are grouped by
    family, as in the TypeScript SDK: ``memory``, ``infrastructure``, ``control``, ``templates``,
    ``marketplace``, ``memories`` and ``imports``. Use it with ``async with``, or await ``aclose()``, to
    release its connections.

    Every method also takes ``timeout``, ``max_retries``, ``request_id`` (sent as X-Request-Id) and
    ``extra_headers`` for that call alone."""

    def __init__(
        self,
        base_url: Optional[str] = None,
        *,
        api_key: Optional[str] = None,
        session_token: Optional[str] = None,
        operator_token: Optional[str] = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        backoff_base: float = 0.5,
        backoff_max: float = 8.0,
        retry_after_max: float = 30.0,
        headers: Optional[Mapping[str, str]] = None,
        on_retry: Optional[Callable[[RetryEvent], None]] = None,
        http_client: Optional[httpx.AsyncClient] = None,
    ) -> None:
        self._core = Core(
            base_url=base_url,
            api_key=api_key,
            session_token=session_token,
            operator_token=operator_token,
            policy=RetryPolicy(timeout, max_retries, backoff_base, backoff_max, retry_after_max),
            headers=headers,
            on_retry=on_retry,
            user_agent=USER_AGENT,
        )
        self._own_client = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient()
        self._transport = AsyncTransport(self._core, self._http)
        self.memory = AsyncMemory(self)
        self.infrastructure = AsyncInfrastructure(self)
        self.control: Control[Awaitable[Result], AsyncWebhooks] = Control(self._run, self._keep_session, AsyncWebhooks(self))
        self.templates: Templates[Awaitable[Result]] = Templates(self._run)
        self.marketplace: Marketplace[Awaitable[Result]] = Marketplace(self._run)
        self.memories: Memories[Awaitable[Result]] = Memories(self._run)
        self.imports = AsyncImports(self)

    @property
    def base_url(self) -> str:
        return self._core.base_url

    async def aclose(self) -> None:
        """Release the connections (not those of an ``http_client`` you passed in)."""
        if self._own_client:
            await self._http.aclose()

    async def __aenter__(self) -> "AsyncTextMemory":
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"AsyncTextMemory({self._core!r})"

    async def _run(self, spec: Spec, call: Mapping[str, Any], after: Optional[Callable[[Result], None]] = None) -> Result:
        answer = await self._transport.request(spec, **call)
        result: Result = as_answer(spec.method, spec.path, answer.status, answer.data)
        if after is not None:
            after(result)
        return result

    def _keep_session(self, token: Optional[str]) -> None:
        self._core.session_token = token


class AsyncMemory:
    """The data plane: write, recall, delete (API key)."""

    def __init__(self, client: AsyncTextMemory) -> None:
        self._transport = client._transport

    async def write(
        self,
        *,
        namespace: str,
        text: str,
        idempotency_key: Optional[str] = None,
        event_id: Optional[str] = None,
        occurred_at: Optional[Time] = None,
        source: Optional[EventSourceInput] = None,
        supersedes: Optional[Sequence[str]] = None,
        recall: RecallOption = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> WriteResponse:
        """Retain one event. Safe to retry: the idempotency key (``evt_<uuid>`` when not given) is fixed
        before the first attempt, so a write whose answer was lost comes back ``Replayed`` on the retry,
        never doubled; without ``occurred_at`` the service uses the time it retains the write. ``recall=True`` (or a dict of query,
        top_k, as_of, explain) also recalls after the write, as ``related_recall``."""
        spec = write_spec(namespace, text, idempotency_key, event_id, occurred_at, source, supersedes, recall)
        data = (await self._transport.request(spec, timeout, max_retries, request_id, extra_headers)).data
        if not recall:
            return WriteResponse(data)
        related = await self.recall(
            namespace=namespace,
            **related_recall_args(text, recall),
            timeout=timeout,
            max_retries=max_retries,
            request_id=request_id,
            extra_headers=extra_headers,
        )
        return WriteResponse({**data, "related_recall": related.raw})

    async def write_batch(
        self,
        *,
        namespace: str,
        items: Sequence[WriteBatchItem],
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> WriteBatchResponse:
        """Retain up to 100 events in one namespace, each item (``{"idempotency_key", "event"}``, the
        event as ``write`` sends it) a write of its own. The answer has one result per item, in request
        order: ``results[i].status`` and ``results[i].body`` are what a single write of item i would
        answer (``WriteResponse``, Accepted or Replayed; or ``ErrorEnvelope``, a 409 conflict or a 400
        naming ``items[i]...``), and ``item_counts`` counts them. One bad item refuses only itself.
        Safe to retry, as ``write``: each item keeps its key, so a batch whose answer was lost comes back
        with its written items Replayed. No items or more than 100 is refused before sending
        (``validation_failed``, field ``items``)."""
        spec = write_batch_spec(namespace, items)
        return WriteBatchResponse((await self._transport.request(spec, timeout, max_retries, request_id, extra_headers)).data)

    async def recall(
        self,
        *,
        namespace: str,
        query: str,
        top_k: Optional[int] = None,
        as_of: Optional[Time] = None,
        explain: Optional[bool] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> RecallResponse:
        """Rank retained text against ``query`` (top_k 1–100, server default 10). A result's ``score`` is
        the share of the query's term weight it holds (words rare in the namespace weigh more);
        ``explain=True`` gives each result an ``explanation``: the query's terms with their weights and
        whether the result holds each, and the function words that only break ties."""
        spec = recall_spec(namespace, query, top_k, as_of, explain)
        return RecallResponse((await self._transport.request(spec, timeout, max_retries, request_id, extra_headers)).data)

    async def delete(
        self,
        *,
        namespace: str,
        on_progress: Optional[Callable[[DeleteReceipt], None]] = None,
        max_wait: float = DELETE_MAX_WAIT,
        poll_interval: Optional[float] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> DeleteReceipt:
        """Delete one namespace: its records, supersession relations and idempotency state. The server
        hides the records at once and deletes them as a job (202 and a status route); this polls the job
        (``on_progress`` gets each receipt) up to ``max_wait`` seconds, and returns the final receipt
        (``deletion.status == "completed"``), or the receipt as it stands when the wait ran out."""
        call = (timeout, max_retries, request_id, extra_headers)
        started = time.monotonic()
        spec = delete_spec(namespace)
        while True:
            try:
                receipt = (await self._transport.request(spec, *call)).data
                break
            except TextMemoryError as error:
                pause = delete_ask_again(error, time.monotonic() - started, max_wait)
                if pause is None:
                    raise
                await asyncio.sleep(pause)
        if on_progress is not None:
            on_progress(DeleteReceipt(receipt))
        while True:
            pause = delete_next_poll(receipt, time.monotonic() - started, max_wait, poll_interval)
            if pause is None:
                return DeleteReceipt(receipt)
            await asyncio.sleep(pause)
            receipt = (await self._transport.request(deletion_spec(deletion_id(receipt)), *call)).data
            if on_progress is not None:
                on_progress(DeleteReceipt(receipt))

    async def deletion(
        self,
        deletion_id: str,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> DeleteReceipt:
        """A namespace deletion as it stands, by ``deletion.id`` from its receipt (one read, no waiting)."""
        spec = deletion_spec(deletion_id)
        return DeleteReceipt((await self._transport.request(spec, timeout, max_retries, request_id, extra_headers)).data)

    async def restore(
        self,
        *,
        file: Mapping[str, Any],
        namespace: Optional[str] = None,
        from_namespace: Optional[str] = None,
        wait: bool = True,
        on_progress: Optional[Callable[[RestoreJob], None]] = None,
        max_wait: float = DELETE_MAX_WAIT,
        poll_interval: Optional[float] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> RestoreJob:
        """Restore an export file (the parsed JSON the export wrote) into a namespace of this key's
        tenant: checked whole by the server (a 400 stores nothing), then written as a job that
        keeps event ids, times, text, source and supersessions (new memory ids). Polls the job
        (``on_progress`` gets each state) up to ``max_wait`` seconds unless ``wait=False``, and returns it:
        ``written`` (one write unit each), ``already_present`` (nothing stored), ``failed``
        (``restore_failures``). A second restore of the same file stores and bills nothing."""
        call = (timeout, max_retries, request_id, extra_headers)
        started = time.monotonic()
        job = (await self._transport.request(restore_spec(file, namespace, from_namespace), *call)).data
        if on_progress is not None:
            on_progress(RestoreJob(job))
        while wait:
            pause = restore_next_poll(job, time.monotonic() - started, max_wait, poll_interval)
            if pause is None:
                break
            await asyncio.sleep(pause)
            job = (await self._transport.request(restore_status_spec(str(job["id"])), *call)).data
            if on_progress is not None:
                on_progress(RestoreJob(job))
        return RestoreJob(job)

    async def restore_status(
        self,
        restore_id: str,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> RestoreJob:
        """A restore job as it stands (one read, no waiting)."""
        spec = restore_status_spec(restore_id)
        return RestoreJob((await self._transport.request(spec, timeout, max_retries, request_id, extra_headers)).data)

    async def restore_failures(
        self,
        restore_id: str,
        *,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> RestoreFailurePage:
        """Records a restore could not write, by event id, with a reason (never their text)."""
        spec = restore_failures_spec(restore_id, limit, offset)
        return RestoreFailurePage((await self._transport.request(spec, timeout, max_retries, request_id, extra_headers)).data)


class AsyncInfrastructure(InfrastructureCalls[Awaitable[Result]]):
    """Health, liveness, capabilities, status, the request history, telemetry, the namespace listing
    and the export."""

    def __init__(self, client: AsyncTextMemory) -> None:
        super().__init__(client._run, lambda: client._core.operator_token)
        self._transport = client._transport

    async def events(
        self,
        *,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        operation: Optional[str] = None,
        outcome: Optional[str] = None,
        status: Optional[int] = None,
        from_: Optional[str] = None,
        to: Optional[str] = None,
        **call: Any,
    ) -> AsyncIterator[RequestEvent]:
        """Every record of the request history from ``offset`` on, newest first, fetching page after
        page (``limit`` rows each) as the loop asks: ``async for e in tm.infrastructure.events(outcome="failed")``.
        Pages after the first follow ``next_cursor``, so records arriving meanwhile neither repeat nor
        skip a record."""
        pages = EventPages(events_query(limit, offset, None, operation, outcome, status, from_, to))
        spec: Optional[Spec] = pages.first()
        while spec is not None:
            page = (await self._transport.request(spec, **call)).data
            for row in pages.rows(page):
                yield row
            spec = pages.next(page)

    async def export_to(
        self,
        destination: Union[str, "os.PathLike[str]", IO[bytes]],
        *,
        namespace: Union[str, Sequence[str], None] = None,
        **call: Any,
    ) -> Result:
        """Stream the export's JSON into ``destination`` (a path, or a binary file object you close) as
        it arrives, without holding it in memory: ``Result`` with ``bytes`` written and ``request_id``.
        An export that breaks off raises ``TextMemoryError`` (not retried: its bytes are written)."""
        sink, owned = open_sink(destination)
        try:
            written, request_id = await self._transport.stream_to(export_spec(namespace), sink, call)
        finally:
            if owned:
                sink.close()
        return Result({"bytes": written, "request_id": request_id})

    async def health(
        self,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
    ) -> Union[HealthResponse, HealthUnavailable]:
        """Readiness (public). ``available`` says whether writes can be served; when not, the server's
        503 carries the same report, returned, not raised: a health check asks for the state."""
        answer = await self._transport.request(HEALTH, timeout, max_retries, request_id)
        return HealthResponse(answer.data) if answer.status == 200 else HealthUnavailable(answer.data)

    async def live(
        self,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
    ) -> LivenessResponse:
        """Liveness (public): the gateway process runs."""
        return LivenessResponse((await self._transport.request(LIVE, timeout, max_retries, request_id)).data)

    async def capabilities(
        self,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
    ) -> CapabilitiesResponse:
        """Operations, guarantees, limitations and input limits (public)."""
        return CapabilitiesResponse((await self._transport.request(CAPABILITIES, timeout, max_retries, request_id)).data)

    async def status(
        self,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
    ) -> StatusResponse:
        """Health, monitoring and versions for the tenant (API key or session)."""
        return StatusResponse((await self._transport.request(STATUS, timeout, max_retries, request_id)).data)


class AsyncWebhooks(WebhookCalls[Awaitable[Result]]):
    """Webhook endpoints and their delivery log (an owner's or admin's session)."""

    def __init__(self, client: AsyncTextMemory) -> None:
        super().__init__(client._run)
        self._transport = client._transport

    async def deliveries(self, id: str, *, limit: Optional[int] = None, **call: Any) -> AsyncIterator[WebhookDelivery]:
        """Every delivery of the endpoint, newest first, fetching page after page (``limit`` each) as
        the loop asks: ``async for d in tm.control.webhooks.deliveries(endpoint_id)``. Pages after the
        first follow ``next_cursor``, so deliveries made meanwhile neither repeat nor skip one."""
        pages = DeliveryPages(id, limit)
        spec: Optional[Spec] = pages.page(None)
        while spec is not None:
            page = (await self._transport.request(spec, **call)).data
            for row in pages.rows(page):
                yield row
            spec = pages.next(page)


class AsyncImports(ImportCalls[Awaitable[Result]]):
    """Document import (``/v1/imports``, API key with memory:write): upload (or ``from_dataset``) →
    estimate → ``start`` → ``wait``; ``get`` and ``failures`` read the job."""

    def __init__(self, client: AsyncTextMemory) -> None:
        super().__init__(client._run)
        self._transport = client._transport

    async def upload(
        self,
        *,
        file: FileSource,
        filename: Optional[str] = None,
        format: Optional[str] = None,
        template_name: Optional[str] = None,
        marketplace_template_id: Optional[str] = None,
        namespace: Optional[str] = None,
        on_progress: Optional[Callable[[UploadProgress], None]] = None,
        **call: Any,
    ) -> ImportJob:
        """Upload a file (path, bytes or binary file object; the extension of ``filename`` decides the
        reader: csv, json, ndjson, jsonl, xlsx, xls) and get the job in state ``estimated``.
        ``on_progress`` gets ``UploadProgress(sent_bytes, total_bytes)`` as the connection takes each
        64 KiB. Each upload makes a new job: a lost answer is not repeated (a 429 still is).
        The per-attempt timeout bounds the whole attempt, the upload included: raise it for a large file."""
        fields: List[Tuple[str, str]] = [
            (name, value)
            for name, value in (
                ("format", format),
                ("template_name", template_name),
                ("marketplace_template_id", marketplace_template_id),
                ("namespace", namespace),
            )
            if value is not None
        ]
        upload = Upload(file, filename, fields, on_progress)
        spec = Spec("POST", "/v1/imports", "api_key", False, upload=upload)
        return ImportJob((await self._transport.request(spec, **call)).data)

    async def wait(
        self,
        import_id: str,
        *,
        poll_interval: float = 1.0,
        max_wait: Optional[float] = None,
        on_progress: Optional[Callable[[ImportJob], None]] = None,
        **call: Any,
    ) -> ImportJob:
        """Poll until the job is ``completed``, ``failed`` or ``expired`` (``on_progress`` gets the job
        after each poll); the last job. With ``max_wait`` (seconds), the job as it stands when it ran
        out; cancelling the task stops the wait."""
        started = time.monotonic()
        while True:
            job = (await self._transport.request(import_spec(import_id), **call)).data
            if on_progress is not None:
                on_progress(ImportJob(job))
            if import_finished(job) or (max_wait is not None and time.monotonic() - started + poll_interval > max_wait):
                return ImportJob(job)
            await asyncio.sleep(poll_interval)
