"""An import's file as a multipart/form-data body written by hand, read in chunks as the connection
takes them, so that progress counts file bytes sent (as the TypeScript SDK's streamed upload does)."""

from __future__ import annotations

import os
import uuid
from dataclasses import dataclass
from typing import IO, AsyncIterator, Callable, Iterator, List, Optional, Tuple, Union

CHUNK_BYTES = 64 * 1024

#: A file path, the bytes themselves, or a binary file object open for reading (seekable: a retry
#: after a 429 sends it again from where it started).
FileSource = Union[str, "os.PathLike[str]", bytes, IO[bytes]]


@dataclass(frozen=True)
class UploadProgress:
    """Given to ``on_progress``: file bytes handed to the connection so far, of ``total_bytes``."""

    sent_bytes: int
    total_bytes: int


def _quoted(value: str) -> str:
    """Quotes and line breaks cannot appear in a Content-Disposition value; percent-encode them as browsers do."""
    return value.replace('"', "%22").replace("\r", "%0D").replace("\n", "%0A")


class Upload:
    """The body of ``POST /v1/imports`` with a file: the fields, then the file part last (the server
    does not read fields after it). Each attempt reads the file again from its start."""

    def __init__(
        self,
        file: FileSource,
        filename: Optional[str],
        fields: List[Tuple[str, str]],
        on_progress: Optional[Callable[[UploadProgress], None]],
    ) -> None:
        self._file = file
        self._on_progress = on_progress
        if isinstance(file, (bytes, bytearray)):
            self.file_bytes = len(file)
            default_name = "upload"
            self._start = 0
        elif isinstance(file, (str, os.PathLike)):
            self.file_bytes = os.path.getsize(file)
            default_name = os.path.basename(os.fspath(file))
            self._start = 0
        else:
            self._start = file.tell()
            self.file_bytes = file.seek(0, os.SEEK_END) - self._start
            file.seek(self._start)
            name = getattr(file, "name", None)
            default_name = os.path.basename(name) if isinstance(name, str) and name else "upload"
        self.filename = filename or default_name
        boundary = f"----tm-sdk-{uuid.uuid4()}"
        head = "".join(f'--{boundary}\r\nContent-Disposition: form-data; name="{n}"\r\n\r\n{v}\r\n' for n, v in fields)
        head += (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{_quoted(self.filename)}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n"
        )
        self._head = head.encode("utf-8")
        self._tail = f"\r\n--{boundary}--\r\n".encode("ascii")
        self.content_type = f"multipart/form-data; boundary={boundary}"
        self.content_length = len(self._head) + self.file_bytes + len(self._tail)

    def progress(self, sent: int) -> None:
        if self._on_progress is not None:
            self._on_progress(UploadProgress(sent_bytes=sent, total_bytes=self.file_bytes))

    def chunks(self) -> Iterator[bytes]:
        """The body, chunk by chunk; progress is told as each file chunk is handed over."""
        yield self._head
        self.progress(0)
        sent = 0
        if isinstance(self._file, (bytes, bytearray)):
            for offset in range(0, len(self._file), CHUNK_BYTES):
                chunk = bytes(self._file[offset : offset + CHUNK_BYTES])
                yield chunk
                sent += len(chunk)
                self.progress(sent)
        else:
            opened = isinstance(self._file, (str, os.PathLike))
            handle: IO[bytes] = open(self._file, "rb") if isinstance(self._file, (str, os.PathLike)) else self._file
            try:
                handle.seek(self._start)
                while sent < self.file_bytes:
                    chunk = handle.read(min(CHUNK_BYTES, self.file_bytes - sent))
                    if not chunk:
                        raise OSError(f"the file ended after {sent} of {self.file_bytes} bytes")
                    yield chunk
                    sent += len(chunk)
                    self.progress(sent)
            finally:
                if opened:
                    handle.close()
        yield self._tail

    async def achunks(self) -> AsyncIterator[bytes]:
        """The same body for the async client (the file is read in 64 KiB chunks between sends)."""
        for chunk in self.chunks():
            yield chunk
