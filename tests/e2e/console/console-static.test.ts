import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@tm/kit';
import express from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { errorHandler } from '../../../services/gateway/src/entry-points/http/middleware/error-handler.js';
import { consoleRoutes } from '../../../services/gateway/src/entry-points/http/routes/console-routes.js';

const silent = createLogger({ name: 'test', level: 'silent' });

function appServing(dir: string) {
  const app = express();
  app.use('/console', consoleRoutes(dir));
  app.use(errorHandler(silent));
  return app;
}

function builtConsole() {
  const dir = mkdtempSync(join(tmpdir(), 'tm-console-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log(1)');
  return dir;
}

describe('GET /console', () => {
  it('when a page of the console is asked for, then index.html with a policy that allows only this origin', async () => {
    const app = appServing(builtConsole());

    for (const path of ['/console', '/console/', '/console/api-keys', '/console/namespaces/x']) {
      const res = await request(app).get(path);

      expect(res.status, path).toBe(200);
      expect(res.type).toBe('text/html');
      expect(res.text).toContain('<title>console</title>');
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-security-policy']).toContain("script-src 'self'");
      expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('when a hashed asset is asked for, then it is served to be cached for good', async () => {
    const res = await request(appServing(builtConsole())).get('/console/assets/index-abc123.js');

    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('when an asset does not exist, then 404 in the error envelope, not index.html', async () => {
    const res = await request(appServing(builtConsole())).get('/console/assets/missing.js');

    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ details: { code: 'not_found' } });
  });

  it('when the console was never built, then 404 saying how to build it', async () => {
    const res = await request(appServing(mkdtempSync(join(tmpdir(), 'tm-empty-')))).get('/console');

    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({
      error: expect.stringContaining('not built'),
      details: { code: 'not_found' },
    });
  });
});
