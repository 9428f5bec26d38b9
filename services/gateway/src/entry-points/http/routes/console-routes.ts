import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { AppError, ErrorCode } from '@tm/contracts';
import express, { type RequestHandler, Router } from 'express';

/** The console package's build (libs/clients/console/dist), unless CONSOLE_DIR names another. */
export function defaultConsoleDir(): string {
  const manifest = createRequire(import.meta.url).resolve('@text-memory/console/package.json');
  return join(dirname(manifest), 'dist');
}

/**
 * Only what the console's own files need: scripts and styles from this origin, calls to this origin,
 * no frames. Recharts draws with inline style attributes, hence 'unsafe-inline' for styles alone.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const consoleHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  next();
};

/**
 * The web console at /console: its hashed assets cached for a year, index.html for every other path
 * under it (the console routes in the browser). Without a build, /console says how to make one.
 */
export function consoleRoutes(dir: string): Router {
  const router = Router();
  router.use(consoleHeaders);
  const index = join(dir, 'index.html');
  if (!existsSync(index)) {
    router.use(() => {
      throw new AppError(ErrorCode.NotFound, 'The console is not built on this deployment (npm run build)');
    });
    return router;
  }
  router.use(
    '/assets',
    express.static(join(dir, 'assets'), {
      index: false,
      setHeaders: (res) => res.setHeader('Cache-Control', 'public, max-age=31536000, immutable'),
    }),
  );
  router.use('/assets', (req) => {
    throw new AppError(ErrorCode.NotFound, `No console asset ${req.path}`);
  });
  router.get('/{*path}', (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
  return router;
}
