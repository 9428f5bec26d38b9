"""The async client: the sync one (_client.py) with awaits; everything else is the shared core (_core.py)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable, Mapping, Optional, Sequence, Union

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
    delete_ask_again,
    delete_next_poll,
    delete_spec,
    deletion_id,
    deletion_spec,
    recall_spec,
    related_recall_args,
    write_spec,
)
from ._errors import TextMemoryError
from ._result import Result
from ._retry import RetryPolicy
from ._version import USER_AGENT


class AsyncTextMemory:
    """The Text-Memory client (async: ``async with AsyncTextMemory() as tm``). Methods are grouped by family: ``memory`` (write, recall,
    delete) and ``infrastructure`` (health, live, capabilities, status). Use it with ``async with``,
    or await ``aclose()``, to release its connections.

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
        self.memory = AsyncMemory(self)
        self.infrastructure = AsyncInfrastructure(self)

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

    async def _request(
        self,
        spec: Spec,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Answer:
        prepared = self._core.prepare(
            spec, timeout=timeout, max_retries=max_retries, request_id=request_id, extra_headers=extra_headers
        )
        attempt = 0
        while True:
            outcome = await self._attempt(prepared)
            if isinstance(outcome, Answer):
                return outcome
            delay = self._core.retry_delay(prepared, outcome, attempt)
            if delay is None:
                raise outcome
            await asyncio.sleep(delay)
            attempt += 1

    async def _attempt(self, prepared: Prepared) -> Union[Answer, TextMemoryError]:
        """One attempt: the answer, or the error it came to. The whole attempt, from sending to the end
        of the answer's body, is bounded by the timeout (and httpx's own timeouts by the same)."""
        timeout = prepared.policy.timeout
        try:
            return await asyncio.wait_for(self._send(prepared, timeout), timeout)
        except asyncio.TimeoutError as exc:
            return self._core.failure(prepared, exc, timed_out=True)
        except httpx.TimeoutException as exc:
            return self._core.failure(prepared, exc, timed_out=True)
        except httpx.TransportError as exc:
            return self._core.failure(prepared, exc, timed_out=False)

    async def _send(self, prepared: Prepared, timeout: float) -> Union[Answer, TextMemoryError]:
        request = self._http.build_request(
            prepared.method,
            prepared.url,
            headers=prepared.headers,
            content=prepared.content,
            timeout=httpx.Timeout(timeout),
        )
        response = await self._http.send(request, stream=True)
        try:
            body = await response.aread()
        finally:
            await response.aclose()
        return self._core.outcome(prepared, response.status_code, response.headers, body)


class AsyncMemory:
    """The data plane: write, recall, delete (API key)."""

    def __init__(self, client: AsyncTextMemory) -> None:
        self._client = client

    async def write(
        self,
        *,
        namespace: str,
        text: str,
        idempotency_key: Optional[str] = None,
        event_id: Optional[str] = None,
        occurred_at: Optional[Time] = None,
        source: Optional[Mapping[str, Any]] = None,
        supersedes: Optional[Sequence[str]] = None,
        recall: RecallOption = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Result:
        """Retain one event. Safe to retry: the idempotency key (``evt_<uuid>`` when not given) and
        ``occurred_at`` (now) are fixed before the first attempt, so a write whose answer was lost
        comes back ``Replayed`` on the retry, never doubled. ``recall=True`` (or a dict of query,
        top_k, as_of) also recalls after the write, as ``related_recall``."""
        spec = write_spec(namespace, text, idempotency_key, event_id, occurred_at, source, supersedes, recall)
        data = (await self._client._request(spec, timeout, max_retries, request_id, extra_headers)).data
        if not recall:
            return Result(data)
        related = await self.recall(
            namespace=namespace,
            **related_recall_args(text, recall),
            timeout=timeout,
            max_retries=max_retries,
            request_id=request_id,
            extra_headers=extra_headers,
        )
        return Result({**data, "related_recall": related.raw})

    async def recall(
        self,
        *,
        namespace: str,
        query: str,
        top_k: Optional[int] = None,
        as_of: Optional[Time] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Result:
        """Rank retained text by lexical overlap with ``query`` (top_k 1–100, server default 10)."""
        spec = recall_spec(namespace, query, top_k, as_of)
        return Result((await self._client._request(spec, timeout, max_retries, request_id, extra_headers)).data)

    async def delete(
        self,
        *,
        namespace: str,
        on_progress: Optional[Callable[[Result], None]] = None,
        max_wait: float = DELETE_MAX_WAIT,
        poll_interval: Optional[float] = None,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Result:
        """Delete one namespace: its records, supersession relations and idempotency state. The server
        hides the records at once and deletes them as a job (202 and a status route); this polls the job
        (``on_progress`` gets each receipt) up to ``max_wait`` seconds, and returns the final receipt
        (``deletion.status == "completed"``), or the receipt as it stands when the wait ran out."""
        call = (timeout, max_retries, request_id, extra_headers)
        started = time.monotonic()
        spec = delete_spec(namespace)
        while True:
            try:
                receipt = (await self._client._request(spec, *call)).data
                break
            except TextMemoryError as error:
                pause = delete_ask_again(error, time.monotonic() - started, max_wait)
                if pause is None:
                    raise
                await asyncio.sleep(pause)
        if on_progress is not None:
            on_progress(Result(receipt))
        while True:
            pause = delete_next_poll(receipt, time.monotonic() - started, max_wait, poll_interval)
            if pause is None:
                return Result(receipt)
            await asyncio.sleep(pause)
            receipt = (await self._client._request(deletion_spec(deletion_id(receipt)), *call)).data
            if on_progress is not None:
                on_progress(Result(receipt))

    async def deletion(
        self,
        deletion_id: str,
        *,
        timeout: Optional[float] = None,
        max_retries: Optional[int] = None,
        request_id: Optional[str] = None,
        extra_headers: Optional[Mapping[str, str]] = None,
    ) -> Result:
        """A namespace deletion as it stands, by ``deletion.id`` from its receipt (one read, no waiting)."""
        spec = deletion_spec(deletion_id)
        return Result((await self._client._request(spec, timeout, max_retries, request_id, extra_headers)).data)


class AsyncInfrastructure:
    """Health, liveness, capabilities and status."""

    def __init__(self, client: AsyncTextMemory) -> None:
        self._client = client

    async def _get(self, spec: Spec, timeout: Optional[float], max_retries: Optional[int], request_id: Optional[str]) -> Result:
        return Result((await self._client._request(spec, timeout, max_retries, request_id)).data)

    async def health(
        self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None, request_id: Optional[str] = None
    ) -> Result:
        """Readiness (public). ``available`` says whether writes can be served; when not, the server's
        503 carries the same report, returned, not raised: a health check asks for the state."""
        return await self._get(HEALTH, timeout, max_retries, request_id)

    async def live(
        self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None, request_id: Optional[str] = None
    ) -> Result:
        """Liveness (public): the gateway process runs."""
        return await self._get(LIVE, timeout, max_retries, request_id)

    async def capabilities(
        self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None, request_id: Optional[str] = None
    ) -> Result:
        """Operations, guarantees, limitations and input limits (public)."""
        return await self._get(CAPABILITIES, timeout, max_retries, request_id)

    async def status(
        self, *, timeout: Optional[float] = None, max_retries: Optional[int] = None, request_id: Optional[str] = None
    ) -> Result:
        """Health, monitoring and versions for the tenant (API key or session)."""
        return await self._get(STATUS, timeout, max_retries, request_id)

