"""A scripted local server: each request takes the next answer from the script, so a test says exactly
what the service does and counts what the SDK sent (as libs/clients/sdk/test/retry-policy.test.ts)."""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, Iterator, List, Optional

import pytest

API_KEY = "tmk_testtest_0123456789012345678901234567890123456789"


@dataclass
class Seen:
    method: str
    path: str
    headers: Dict[str, str]
    body: bytes


Answer = Callable[["Handler", bytes], None]


@dataclass
class Script:
    answers: List[Answer] = field(default_factory=list)
    seen: List[Seen] = field(default_factory=list)
    base_url: str = ""

    def keys_sent(self) -> List[Optional[str]]:
        return [s.headers.get("idempotency-key") for s in self.seen]

    def bodies(self) -> List[Any]:
        return [json.loads(s.body) for s in self.seen]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script: Script

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.script.seen.append(  # type: ignore[attr-defined]
            Seen(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        )
        answers: List[Answer] = self.server.script.answers  # type: ignore[attr-defined]
        answer = answers.pop(0) if answers else envelope(500, "internal_error", False)
        answer(self, body)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _handle

    def send_json(self, status: int, body: Any, headers: Optional[Dict[str, str]] = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def envelope(status: int, code: str, retryable: bool, extra: Optional[Dict[str, Any]] = None, headers: Optional[Dict[str, str]] = None) -> Answer:
    def answer(handler: Handler, _body: bytes) -> None:
        n = len(handler.server.script.seen)  # type: ignore[attr-defined]
        handler.send_json(
            status,
            {
                "contract_version": "v1",
                "error": f"failed with {code}",
                "retryable": retryable,
                "request_id": f"req-{n}",
                "details": {"code": code, "request_id": f"req-{n}"},
                **(extra or {}),
            },
            {"x-request-id": f"req-{n}", **(headers or {})},
        )

    return answer


def ok(body: Any = None, status: int = 200, headers: Optional[Dict[str, str]] = None) -> Answer:
    def answer(handler: Handler, _body: bytes) -> None:
        handler.send_json(status, {"ok": True} if body is None else body, headers)

    return answer


def never(handler: Handler, _body: bytes) -> None:
    """Answers nothing for a while: the client's timeout has to end the attempt."""
    time.sleep(2)
    handler.close_connection = True


def drop_connection(handler: Handler, _body: bytes) -> None:
    """Reads the whole request, then closes the socket without an answer: the write may have happened."""
    handler.close_connection = True
    handler.connection.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def server() -> Iterator[Script]:
    script = Script()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.script = script  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    script.base_url = f"http://127.0.0.1:{httpd.server_address[1]}"
    try:
        yield script
    finally:
        httpd.shutdown()
        httpd.server_close()
