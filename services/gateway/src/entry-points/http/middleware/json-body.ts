import { AppError, ErrorCode, LIMITS } from '@tm/contracts';
import express, { type RequestHandler } from 'express';

const hasBody = (req: Parameters<RequestHandler>[0]) =>
  req.get('transfer-encoding') !== undefined || Number(req.get('content-length') ?? 0) > 0;

/** Bodies are JSON only, and bounded; anything else is refused before a route sees it. */
export const jsonBody: RequestHandler[] = [
  (req, _res, next) => {
    if (hasBody(req) && !req.is('application/json')) {
      throw new AppError(
        ErrorCode.UnsupportedMediaType,
        'Request bodies must be JSON (Content-Type: application/json)',
      );
    }
    next();
  },
  express.json({ limit: LIMITS.bodyMaxBytes, strict: true }),
];
