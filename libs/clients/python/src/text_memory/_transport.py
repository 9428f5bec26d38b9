"""The sync client's I/O over ``httpx.Client``: a call sent and retried, one attempt, an answer streamed
into a file, the pause before a retry or a poll, each stopped by a ``cancel`` event. This and
_async_transport.py are the only code the two clients do not share: the clients themselves are one
source (_client.py is generated from _async_client.py) over the shared core (_core.py)."""

from __future__ import annotations

import threading
import time
from typing import IO, Any, Mapping, Optional, Tuple, Union

import httpx

from ._core import Answer, Core, Prepared, Spec, aborted
from ._errors import TextMemoryError


class Transport:
    """Sends a client's calls through its ``httpx.Client``, retrying as the core decides."""

    def __init__(self, core: Core, http: httpx.Client) -> None:
        self._core = core
        self._http = http

    def request(
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
            self.pause(delay, cancel, attempt + 1)
            attempt += 1

    @staticmethod
    def pause(seconds: float, cancel: Optional[threading.Event], attempts: int = 0) -> None:
        """Sleep before a retry or a poll; a ``cancel`` set meanwhile ends the call at once."""
        if cancel is None:
            time.sleep(seconds)
        elif cancel.wait(seconds):
            raise aborted(attempts)

    def stream_to(self, spec: Spec, sink: IO[bytes], call: Mapping[str, Any]) -> Tuple[int, Optional[str]]:
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
            self.pause(delay, cancel, attempt + 1)
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
