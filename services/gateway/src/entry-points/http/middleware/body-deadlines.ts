import { AppError, ErrorCode, LIMITS } from '@tm/contracts';
import type { Logger } from '@tm/kit';
import type { Request, RequestHandler } from 'express';
import { answerWithError } from './error-handler.js';

export interface BodyDeadlines {
  /** The longest silence between body bytes (GATEWAY_BODY_IDLE_TIMEOUT_MS). */
  idleMs: number;
  /** The slowest average a body may arrive at (GATEWAY_BODY_MIN_BYTES_PER_SECOND). */
  minBytesPerSecond: number;
  /** The server's whole-request bound (GATEWAY_HTTP_REQUEST_TIMEOUT_MS): no body is given longer. */
  maxMs: number;
  /** A multipart upload's own silence bound (IMPORT_UPLOAD_TIMEOUT_MS). */
  upload: { stallMs: number };
}

const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * The time a body is given: one idle period plus its size at the minimum rate, within the server's
 * bound. The size is the declared Content-Length (a body over its route's limit is refused 413 on that
 * header, unread); a chunked one is sized at the default JSON bound. An upload keeps the server's
 * whole-request bound, sized for IMPORT_MAX_BYTES: the route holds its body back while it streams the
 * file on, so a rate measured here would count our pauses against the client.
 */
function deadlineMs(req: Request, limits: BodyDeadlines, multipart: boolean): number {
  if (multipart) return limits.maxMs;
  const declared = Number(req.headers['content-length']);
  const size = Number.isFinite(declared) ? declared : LIMITS.bodyMaxBytes;
  return Math.min(limits.maxMs, limits.idleMs + (size / limits.minBytesPerSecond) * 1000);
}

/**
 * Bounds how a request body arrives, on every route: no byte for `idleMs` (a multipart upload: the
 * upload route's own stall bound, answered there as `upload_timeout`, plus `idleMs`), or the body
 * not all in by its deadline, is 408 `request_timeout` and the connection is closed; the route never
 * sees a body, so nothing is stored. Node bounds only the headers and the whole request (300 s, sized
 * for uploads): a probe held 1,000 connections with one byte of a 100-byte body each, and each was
 * kept at least 35 s. Progress is read from the socket's byte count, which does not consume the body;
 * bytes received but not yet read by the route are our delay, not the client's silence.
 */
export function boundRequestBodies(limits: BodyDeadlines, logger: Logger): RequestHandler {
  return (req, res, next) => {
    if (!hasBody(req)) {
      next();
      return;
    }
    const multipart = req.is('multipart/form-data') === 'multipart/form-data';
    // An upload's silence is its route's to judge (upload_timeout, timed from the route's own reads);
    // here it is only backed up, one idle period later, so the route's answer comes first.
    const idleMs = multipart ? limits.upload.stallMs + limits.idleMs : limits.idleMs;
    const started = performance.now();
    const deadline = started + deadlineMs(req, limits, multipart);
    const socket = req.socket;
    let bytesSeen = socket.bytesRead;
    let lastProgress = started;
    // Sampled, not timed per byte: a quarter of the idle bound, at most a second, between looks.
    const every = Math.max(10, Math.min(1_000, Math.ceil(idleMs / 4)));
    const timer = setInterval(() => {
      if (req.complete || socket.destroyed) {
        clearInterval(timer);
        return;
      }
      const now = performance.now();
      if (socket.bytesRead !== bytesSeen || req.readableLength > 0) {
        bytesSeen = socket.bytesRead;
        lastProgress = now;
      }
      if (now - lastProgress < idleMs && now < deadline) return;
      clearInterval(timer);
      // Answered already (a refusal before the body was read): nothing can follow on this connection.
      if (res.headersSent) {
        socket.destroy();
        return;
      }
      // The deadline and the idle bound of a body that stalled early end within a look or two of each
      // other, and looks are late or early by the loop's load: a body that sent nothing for half the
      // idle bound stalled (one still coming shows progress at nearly every look), so it is named so.
      const silent = now - lastProgress >= idleMs / 2;
      const waited = silent ? `sent nothing for ${Math.round(idleMs / 1000)} s` : 'was too slow';
      res.setHeader('Connection', 'close');
      answerWithError(
        req,
        res,
        new AppError(ErrorCode.RequestTimeout, `The request body ${waited} and was abandoned`),
        logger,
      );
    }, every);
    // A body read to its end needs no more looks: most requests, cleared now rather than at the next tick.
    req.once('end', () => clearInterval(timer));
    next();
  };
}
