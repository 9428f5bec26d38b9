"""The sync client: sends, sleeps and loops; everything else is the shared core (_core.py)."""

from __future__ import annotations

import os
import threading
import time
from typing import IO, Any, Callable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import httpx

from ._core import (
    CAPABILITIES,
    DELETE_MAX_WAIT,
    HEALTH,
    LIVE,
    STATUS,
    Answer,
    Core,
    Prepared,
    RecallOption,
    RetryEvent,
    Spec,
    Time,
    aborted,
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


class TextMemory:
    """The Text-Memory client (sync). Methods are grouped by family, as in the TypeScript SDK:
    ``memory``, ``infrastructure``, ``control``, ``templates``, ``marketplace``, ``memories`` and
    ``imports``. Use it as a context manager,
    or call ``close()``, to release its connections.

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
        http_client: Optional[httpx.Client] = None,
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
        self._http = http_client if http_client is not None else httpx.Client()
        self.memory = Memory(self)
        self.infrastructure = Infrastructure(self)
        self.control: Control[Result, Webhooks] = Control(self._run, self._keep_session, Webhooks(self))
        self.templates: Templates[Result] = Templates(self._run)
        self.marketplace: Marketplace[Result] = Marketplace(self._run)
        self.memories: Memories[Result] = Memories(self._run)
        self.imports = Imports(self)

    @property
    def base_url(self) -> str:
        return self._core.base_url

    def close(self) -> None:
        """Release the connections (not those of an ``http_client`` you passed in)."""
        if self._own_client:
            self._http.close()

    def __enter__(self) -> "TextMemory":
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"TextMemory({self._core!r})"

    def _request(
        self,
        spec: Spec,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
        cancel: Optional[threading.Event] = None,
    ) -> Answer:
        prepared = self._core.prepare(
            spec, timeout=timeout, max_retries=max_retries, request_id=request_id, extra_headers=extra_headers
        )
        attempt = 0
        while True:
            if cancel is not None and cancel.is_set():
                raise aborted(attempt)
            outcome = self._attempt(prepared)
            if isinstance(outcome, Answer):
                return outcome
            if cancel is not None and cancel.is_set():
                raise aborted(attempt + 1)
            delay = self._core.retry_delay(prepared, outcome, attempt)
            if delay is None:
                raise outcome
            self._pause(delay, cancel, attempt + 1)
            attempt += 1

    @staticmethod
    def _pause(seconds: float, cancel: Optional[threading.Event], attempts: int) -> None:
        """Sleep before a retry or a poll; a ``cancel`` set meanwhile ends the call at once."""
        if cancel is None:
            time.sleep(seconds)
        elif cancel.wait(seconds):
            raise aborted(attempts)

    def _run(self, spec: Spec, call: Mapping[str, Any], after: Optional[Callable[[Result], None]] = None) -> Result:
        answer = self._request(spec, **call)
        result: Result = as_answer(spec.method, spec.path, answer.status, answer.data)
        if after is not None:
            after(result)
        return result

    def _keep_session(self, token: Optional[str]) -> None:
        self._core.session_token = token

    def _stream_to(self, spec: Spec, sink: IO[bytes], call: Mapping[str, Any]) -> Tuple[int, Optional[str]]:
        """A GET whose 2xx body is copied into ``sink`` as it arrives: the bytes written and the request
        id. Retried as any call until the body starts; a body that breaks off is not (its bytes are
        written). The timeout bounds connecting and each wait for data, not the whole transfer."""
        cancel: Optional[threading.Event] = call.get("cancel")
        prepared = self._core.prepare(spec, **{k: v for k, v in call.items() if k != "cancel"})
        attempt = 0
        while True:
            if cancel is not None and cancel.is_set():
                raise aborted(attempt)
            try:
                request = self._http.build_request(
                    prepared.method, prepared.url, headers=prepared.headers, timeout=httpx.Timeout(prepared.policy.timeout)
                )
                response = self._http.send(request, stream=True)
            except httpx.TimeoutException as exc:
                outcome: Union[Answer, TextMemoryError] = self._core.failure(prepared, exc, timed_out=True)
            except httpx.TransportError as exc:
                outcome = self._core.failure(prepared, exc, timed_out=False)
            else:
                try:
                    request_id = response.headers.get("x-request-id")
                    if 200 <= response.status_code < 300:
                        written = 0
                        try:
                            for chunk in response.iter_bytes():
                                if cancel is not None and cancel.is_set():
                                    raise aborted(attempt + 1)
                                sink.write(chunk)
                                written += len(chunk)
                        except httpx.TransportError as exc:
                            raise self._core.broken_off(prepared, exc, written, request_id) from None
                        return written, request_id
                    try:
                        body = response.read()
                    except httpx.TransportError as exc:
                        outcome = self._core.failure(prepared, exc, timed_out=isinstance(exc, httpx.TimeoutException))
                    else:
                        outcome = self._core.outcome(prepared, response.status_code, response.headers, body)
                finally:
                    response.close()
            assert isinstance(outcome, TextMemoryError)
            delay = self._core.retry_delay(prepared, outcome, attempt)
            if delay is None:
                raise outcome
            self._pause(delay, cancel, attempt + 1)
            attempt += 1

    def _attempt(self, prepared: Prepared) -> Union[Answer, TextMemoryError]:
        """One attempt: the answer, or the error it came to. httpx bounds connecting, sending and each
        wait for data by the timeout; the body must also be complete within it. A ``cancel`` does not
        cut an attempt short: once an answer arrives the work is done, and it is returned."""
        timeout = prepared.policy.timeout
        deadline = time.monotonic() + timeout
        try:
            request = self._http.build_request(
                prepared.method,
                prepared.url,
                headers=prepared.headers,
                content=prepared.content if prepared.spec.upload is None else prepared.spec.upload.chunks(),
                timeout=httpx.Timeout(timeout),
            )
            response = self._http.send(request, stream=True)
            try:
                chunks = []
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    if time.monotonic() > deadline:
                        raise httpx.ReadTimeout("deadline", request=request)
            finally:
                response.close()
            return self._core.outcome(prepared, response.status_code, response.headers, b"".join(chunks))
        except httpx.TimeoutException as exc:
            return self._core.failure(prepared, exc, timed_out=True)
        except httpx.TransportError as exc:
            return self._core.failure(prepared, exc, timed_out=False)


class Memory:
    """The data plane: write, recall, delete (API key)."""

    def __init__(self, client: TextMemory) -> None:
        self._client = client

    def write(
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
        cancel: Optional[threading.Event] = None,
    ) -> WriteResponse:
        """Retain one event. Safe to retry: the idempotency key (``evt_<uuid>`` when not given) is fixed
        before the first attempt, so a write whose answer was lost comes back ``Replayed`` on the retry,
        never doubled; without ``occurred_at`` the service uses the time it retains the write. ``recall=True`` (or a dict of query,
        top_k, as_of, explain) also recalls after the write, as ``related_recall``."""
        spec = write_spec(namespace, text, idempotency_key, event_id, occurred_at, source, supersedes, recall)
        data = self._client._request(spec, timeout, max_retries, request_id, extra_headers, cancel).data
        if not recall:
            return WriteResponse(data)
        related = self.recall(
            namespace=namespace,
            **related_recall_args(text, recall),
            timeout=timeout,
            max_retries=max_retries,
            request_id=request_id,
            extra_headers=extra_headers,
            cancel=cancel,
        )
        return WriteResponse({**data, "related_recall": related.raw})

    def write_batch(
        self,
        *,
        namespace: str,
        items: Sequence[WriteBatchItem],
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
        cancel: Optional[threading.Event] = None,
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
        return WriteBatchResponse(self._client._request(spec, timeout, max_retries, request_id, extra_headers, cancel).data)

    def recall(
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
        cancel: Optional[threading.Event] = None,
    ) -> RecallResponse:
        """Rank retained text against ``query`` (top_k 1–100, server default 10). A result's ``score`` is
        the share of the query's term weight it holds (words rare in the namespace weigh more);
        ``explain=True`` gives each result an ``explanation``: the query's terms with their weights and
        whether the result holds each, and the function words that only break ties."""
        spec = recall_spec(namespace, query, top_k, as_of, explain)
        return RecallResponse(self._client._request(spec, timeout, max_retries, request_id, extra_headers, cancel).data)

    def delete(
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
        cancel: Optional[threading.Event] = None,
    ) -> DeleteReceipt:
        """Delete one namespace: its records, supersession relations and idempotency state. The server
        hides the records at once and deletes them as a job (202 and a status route); this polls the job
        (``on_progress`` gets each receipt) up to ``max_wait`` seconds, and returns the final receipt
        (``deletion.status == "completed"``), or the receipt as it stands when the wait ran out."""
        call = (timeout, max_retries, request_id, extra_headers, cancel)
        started = time.monotonic()
        spec = delete_spec(namespace)
        while True:
            try:
                receipt = self._client._request(spec, *call).data
                break
            except TextMemoryError as error:
                pause = delete_ask_again(error, time.monotonic() - started, max_wait)
                if pause is None:
                    raise
                self._client._pause(pause, cancel, 0)
        if on_progress is not None:
            on_progress(DeleteReceipt(receipt))
        while True:
            pause = delete_next_poll(receipt, time.monotonic() - started, max_wait, poll_interval)
            if pause is None:
                return DeleteReceipt(receipt)
            self._client._pause(pause, cancel, 0)
            receipt = self._client._request(deletion_spec(deletion_id(receipt)), *call).data
            if on_progress is not None:
                on_progress(DeleteReceipt(receipt))

    def deletion(
        self,
        deletion_id: str,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
        cancel: Optional[threading.Event] = None,
    ) -> DeleteReceipt:
        """A namespace deletion as it stands, by ``deletion.id`` from its receipt (one read, no waiting)."""
        spec = deletion_spec(deletion_id)
        return DeleteReceipt(self._client._request(spec, timeout, max_retries, request_id, extra_headers, cancel).data)


    def restore(
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
        cancel: Optional[threading.Event] = None,
    ) -> RestoreJob:
        """Restore an export file (the parsed JSON the export wrote) into a namespace of this key's
        tenant ([P20]): checked whole by the server (a 400 stores nothing), then written as a job that
        keeps event ids, times, text, source and supersessions (new memory ids). Polls the job
        (``on_progress`` gets each state) up to ``max_wait`` seconds unless ``wait=False``, and returns it:
        ``written`` (one write unit each), ``already_present`` (nothing stored), ``failed``
        (``restore_failures``). A second restore of the same file stores and bills nothing."""
        call = (timeout, max_retries, request_id, extra_headers, cancel)
        started = time.monotonic()
        job = self._client._request(restore_spec(file, namespace, from_namespace), *call).data
        if on_progress is not None:
            on_progress(RestoreJob(job))
        while wait:
            pause = restore_next_poll(job, time.monotonic() - started, max_wait, poll_interval)
            if pause is None:
                break
            self._client._pause(pause, cancel, 0)
            job = self._client._request(restore_status_spec(str(job['id'])), *call).data
            if on_progress is not None:
                on_progress(RestoreJob(job))
        return RestoreJob(job)

    def restore_status(
        self,
        restore_id: str,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
        cancel: Optional[threading.Event] = None,
    ) -> RestoreJob:
        """A restore job as it stands (one read, no waiting)."""
        spec = restore_status_spec(restore_id)
        return RestoreJob(self._client._request(spec, timeout, max_retries, request_id, extra_headers, cancel).data)

    def restore_failures(
        self,
        restore_id: str,
        *,
        limit: Optional[int] = None,
        offset: Optional[int] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
        cancel: Optional[threading.Event] = None,
    ) -> RestoreFailurePage:
        """Records a restore could not write, by event id, with a reason (never their text)."""
        spec = restore_failures_spec(restore_id, limit, offset)
        return RestoreFailurePage(self._client._request(spec, timeout, max_retries, request_id, extra_headers, cancel).data)

class Infrastructure(InfrastructureCalls[Result]):
    """Health, liveness, capabilities, status, the request history, telemetry, the namespace listing
    and the export."""

    def __init__(self, client: TextMemory) -> None:
        super().__init__(client._run, lambda: client._core.operator_token)
        self._client = client

    def events(
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
    ) -> Iterator[RequestEvent]:
        """Every record of the request history from ``offset`` on, newest first, fetching page after
        page (``limit`` rows each) as the loop asks: ``for e in tm.infrastructure.events(outcome="failed")``.
        Pages after the first follow ``next_cursor``, so records arriving meanwhile neither repeat nor
        skip a record."""
        pages = EventPages(events_query(limit, offset, None, operation, outcome, status, from_, to))
        spec: Optional[Spec] = pages.first()
        while spec is not None:
            page = self._client._request(spec, **call).data
            yield from pages.rows(page)
            spec = pages.next(page)

    def export_to(
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
            written, request_id = self._client._stream_to(export_spec(namespace), sink, call)
        finally:
            if owned:
                sink.close()
        return Result({"bytes": written, "request_id": request_id})

    def _get(
        self, spec: Spec, timeout: Optional[float], max_retries: Optional[int], request_id: Optional[str], cancel: Optional[threading.Event]
    ) -> Answer:
        return self._client._request(spec, timeout, max_retries, request_id, None, cancel)

    def health(
        self,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        cancel: Optional[threading.Event] = None,
    ) -> Union[HealthResponse, HealthUnavailable]:
        """Readiness (public). ``available`` says whether writes can be served; when not, the server's
        503 carries the same report, returned, not raised: a health check asks for the state."""
        answer = self._get(HEALTH, timeout, max_retries, request_id, cancel)
        return HealthResponse(answer.data) if answer.status == 200 else HealthUnavailable(answer.data)

    def live(
        self,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        cancel: Optional[threading.Event] = None,
    ) -> LivenessResponse:
        """Liveness (public): the gateway process runs."""
        return LivenessResponse(self._get(LIVE, timeout, max_retries, request_id, cancel).data)

    def capabilities(
        self,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        cancel: Optional[threading.Event] = None,
    ) -> CapabilitiesResponse:
        """Operations, guarantees, limitations and input limits (public)."""
        return CapabilitiesResponse(self._get(CAPABILITIES, timeout, max_retries, request_id, cancel).data)

    def status(
        self,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        cancel: Optional[threading.Event] = None,
    ) -> StatusResponse:
        """Health, monitoring and versions for the tenant (API key or session)."""
        return StatusResponse(self._get(STATUS, timeout, max_retries, request_id, cancel).data)



class Webhooks(WebhookCalls[Result]):
    """Webhook endpoints and their delivery log ([P20], an owner's or admin's session)."""

    def __init__(self, client: TextMemory) -> None:
        super().__init__(client._run)
        self._client = client

    def deliveries(self, id: str, *, limit: Optional[int] = None, **call: Any) -> Iterator[WebhookDelivery]:
        """Every delivery of the endpoint, newest first, fetching page after page (``limit`` each) as
        the loop asks: ``for d in tm.control.webhooks.deliveries(endpoint_id)``. Pages after the first
        follow ``next_cursor``, so deliveries made meanwhile neither repeat nor skip one."""
        pages = DeliveryPages(id, limit)
        spec: Optional[Spec] = pages.page(None)
        while spec is not None:
            page = self._client._request(spec, **call).data
            yield from pages.rows(page)
            spec = pages.next(page)


class Imports(ImportCalls[Result]):
    """Document import (``/v1/imports``, API key with memory:write): upload (or ``from_dataset``) →
    estimate → ``start`` → ``wait``; ``get`` and ``failures`` read the job."""

    def __init__(self, client: TextMemory) -> None:
        super().__init__(client._run)
        self._client = client

    def upload(
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
        64 KiB. Each upload makes a new job: a lost answer is not repeated (a 429 still is)."""
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
        return ImportJob((self._client._request(spec, **call)).data)

    def wait(
        self,
        import_id: str,
        *,
        poll_interval: float = 1.0,
        max_wait: Optional[float] = None,
        on_progress: Optional[Callable[[ImportJob], None]] = None,
        **call: Any,
    ) -> ImportJob:
        """Poll until the job is ``completed``, ``failed`` or ``expired`` (``on_progress`` gets the job
        after each poll); the last job. With ``max_wait`` (seconds), the job as it stands when it ran out."""
        started = time.monotonic()
        while True:
            job = self._client._request(import_spec(import_id), **call).data
            if on_progress is not None:
                on_progress(ImportJob(job))
            if import_finished(job) or (max_wait is not None and time.monotonic() - started + poll_interval > max_wait):
                return ImportJob(job)
            self._client._pause(poll_interval, call.get("cancel"), 0)
