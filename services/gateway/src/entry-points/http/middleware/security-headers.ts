import type { RequestHandler } from 'express';

/**
 * Every answer is per credential and some carry a secret shown once (a new API key, session token or
 * operator token): no cache may keep one. And no browser may guess a JSON body to be something else.
 */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  next();
};
