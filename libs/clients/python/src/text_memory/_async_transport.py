"""The async client's I/O over ``httpx.AsyncClient``: a call sent and retried, one attempt, an answer
streamed into a file (cancelling the task stops any of them). This and _transport.py are the only code
the two clients do not share: the clients themselves are one source (_client.py is generated from
_async_client.py) over the shared core (_core.py)."""

from __future__ import annotations

import asyncio
from typing import IO, Any, Mapping, Optional, Tuple, Union

import httpx

from ._core import Answer, Core, Prepared, Spec
from ._errors import TextMemoryError


class AsyncTransport:
    """Sends a client's calls through its ``httpx.AsyncClient``, retrying as the core decides."""

    def __init__(self, core: Core, http: httpx.AsyncClient) -> None:
        self._core = core
        self._http = http

    async def request(
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

    async def stream_to(self, spec: Spec, sink: IO[bytes], call: Mapping[str, Any]) -> Tuple[int, Optional[str]]:
        """A GET whose 2xx body is copied into ``sink`` as it arrives: the bytes written and the request
        id. Retried as any call until the body starts; a body that breaks off is not (its bytes are
        written). The timeout bounds the wait for the answer and each wait for data, not the transfer."""
        prepared = self._core.prepare(spec, **call)
        timeout = prepared.policy.timeout
        attempt = 0
        while True:
            try:
                request = self._http.build_request(
                    prepared.method, prepared.url, headers=prepared.headers, timeout=httpx.Timeout(timeout)
                )
                response = await asyncio.wait_for(self._http.send(request, stream=True), timeout)
            except (asyncio.TimeoutError, httpx.TimeoutException) as exc:
                outcome: Union[Answer, TextMemoryError] = self._core.failure(prepared, exc, timed_out=True)
            except httpx.TransportError as exc:
                outcome = self._core.failure(prepared, exc, timed_out=False)
            else:
                try:
                    request_id = response.headers.get("x-request-id")
                    if 200 <= response.status_code < 300:
                        written = 0
                        try:
                            async for chunk in response.aiter_bytes():
                                sink.write(chunk)
                                written += len(chunk)
                        except httpx.TransportError as exc:
                            raise self._core.broken_off(prepared, exc, written, request_id) from None
                        return written, request_id
                    try:
                        body = await asyncio.wait_for(response.aread(), timeout)
                    except (asyncio.TimeoutError, httpx.TransportError) as exc:
                        outcome = self._core.failure(prepared, exc, timed_out=not isinstance(exc, httpx.NetworkError))
                    else:
                        outcome = self._core.outcome(prepared, response.status_code, response.headers, body)
                finally:
                    await response.aclose()
            assert isinstance(outcome, TextMemoryError)
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
            content=prepared.content if prepared.spec.upload is None else prepared.spec.upload.achunks(),
            timeout=httpx.Timeout(timeout),
        )
        response = await self._http.send(request, stream=True)
        try:
            body = await response.aread()
        finally:
            await response.aclose()
        return self._core.outcome(prepared, response.status_code, response.headers, body)
