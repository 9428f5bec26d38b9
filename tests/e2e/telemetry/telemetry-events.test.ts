import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { poolRunner } from '@tm/kit';
import { pruneRecordsBefore } from '@tm/telemetry';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { stackEnv, useStack } from '../support/stack.js';
import { allEvents, eventsFor, eventsWhen, telemetryDbRows } from '../support/telemetry.js';

// A per-key limit a minute that the paging test stays under and the rate-limit test can reach.
const LIMIT = 300;
const t = useStack({ gatewayEnv: { RATE_LIMIT_PER_KEY: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: '60' } });

const rid = (label: string) => `${label}-${randomUUID()}`;

describe('request records in the events history', () => {
  it('when a scripted sequence runs (200, 400, 401, 403, 404), then each request appears exactly once, redacted, with the key or user that made it', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const namespace = uniqueNamespace('private-ns');
    const text = `my secret diary entry ${randomUUID()}`;
    const cue = `secret diary ${randomUUID()}`;
    const ids = {
      write: rid('write'),
      recall: rid('recall'),
      invalid: rid('invalid'),
      unknownKey: rid('unknown-key'),
      sessionOnDataPlane: rid('session'),
      unmatched: rid('unmatched'),
      del: rid('delete'),
    };
    const headers = (id: string) => ({ 'X-Request-Id': id });

    const statuses = [
      (await t.api.write(tenant.api_key, writeBody(namespace, text), uniqueKey(), headers(ids.write))).status,
      (
        await t.api.post('/api/v1/memory/recall', {
          key: tenant.api_key,
          body: recallBody(namespace, cue),
          headers: headers(ids.recall),
        })
      ).status,
      (
        await t.api.post('/api/v1/memory/recall', {
          key: tenant.api_key,
          body: recallBody(namespace, cue, { top_k: 0 }),
          headers: headers(ids.invalid),
        })
      ).status,
      (
        await t.api.post('/api/v1/memory/recall', {
          key: `tmk_${'a'.repeat(8)}_${'b'.repeat(40)}`,
          body: recallBody(namespace, cue),
          headers: headers(ids.unknownKey),
        })
      ).status,
      (
        await t.api.post('/api/v1/memory/recall', {
          key: session,
          body: recallBody(namespace, cue),
          headers: headers(ids.sessionOnDataPlane),
        })
      ).status,
      (
        await t.api.get(`/api/v1/infrastructure/${namespace}/nothing-here`, {
          key: tenant.api_key,
          headers: headers(ids.unmatched),
        })
      ).status,
      (
        await t.api.delete('/api/v1/memory', {
          key: tenant.api_key,
          query: { namespace },
          headers: headers(ids.del),
        })
      ).status,
    ];
    expect(statuses).toEqual([200, 200, 400, 401, 403, 404, 200]);
    // The key's id, as the control plane lists it.
    const keys = await t.api.get('/api/v1/control/api-keys', { key: session });
    const keyId = keys.body.data.find((k: { prefix: string }) => tenant.api_key.startsWith(k.prefix))?.id;
    expect(keyId).toEqual(expect.any(String));

    const attributed = [ids.write, ids.recall, ids.invalid, ids.sessionOnDataPlane, ids.del];
    const events = await eventsFor(t.api, tenant.api_key, attributed);
    const byId = (id: string) => events.filter((e) => e.request_id === id);
    for (const id of attributed) expect(byId(id), id).toHaveLength(1);
    expect(byId(ids.write)[0]).toMatchObject({
      key_id: keyId,
      user_id: expect.any(String),
      method: 'POST',
      route: '/api/v1/memory/write',
      operation: 'memory.write',
      status: 200,
      outcome: 'accepted',
      state: 'retained',
      error_code: null,
      units: 1,
      billing_state: 'billable',
    });
    expect(byId(ids.recall)[0]).toMatchObject({
      operation: 'memory.recall',
      outcome: 'accepted',
      billing_state: 'billable',
    });
    expect(byId(ids.invalid)[0]).toMatchObject({
      status: 400,
      outcome: 'failed',
      error_code: 'validation_failed',
      units: 0,
      billing_state: 'no_data',
    });
    // A session names its user but no key.
    expect(byId(ids.sessionOnDataPlane)[0]).toMatchObject({
      key_id: null,
      user_id: byId(ids.write)[0]?.user_id,
    });
    expect(byId(ids.sessionOnDataPlane)[0]).toMatchObject({
      status: 403,
      outcome: 'blocked',
      error_code: 'credential_not_accepted',
    });
    expect(byId(ids.del)[0]).toMatchObject({
      operation: 'memory.delete',
      state: 'not_retained',
      status: 200,
    });

    // A 401 names no tenant, so it is in no tenant's history; it is stored, unattributed, once.
    expect(byId(ids.unknownKey)).toHaveLength(0);
    const unattributed = await telemetryDbRows(
      'SELECT tenant_id, status, route FROM request_record WHERE request_id = $1',
      [ids.unknownKey],
    );
    expect(unattributed).toEqual([{ tenant_id: null, status: 401, route: '/api/v1/memory/recall' }]);
    // A 404 on an unknown path authenticates nobody either, and never names the path typed (here: the namespace).
    await expect
      .poll(() =>
        telemetryDbRows('SELECT tenant_id, status, route FROM request_record WHERE request_id = $1', [
          ids.unmatched,
        ]),
      )
      .toEqual([{ tenant_id: null, status: 404, route: '(unmatched)' }]);

    // Nothing sent is kept: not the text, the cue, the namespace, the key or the session.
    const stored = JSON.stringify(await telemetryDbRows('SELECT * FROM request_record', []));
    const served = JSON.stringify(await allEvents(t.api, tenant.api_key));
    for (const secret of [text, cue, namespace, tenant.api_key, session, tenant.owner.password]) {
      expect(stored).not.toContain(secret);
      expect(served).not.toContain(secret);
    }
  });

  it('when the client hangs up before the answer, then the request is recorded once as 499, failed', async () => {
    const tenant = await createTenant();
    const id = rid('hung-up');
    const url = new URL('/api/v1/memory/write', t.stack.url);
    // Half a body: the gateway waits for the rest, and the client goes away instead.
    const req = http.request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': '1000',
        authorization: `Bearer ${tenant.api_key}`,
        'x-request-id': id,
      },
    });
    req.on('error', () => {});
    req.write('{"contract_version":"v1",');
    await new Promise((resolve) => setTimeout(resolve, 300));
    req.destroy();

    await expect
      .poll(
        () =>
          telemetryDbRows('SELECT status, outcome, route FROM request_record WHERE request_id = $1', [id]),
        {
          timeout: 10_000,
        },
      )
      .toEqual([{ status: 499, outcome: 'failed', route: '/api/v1/memory/write' }]);
  });

  it('when a key goes over its rate limit, then the 429 is in the history once, as blocked, and only there', async () => {
    const tenant = await createTenant();
    const other = await createTenant();
    let limited = '';
    let sent = 0;
    while (!limited && sent <= LIMIT) {
      const id = rid('usage');
      sent++;
      const res = await t.api.get('/api/v1/infrastructure/usage', {
        key: tenant.api_key,
        headers: { 'X-Request-Id': id },
      });
      if (res.status === 429) limited = id;
    }
    expect(limited).not.toBe('');
    // The key is spent for this window; its owner reads the history with a session.
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const events = await eventsWhen(
      t.api,
      session,
      (e) => e.filter((x) => x.route === '/api/v1/infrastructure/usage').length >= sent,
    );
    const blocked = events.filter((e) => e.status === 429);
    expect(blocked).toEqual([
      expect.objectContaining({
        request_id: limited,
        outcome: 'blocked',
        error_code: 'rate_limited',
        route: '/api/v1/infrastructure/usage',
      }),
    ]);
    expect(events.filter((e) => e.route === '/api/v1/infrastructure/usage')).toHaveLength(sent);
    expect(await allEvents(t.api, other.api_key)).toEqual([]);
  });

  it('when 250 requests were recorded, then pages of 100, 100 and 50 say where they are and whether more follows', async () => {
    const tenant = await createTenant();
    const own: string[] = [];
    for (let i = 0; i < 250; i++) {
      const id = rid(`own${i}`);
      own.push(id);
      const res = await t.api.get('/api/v1/infrastructure/usage', {
        key: tenant.api_key,
        headers: { 'X-Request-Id': id },
      });
      expect(res.status).toBe(200);
    }
    await eventsWhen(t.api, tenant.api_key, (events) => events.length >= 250);

    const page = (query: Record<string, string>) =>
      t.api.get('/api/v1/infrastructure/events', { key: tenant.api_key, query });
    const pages = [
      await page({}),
      await page({ offset: '100' }),
      await page({ limit: '100', offset: '200' }),
    ];
    expect(pages.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(pages.map((p) => p.body.data.length)).toEqual([100, 100, 50]);
    expect(pages.map((p) => p.body.paging)).toEqual([
      {
        limit: 100,
        offset: 0,
        returned: 100,
        total: 250,
        has_more: true,
        next_offset: 100,
        next_cursor: expect.any(String),
      },
      {
        limit: 100,
        offset: 100,
        returned: 100,
        total: 250,
        has_more: true,
        next_offset: 200,
        next_cursor: expect.any(String),
      },
      {
        limit: 100,
        offset: 200,
        returned: 50,
        total: 250,
        has_more: false,
        next_offset: null,
        next_cursor: null,
      },
    ]);
    // Newest first, every request once; the reads of the history are not in it.
    const ids = (p: { body: { data: Array<{ request_id: string }> } }) =>
      p.body.data.map((e) => e.request_id);
    const seen = pages.flatMap(ids);
    expect(seen).toEqual([...own].reverse());

    // The same history by cursor: each page starts after the last record of the one before.
    const byCursor = [await page({ limit: '120' })];
    for (let next = byCursor[0]?.body.paging.next_cursor; next; ) {
      const res = await page({ limit: '120', cursor: next });
      byCursor.push(res);
      next = res.body.paging.next_cursor;
    }
    expect(byCursor.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(byCursor.map((p) => p.body.paging)).toEqual([
      {
        limit: 120,
        offset: 0,
        returned: 120,
        total: 250,
        has_more: true,
        next_offset: 120,
        next_cursor: expect.any(String),
      },
      {
        limit: 120,
        offset: 0,
        returned: 120,
        total: 250,
        has_more: true,
        next_offset: null,
        next_cursor: expect.any(String),
      },
      {
        limit: 120,
        offset: 0,
        returned: 10,
        total: 250,
        has_more: false,
        next_offset: null,
        next_cursor: null,
      },
    ]);
    expect(byCursor.flatMap(ids)).toEqual(seen);
    // A cursor stays where it was: a page read by it again is the same page.
    const again = await page({ limit: '120', cursor: byCursor[0]?.body.paging.next_cursor });
    expect(ids(again)).toEqual(ids(byCursor[1] as typeof again));
  });

  it.each([
    [{ cursor: 'bm90LWEtY3Vyc29y' }, 'not one this route made'],
    [{ cursor: 'a+b' }, 'not base64url'],
    [
      {
        cursor: 'MjAyNi0xMS0yNFQxMDowMDowMC4wMDBafDAxOTM0YjJlLTAwMDAtNzAwMC04MDAwLTAwMDAwMDAwMDAwMA',
        offset: '5',
      },
      'with an offset',
    ],
  ])('when the cursor is %o (%s), then 400 names cursor', async (query, _reason) => {
    const tenant = await createTenant();
    const res = await t.api.get('/api/v1/infrastructure/events', { key: tenant.api_key, query });
    expect(res.status).toBe(400);
    expect(res.body.details.fields.map((f: { path: string }) => f.path)).toContain('cursor');
  });

  it.each([
    [{ limit: '501' }, 'limit'],
    [{ limit: '0' }, 'limit'],
    [{ limit: 'ten' }, 'limit'],
    [{ offset: '-1' }, 'offset'],
    [{ page: '2' }, 'page'],
  ])('when the query is %o, then 400 names %s', async (query, field) => {
    const tenant = await createTenant();
    const res = await t.api.get('/api/v1/infrastructure/events', { key: tenant.api_key, query });
    expect(res.status).toBe(400);
    expect(res.body.details.fields.map((f: { path: string }) => f.path)).toContain(field);
  });

  it('when a key lacks telemetry:read, then 403; without a credential, 401', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const created = await t.api.post('/api/v1/control/api-keys', {
      key: session,
      body: { name: 'writer', permissions: ['memory:write'] },
    });
    expect(created.status).toBe(201);
    expect((await t.api.get('/api/v1/infrastructure/events', { key: created.body.key })).status).toBe(403);
    expect((await t.api.get('/api/v1/infrastructure/events')).status).toBe(401);
    expect((await t.api.get('/api/v1/infrastructure/events', { key: session })).status).toBe(200);
  });

  it("when a tenant's records pass the retention and are pruned, then its listing and total shrink with them and no other tenant's change", async () => {
    const [old, other] = [await createTenant(), await createTenant()];
    const namespace = uniqueNamespace();
    const oldIds = [rid('old'), rid('old')];
    const otherIds = [rid('other'), rid('other')];
    for (const id of oldIds)
      await t.api.write(old.api_key, writeBody(namespace, 'aging'), uniqueKey(), { 'X-Request-Id': id });
    for (const id of otherIds)
      await t.api.write(other.api_key, writeBody(namespace, 'fresh'), uniqueKey(), { 'X-Request-Id': id });
    await eventsFor(t.api, old.api_key, oldIds);
    await eventsFor(t.api, other.api_key, otherIds);
    const page = async (key: string) =>
      (await t.api.get('/api/v1/infrastructure/events', { key, query: { limit: '10' } })).body;
    expect((await page(old.api_key)).paging.total).toBe(2);

    await telemetryDbRows(
      `UPDATE request_record SET occurred_at = now() - interval '40 days' WHERE tenant_id = $1`,
      [old.tenant_id],
    );
    const pool = new pg.Pool({ connectionString: stackEnv().telemetryDbUrl, max: 1 });
    try {
      expect(await pruneRecordsBefore(poolRunner(pool), 30, 10_000)).toBeGreaterThanOrEqual(2);
    } finally {
      await pool.end();
    }

    expect(await page(old.api_key)).toMatchObject({ data: [], paging: { total: 0, has_more: false } });
    expect((await page(other.api_key)).paging.total).toBe(2);
  });
});

describe('GET /api/v1/infrastructure/events: refusals of a verified key', () => {
  it("when a verified key is refused (no permission, no storage, a session-only route), then each 403 is in its tenant's history as blocked, with the key, and counts in blocked_rate", async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const newKey = async (name: string, permissions?: string[]) => {
      const created = await t.api.post('/api/v1/control/api-keys', {
        key: session,
        body: permissions ? { name, permissions } : { name },
      });
      expect(created.status).toBe(201);
      return created.body as { id: string; key: string };
    };
    const writer = await newKey('writer', ['memory:write']);
    const detached = await newKey('detached');
    const detaching = await t.api.delete(`/api/v1/control/api-keys/${detached.id}/storage-connection`, {
      key: session,
    });
    expect(detaching.status).toBe(200);
    const ids = {
      noPermission: rid('no-permission'),
      noTelemetry: rid('no-telemetry'),
      noStorage: rid('no-storage'),
      controlRoute: rid('control-route'),
    };
    const headers = (id: string) => ({ 'X-Request-Id': id });

    const refused = [
      await t.api.post('/api/v1/memory/recall', {
        key: writer.key,
        body: recallBody(uniqueNamespace(), 'anything'),
        headers: headers(ids.noPermission),
      }),
      // Not the events route: reads of the history are left out of it.
      await t.api.get('/api/v1/infrastructure/metrics', {
        key: writer.key,
        headers: headers(ids.noTelemetry),
      }),
      await t.api.write(detached.key, writeBody(uniqueNamespace(), 'never stored'), uniqueKey(), {
        ...headers(ids.noStorage),
      }),
      await t.api.get('/api/v1/control/account', { key: writer.key, headers: headers(ids.controlRoute) }),
    ];
    const events = await eventsFor(t.api, tenant.api_key, Object.values(ids));

    expect(refused.map((r) => [r.status, r.body.details?.code])).toEqual([
      [403, 'permission_denied'],
      [403, 'permission_denied'],
      [403, 'storage_not_attached'],
      [403, 'credential_not_accepted'],
    ]);
    const only = (id: string) => {
      const matching = events.filter((e) => e.request_id === id);
      expect(matching, id).toHaveLength(1);
      return matching[0];
    };
    const blocked = {
      status: 403,
      outcome: 'blocked',
      units: 0,
      billing_state: 'no_data',
      user_id: tenant.user_id,
    };
    expect(only(ids.noPermission)).toMatchObject({
      ...blocked,
      key_id: writer.id,
      route: '/api/v1/memory/recall',
      operation: 'memory.recall',
      error_code: 'permission_denied',
    });
    expect(only(ids.noTelemetry)).toMatchObject({
      ...blocked,
      key_id: writer.id,
      route: '/api/v1/infrastructure/metrics',
      error_code: 'permission_denied',
    });
    expect(only(ids.noStorage)).toMatchObject({
      ...blocked,
      key_id: detached.id,
      route: '/api/v1/memory/write',
      operation: 'memory.write',
      error_code: 'storage_not_attached',
    });
    expect(only(ids.controlRoute)).toMatchObject({
      ...blocked,
      key_id: writer.id,
      route: '/api/v1/control/account',
      error_code: 'credential_not_accepted',
    });
    // The tenant's only refusals: its blocked rate counts exactly these four.
    const metrics = await t.api.get('/api/v1/infrastructure/metrics', { key: tenant.api_key });
    expect(metrics.status).toBe(200);
    expect(metrics.body.quality).toMatchObject({
      blocked: 4,
      blocked_rate: expect.closeTo(4 / metrics.body.quality.requests, 5),
    });
  });
});
