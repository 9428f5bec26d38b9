import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueNamespace } from '../support/factories.js';
import { recordSecrets } from '../support/log-capture.js';
import { useStack } from '../support/stack.js';
import { type StubHub, startStubHub } from '../support/stub-hub.js';

let hub: StubHub;
beforeAll(async () => {
  hub = await startStubHub();
});
afterAll(() => hub?.close());
const t = useStack({ templateEnv: () => ({ ...hub.env, IMPORT_POLL_MS: '100' }) });

/** The run's log lines for one request id; the access line is written once the response is out. */
async function logLinesOf(requestId: string) {
  return eventually(() => {
    const lines = readFileSync(inject('logCapture').logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes(requestId));
    expect(lines.some((line) => line.includes('request completed'))).toBe(true);
    return lines.map((line) => JSON.parse(line));
  });
}

const wholeLog = () => readFileSync(inject('logCapture').logFile, 'utf8');

// The global teardown checks every credential over the whole run (credential-leak-check.ts); these
// show, per request, that a refused key and a login are logged, and logged without their secrets.
describe('what the gateway logs about credentials', () => {
  it('when an unknown API key is refused with 401, then the request is logged without the key or header', async () => {
    const unknownKey = `tmk_${randomBytes(4).toString('hex')}_${randomBytes(24).toString('base64url')}`;
    const requestId = `req-log-${randomUUID()}`;

    const res = await t.api.post('/api/v1/memory/recall', {
      key: unknownKey,
      headers: { 'X-Request-Id': requestId },
      body: recallBody(uniqueNamespace(), 'x'),
    });

    expect(res.status).toBe(401);
    const lines = await logLinesOf(requestId);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'request completed',
        req: { id: requestId, method: 'POST', path: '/api/v1/memory/recall' },
        res: { status: 401 },
      }),
    );
    expect(JSON.stringify(lines)).not.toMatch(/authorization|bearer/i);
    expect(wholeLog()).not.toContain(unknownKey);
  });

  it('when an owner logs in, creates a key and uses it, then the log has the requests but no password, token or key', async () => {
    const tenant = await createTenant();
    const requestId = `req-log-${randomUUID()}`;

    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const created = await t.api.post('/api/v1/control/api-keys', {
      key: session,
      body: { name: 'logged-key' },
      headers: { 'X-Request-Id': requestId },
    });
    const used = await t.api.recall(created.body.key, recallBody(uniqueNamespace(), 'x'));

    expect(created.status).toBe(201);
    expect(used.status).toBe(200);
    expect(await logLinesOf(requestId)).toContainEqual(
      expect.objectContaining({ msg: 'request completed', res: { status: 201 } }),
    );
    const log = wholeLog();
    for (const secret of [tenant.owner.password, tenant.api_key, session, created.body.key]) {
      expect(log).not.toContain(secret);
    }
  });
});

describe('what is logged about a hub token', () => {
  it('when a gated dataset is imported with a hub token, refused with another, then neither token is logged or answered', async () => {
    const token = `hf_${randomBytes(24).toString('base64url')}`;
    const wrong = `hf_${randomBytes(24).toString('base64url')}`;
    recordSecrets([token, wrong]);
    const dataset = `log-org/gated-${randomUUID().slice(0, 8)}`;
    hub.add({
      id: dataset,
      sha: randomBytes(20).toString('hex'),
      token,
      columns: ['q'],
      configs: { default: { train: [{ q: 'one' }, { q: 'two' }] } },
    });
    const tenant = await createTenant();
    const requestId = `req-log-${randomUUID()}`;
    const body = { dataset, split: 'train', format: '{q}', namespace: uniqueNamespace('hub-log') };

    const refused = await t.api.post('/v1/imports', {
      key: tenant.api_key,
      body: { ...body, hub_token: wrong },
    });
    const created = await t.api.post('/v1/imports', {
      key: tenant.api_key,
      body: { ...body, hub_token: token },
      headers: { 'X-Request-Id': requestId },
    });
    await t.api.post(`/v1/imports/${created.body.id}/start`, { key: tenant.api_key });
    const done = await eventually(async () => {
      const res = await t.api.get(`/v1/imports/${created.body.id}`, { key: tenant.api_key });
      expect(res.body.state).toBe('completed');
      return res;
    });

    expect(refused).toMatchObject({ status: 403, body: { details: { code: 'dataset_gated' } } });
    expect(done.body).toMatchObject({ retained: 2, failed: 0 });
    expect(await logLinesOf(requestId)).toContainEqual(
      expect.objectContaining({ msg: 'request completed', res: { status: 201 } }),
    );
    const log = wholeLog();
    expect(log).not.toContain(token);
    expect(log).not.toContain(wrong);
    expect(JSON.stringify([refused.body, created.body, done.body])).not.toMatch(
      new RegExp(`${token}|${wrong}`),
    );
  });
});
