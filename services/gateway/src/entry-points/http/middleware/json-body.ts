import type { IncomingMessage } from 'node:http';
import { AppError, ErrorCode, jsonNestsDeeperThan, LIMITS } from '@tm/contracts';
import express, { type RequestHandler } from 'express';

const hasBody = (req: Parameters<RequestHandler>[0]) =>
  req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;

/** body-parser's mark for a body refused for its depth; error-handler.ts answers it. */
export const TOO_DEEP = 'entity.too.deep';

/**
 * Runs on the raw bytes, before JSON.parse: a body nested deeper than the limit is refused without a
 * tree being built. body-parser has checked the charset is a UTF one; anything but UTF-8 (which no
 * client sends in practice) is decoded first, so the scan sees the characters JSON.parse will.
 */
function refuseDeepNesting(_req: IncomingMessage, _res: unknown, raw: Buffer, encoding: string): void {
  const text = encoding === 'utf-8' ? raw : new TextDecoder(encoding).decode(raw);
  if (jsonNestsDeeperThan(text, LIMITS.bodyMaxDepth)) {
    throw Object.assign(new Error('body nests too deep'), { type: TOO_DEEP });
  }
}

/**
 * Bodies are JSON only, and bounded in size and depth; anything else is refused before a route sees it.
 * `limit` is LIMITS.bodyMaxBytes but for a route with a bound of its own (the batch write's).
 */
export const jsonBodyUpTo = (limit: number): RequestHandler[] => [
  (req, _res, next) => {
    if (hasBody(req) && !req.is('application/json')) {
      throw new AppError(
        ErrorCode.UnsupportedMediaType,
        'Request bodies must be JSON (Content-Type: application/json)',
      );
    }
    next();
  },
  express.json({ limit, strict: true, verify: refuseDeepNesting }),
];

export const jsonBody: RequestHandler[] = jsonBodyUpTo(LIMITS.bodyMaxBytes);
