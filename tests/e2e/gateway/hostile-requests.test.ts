import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { controlSteps } from '../support/control.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();
const { tenantWithSession } = controlSteps(t);

const NUL = '\u0000';
const refusedAt = (path: string) => ({
  status: 400,
  body: {
    retryable: false,
    details: { code: 'validation_failed', fields: [{ path, message: expect.stringContaining('NUL') }] },
  },
});

describe('NUL characters in text fields', () => {
  it('when a write carries a NUL in its text, event id or source id, then 400 at that field, nothing stored and no idempotency outcome', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('nul');
    const cases = [
      { body: writeBody(namespace, `bad${NUL}text`), path: 'event.content.text' },
      { body: writeBody(namespace, 'good text', { event_id: `evt${NUL}1` }), path: 'event.event_id' },
      {
        body: writeBody(namespace, 'good text', { source: { type: 'direct_user_input', id: `s${NUL}` } }),
        path: 'event.source.id',
      },
    ];
    for (const { body, path } of cases) {
      const res = await t.api.write(tenant.api_key, body, uniqueKey());
      expect(res).toMatchObject(refusedAt(path));
      expect(res.body).not.toHaveProperty('idempotency_outcome');
    }
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'good text bad'));
    expect(recalled.body.related).toEqual([]);
  });

  it('when a recall cue or a delete namespace holds a NUL, then 400 at that field', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('nul');
    expect(await t.api.recall(tenant.api_key, recallBody(namespace, `cue${NUL}`))).toMatchObject(
      refusedAt('cue.text'),
    );
    expect(await t.api.deleteNamespace(tenant.api_key, `ns${NUL}`)).toMatchObject(refusedAt('namespace'));
  });

  it('when control-plane names and a void reason hold a NUL, then 400 at the field and nothing is created', async () => {
    const tenant = await tenantWithSession();
    const key = { key: tenant.session };
    const keysBefore = (await t.api.get('/api/v1/control/api-keys', key)).body.data.length;

    expect(await t.api.post('/api/v1/control/api-keys', { ...key, body: { name: `k${NUL}` } })).toMatchObject(
      refusedAt('name'),
    );
    expect(
      await t.api.post('/api/v1/control/storage-connections', {
        ...key,
        body: { kind: 'managed', name: `s${NUL}` },
      }),
    ).toMatchObject(refusedAt('name'));
    expect(
      await t.api.post('/api/v1/control/operator-tokens', { ...key, body: { name: `o${NUL}` } }),
    ).toMatchObject(refusedAt('name'));
    expect(
      await t.api.post(`/api/v1/control/billing/charges/${randomUUID()}/void`, {
        ...key,
        body: { reason: `why${NUL}` },
      }),
    ).toMatchObject(refusedAt('reason'));

    expect((await t.api.get('/api/v1/control/api-keys', key)).body.data).toHaveLength(keysBefore);
    expect((await t.api.get('/api/v1/control/operator-tokens', key)).body.data).toEqual([]);
  });

  it('when a template description, a template memory data key or value, or chat content holds a NUL, then 400 at the field', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('nul');
    const template = await t.api.post('/v1/templates', {
      key: tenant.api_key,
      body: {
        template_name: `t_${randomUUID().slice(0, 8)}`,
        description: `d${NUL}`,
        fields: [{ name: 'title', type: 'string' }],
      },
    });
    expect(template).toMatchObject(refusedAt('description'));

    for (const [data, path] of [
      [{ title: `x${NUL}` }, 'data.title'],
      [{ [`title${NUL}`]: 'x' }, 'data.title\\u0000'],
    ] as const) {
      const res = await t.api.post('/v1/memories', {
        key: tenant.api_key,
        body: { marketplace_template_id: 'task', namespace, data },
      });
      expect(res).toMatchObject(refusedAt(path));
    }

    const chat = await t.api.post('/v1/chat/completions', {
      key: tenant.api_key,
      body: { model: 'tm-nano-1', memory_id: 'nul-chat', messages: [{ role: 'user', content: `hi${NUL}` }] },
    });
    expect(chat).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'messages.0.content' }] } },
    });
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'x title'));
    expect(recalled.body.related).toEqual([]);
  });
});

describe('whole numbers in the query string', () => {
  // Found by the OpenAPI fuzz test: `?offset=` read as 0 (JavaScript's Number), so it was accepted.
  it('when a paging or window parameter is empty, hexadecimal or an exponent, then 400 at that parameter on every route', async () => {
    const tenant = await tenantWithSession();
    const cases: Array<{ path: string; query: Record<string, string>; key: string }> = [
      { path: '/v1/templates', query: { offset: '' }, key: tenant.api_key },
      { path: '/v1/marketplace/templates', query: { limit: '0x10' }, key: tenant.api_key },
      { path: '/api/v1/infrastructure/events', query: { offset: ' ' }, key: tenant.api_key },
      { path: '/api/v1/infrastructure/usage', query: { window_minutes: '1e3' }, key: tenant.api_key },
      { path: '/api/v1/infrastructure/metrics', query: { window_minutes: '' }, key: tenant.api_key },
      { path: '/api/v1/control/billing/charges', query: { offset: '' }, key: tenant.session },
      { path: '/api/v1/control/usage', query: { window_minutes: '0x3c' }, key: tenant.session },
    ];
    for (const { path, query, key } of cases) {
      const res = await t.api.get(path, { key, query });
      const [parameter] = Object.keys(query);
      expect({ path, status: res.status, body: res.body }).toMatchObject({
        path,
        status: 400,
        body: { details: { code: 'validation_failed', fields: [{ path: parameter }] } },
      });
    }
  });
});

describe('stray bodies on control routes that take none', () => {
  // Found by the OpenAPI fuzz test: the control plane parsed every body, so GET /account with a stray
  // `false` or text body was 400 or 415, statuses its document does not list for it.
  it('when a GET or a bodiless POST carries JSON `false` or a text body, then the body is ignored; a route that takes one still refuses it', async () => {
    const tenant = await tenantWithSession();
    const stray = [
      { data: 'false', contentType: 'application/json' },
      { data: '{', contentType: 'application/json' },
      { data: 'hello', contentType: 'text/plain' },
    ];
    for (const raw of stray) {
      const account = await t.api.get('/api/v1/control/account', { key: tenant.session, raw });
      const grant = await t.api.post('/api/v1/control/consent/grant', { key: tenant.session, raw });
      expect({ raw, account: account.status, grant: grant.status }).toEqual({
        raw,
        account: 200,
        grant: 200,
      });
      const created = await t.api.post('/api/v1/control/api-keys', { key: tenant.session, raw });
      expect(created.status).toBe(raw.contentType === 'text/plain' ? 415 : 400);
    }
  });
});

describe('malformed ids and percent-encodings in the path', () => {
  const paths = [
    '/v1/imports/not-a-uuid',
    '/v1/imports/%00',
    '/v1/templates/%zz',
    '/v1/templates/%00',
    '/v1/memories/%C0%AE',
    '/v1/memories/a%00b',
    '/v1/marketplace/templates/%E0%A4%A',
    '/v1/models/%ff',
  ];

  it('when no credential is sent, then 401 for every one, before the path is read', async () => {
    for (const path of paths) {
      const res = await t.api.get(path);
      expect({ path, status: res.status, code: res.body.details?.code }).toEqual({
        path,
        status: 401,
        code: 'authentication_required',
      });
    }
  });

  it('when a valid key is sent, then 404 not_found in the envelope for every one', async () => {
    const tenant = await createTenant();
    for (const path of paths) {
      const res = await t.api.get(path, { key: tenant.api_key });
      expect({ path, status: res.status, code: res.body.details?.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      });
      // The OpenAI-compatible routes (/v1/models) carry their message in error.message.
      const message = typeof res.body.error === 'string' ? res.body.error : res.body.error.message;
      expect(message).toMatch(/^No such |^The model .* does not exist/);
    }
  });

  it('when a control-plane id is malformed or holds a NUL, then 401 without a session and 404 with one', async () => {
    const tenant = await tenantWithSession();
    for (const path of [
      '/api/v1/control/api-keys/%zz',
      '/api/v1/control/users/%00',
      '/api/v1/control/storage-connections/x%C0',
    ]) {
      expect((await t.api.get(path)).status).toBe(401);
      expect(await t.api.get(path, { key: tenant.session })).toMatchObject({
        status: 404,
        body: { details: { code: 'not_found' } },
      });
    }
  });
});

/** One raw HTTP exchange, for requests a client library would refuse to send. */
function rawExchange(request: string): Promise<{ status: number; headers: string; body: string }> {
  const { port } = new URL(t.stack.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head.toLowerCase(), body });
    });
  });
}

describe('requests Node refuses before Express', () => {
  it('when the headers are larger than the limit, then 431 in the error envelope', async () => {
    const res = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
      (resolve, reject) => {
        const req = httpRequest(`${t.stack.url}/api/v1/infrastructure/health`, {
          headers: { 'x-padding': 'a'.repeat(20_000) },
        });
        req.on('response', (response) => {
          let body = '';
          response.on('data', (c) => {
            body += c;
          });
          response.on('end', () =>
            resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
          );
        });
        req.on('error', reject);
        req.end();
      },
    );
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toContain('application/json');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const body = JSON.parse(res.body);
    t.api.contract.expectErrorEnvelope(body);
    expect(body).toMatchObject({ retryable: false, details: { code: 'headers_too_large' } });
  });

  it('when the request line holds a raw control character, then 400 in the error envelope', async () => {
    const res = await rawExchange('GET /v1/templates/a\u0001b HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(res.status).toBe(400);
    const body = JSON.parse(res.body);
    t.api.contract.expectErrorEnvelope(body);
    expect(body).toMatchObject({ retryable: false, details: { code: 'malformed_request' } });
  });
});

describe('security headers', () => {
  it('when a session, an API key or an operator token is created, then the answer says Cache-Control: no-store', async () => {
    const tenant = await createTenant();
    const login = await t.api.post('/api/v1/control/sessions', {
      body: { email: tenant.owner.email, password: tenant.owner.password },
    });
    const session = login.body.token as string;
    const key = await t.api.post('/api/v1/control/api-keys', { key: session, body: { name: 'cached?' } });
    const token = await t.api.post('/api/v1/control/operator-tokens', { key: session, body: { name: 'op' } });
    for (const res of [login, key, token]) {
      expect(res.status).toBe(201);
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('when any answer is sent (success, refusal, unknown route), then it carries X-Content-Type-Options: nosniff', async () => {
    const tenant = await createTenant();
    const answers = [
      // Liveness, not readiness: readiness may be 503 on a loaded machine, and any success will do here.
      await t.api.get('/api/v1/infrastructure/health/live'),
      await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'nosniff'), uniqueKey()),
      await t.api.get('/api/v1/infrastructure/events'),
      await t.api.get('/no/such/route'),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 404]);
    for (const res of answers) expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
