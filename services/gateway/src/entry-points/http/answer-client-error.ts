import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { AppError, CONTRACT_VERSION, ErrorCode, type ErrorEnvelope } from '@tm/contracts';

/** Node's parser codes for requests it refuses before Express sees them. */
const REFUSALS: Record<string, { status: number; error: AppError }> = {
  HPE_HEADER_OVERFLOW: {
    status: 431,
    error: new AppError(ErrorCode.HeadersTooLarge, 'Request headers are larger than the limit'),
  },
  // The headers or the whole request took longer than the server allows (server.ts).
  ERR_HTTP_REQUEST_TIMEOUT: {
    status: 408,
    error: new AppError(ErrorCode.RequestTimeout, 'The request was not received in time'),
  },
};
const MALFORMED = new AppError(ErrorCode.MalformedRequest, 'The request is not valid HTTP');

/**
 * A request Node's HTTP parser refuses (oversized headers, a control character in the URL, a broken
 * request line, headers or a body sent too slowly) never reaches Express, or is cut off from it; Node
 * would answer a bare 400, 408 or 431. Answer with the spec's envelope instead, then close: the
 * connection cannot be trusted to carry another request.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  // Part of an answer is out already (a route answered before a slow body was all in): nothing can
  // follow it on this connection.
  const answered = (socket as Partial<Socket>).bytesWritten ?? 0;
  if (!socket.writable || err.code === 'ECONNRESET' || answered > 0) {
    socket.destroy();
    return;
  }
  const { status, error } = REFUSALS[err.code ?? ''] ?? { status: 400, error: MALFORMED };
  const requestId = `req_${randomUUID()}`;
  const body = JSON.stringify({
    contract_version: CONTRACT_VERSION,
    error: error.message,
    retryable: false,
    request_id: requestId,
    details: { code: error.code, request_id: requestId },
  } satisfies ErrorEnvelope);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}
