import { randomUUID } from 'node:crypto';
import { LIMITS } from '@tm/contracts';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { controlSteps } from '../support/control.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();
const { tenantWithSession } = controlSteps(t);

const LIVE = '/api/v1/infrastructure/health/live';

/** `{"email": [[[…"x"…]]]}`: a small body (2 bytes a level) that nests `levels` lists deep. */
const nestedBody = (levels: number) => `{"email":${'['.repeat(levels)}"x"${']'.repeat(levels)}}`;
const asJson = (data: string) => ({ data, contentType: 'application/json' });

const tooDeep = {
  status: 400,
  body: {
    error: `Request body nests objects and lists deeper than ${LIMITS.bodyMaxDepth} levels`,
    retryable: false,
    details: {
      code: 'validation_failed',
      fields: [
        { path: '(body)', message: `nests objects and lists deeper than ${LIMITS.bodyMaxDepth} levels` },
      ],
    },
  },
};

describe('bodies nested deeper than the limit', () => {
  // Found by a security probe of 4153b48: the NUL check copied the path at every level, so 20,000
  // levels (40 KB, no credential) held the event loop 6.3 s and 100,000 levels held it for minutes.
  it('when a login body nests 20,000 and 100,000 levels, then 400 naming the limit, and liveness answers alongside and after', async () => {
    for (const levels of [20_000, 100_000]) {
      const [refused, live] = await Promise.all([
        t.api.post('/api/v1/control/sessions', { raw: asJson(nestedBody(levels)) }),
        t.api.get(LIVE),
      ]);

      expect({ levels, status: refused.status, body: refused.body }).toMatchObject({ levels, ...tooDeep });
      expect(live.status).toBe(200);
    }
    expect((await t.api.get(LIVE)).status).toBe(200);
  });

  it('when a write, a template memory or a chat completion body nests 100,000 levels, then 400 naming the limit and nothing is stored', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('deep');
    const deepWrite = `{"contract_version":"v1","namespace":"${namespace}","event":${nestedBody(100_000)}}`;

    const write = await t.api.post('/api/v1/memory/write', {
      key: tenant.api_key,
      headers: { 'Idempotency-Key': uniqueKey() },
      raw: asJson(deepWrite),
    });
    const memory = await t.api.post('/v1/memories', {
      key: tenant.api_key,
      raw: asJson(
        `{"marketplace_template_id":"task","namespace":"${namespace}","data":${nestedBody(20_000)}}`,
      ),
    });
    const chat = await t.api.post('/v1/chat/completions', {
      key: tenant.api_key,
      raw: asJson(
        `{"model":"tm-nano-1","messages":[{"role":"user","content":"hi"}],"tools":${nestedBody(20_000)}}`,
      ),
    });

    expect(write).toMatchObject(tooDeep);
    expect(write.body).not.toHaveProperty('idempotency_outcome');
    expect(memory).toMatchObject(tooDeep);
    // The OpenAI-compatible route answers in OpenAI's error shape, with the same code and limit.
    expect(chat).toMatchObject({
      status: 400,
      body: {
        error: { message: tooDeep.body.error, type: 'invalid_request_error', code: 'validation_failed' },
        details: tooDeep.body.details,
      },
    });
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'x'));
    expect(recalled).toMatchObject({ status: 200, body: { related: [] } });
    expect((await t.api.get(LIVE)).status).toBe(200);
  });

  it(`when a body nests exactly ${LIMITS.bodyMaxDepth} levels where a route takes free-form JSON, then it is read, and refused only by that field's own bound`, async () => {
    const tenant = await createTenant();
    const chat = await t.api.post('/v1/chat/completions', {
      key: tenant.api_key,
      body: {
        model: 'tm-nano-1',
        memory_id: `deep-${randomUUID()}`,
        messages: [{ role: 'user', content: 'hello' }],
        // An OpenAI client's tool schema: nested, but far from the limit (the body adds one level).
        tools: JSON.parse(nestedBody(LIMITS.bodyMaxDepth - 2)).email,
      },
    });
    expect(chat.status).toBe(200);

    const memory = await t.api.post('/v1/memories', {
      key: tenant.api_key,
      raw: asJson(
        `{"marketplace_template_id":"task","namespace":"${uniqueNamespace()}","data":{"title":"t","steps":${nestedBody(LIMITS.bodyMaxDepth - 3)}}}`,
      ),
    });
    expect(memory).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'data.steps' }] } },
    });
  });
});

describe('unknown fields in request bodies and queries', () => {
  const unknownAt = (path: string) => ({
    status: 400,
    body: {
      retryable: false,
      details: { code: 'validation_failed', fields: [{ path, message: 'is not a known field' }] },
    },
  });

  // Found by a client written from the spec against 4153b48: `priority` and `event.tags` were dropped
  // silently, although docs/security.md says unknown fields are refused.
  it('when a write carries an unknown field at the top or inside event, event.content or event.source, then 400 naming it and nothing is stored under its key', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('unknown');
    const valid = writeBody(namespace, 'unknown fields refused', { source: { type: 'direct_user_input' } });
    const cases = [
      { body: { ...valid, priority: 'high' }, path: 'priority' },
      { body: { ...valid, event: { ...valid.event, tags: ['a'] } }, path: 'event.tags' },
      {
        body: {
          ...valid,
          event: { ...valid.event, content: { text: 'unknown fields refused', lang: 'en' } },
        },
        path: 'event.content.lang',
      },
      {
        body: { ...valid, event: { ...valid.event, source: { type: 'direct_user_input', verified: true } } },
        path: 'event.source.verified',
      },
    ];
    const key = uniqueKey();
    for (const { body, path } of cases) {
      const res = await t.api.write(tenant.api_key, body, key);
      expect({ path, status: res.status, body: res.body }).toMatchObject({ path, ...unknownAt(path) });
      expect(res.body.idempotency_outcome).toBeUndefined();
    }

    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'unknown fields refused'));
    expect(recalled).toMatchObject({ status: 200, body: { related: [] } });
    // The key was never used: the valid body under it is a first write, not a replay.
    const accepted = await t.api.write(tenant.api_key, valid, key);
    expect(accepted).toMatchObject({ status: 200, body: { idempotency_outcome: 'Accepted' } });
  });

  it('when a recall carries an unknown field at the top or inside cue, then 400 naming it', async () => {
    const tenant = await createTenant();
    const body = recallBody(uniqueNamespace(), 'anything');
    expect(await t.api.recall(tenant.api_key, { ...body, filter: { tag: 'a' } })).toMatchObject(
      unknownAt('filter'),
    );
    expect(
      await t.api.recall(tenant.api_key, { ...body, cue: { text: 'anything', mode: 'x' } }),
    ).toMatchObject(unknownAt('cue.mode'));
  });

  it('when a namespace delete carries an unknown query parameter or body field, then 400 naming it and the namespace is kept', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('keep');
    await t.api.write(tenant.api_key, writeBody(namespace, 'still here after refusals'), uniqueKey());

    const byQuery = await t.api.delete('/api/v1/memory', {
      key: tenant.api_key,
      query: { namespace, recursive: 'true' },
    });
    const byBody = await t.api.delete('/api/v1/memory', {
      key: tenant.api_key,
      query: { namespace },
      body: { namespace, force: true },
    });

    expect(byQuery).toMatchObject(unknownAt('recursive'));
    expect(byBody).toMatchObject(unknownAt('force'));
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'still here'));
    expect(recalled.body.related).toHaveLength(1);
  });

  it('when a control-plane body or a template body carries an unknown field, then 400 naming it and nothing is created', async () => {
    const tenant = await tenantWithSession();
    const session = { key: tenant.session };
    const keysBefore = (await t.api.get('/api/v1/control/api-keys', session)).body.data.length;

    const apiKey = await t.api.post('/api/v1/control/api-keys', {
      ...session,
      body: { name: 'k', owner: 'x' },
    });
    const template = await t.api.post('/v1/templates', {
      key: tenant.api_key,
      body: {
        template_name: `t_${randomUUID().slice(0, 8)}`,
        description: 'd',
        fields: [{ name: 'title', type: 'string', colour: 'red' }],
        format: '{title}',
      },
    });

    expect(apiKey).toMatchObject(unknownAt('owner'));
    expect(template).toMatchObject(unknownAt('fields.0.colour'));
    expect((await t.api.get('/api/v1/control/api-keys', session)).body.data).toHaveLength(keysBefore);
    expect((await t.api.get('/v1/templates', { key: tenant.api_key })).body.data).toEqual([]);
  });

  it('when a route gets a query parameter it does not declare (one that takes none, one that takes others), then 400 naming it; OpenAI-compatible routes take theirs', async () => {
    const tenant = await tenantWithSession();
    const cases: Array<{ path: string; query: Record<string, string>; key: string; name: string }> = [
      { path: '/api/v1/control/api-keys', query: { limit: '5' }, key: tenant.session, name: 'limit' },
      { path: '/api/v1/control/account', query: { expand: 'all' }, key: tenant.session, name: 'expand' },
      { path: '/v1/templates', query: { offset: '0', sort: 'name' }, key: tenant.api_key, name: 'sort' },
      { path: '/api/v1/infrastructure/events', query: { since: 'x' }, key: tenant.api_key, name: 'since' },
      {
        path: `/v1/memories/${randomUUID()}`,
        query: { version: '2' },
        key: tenant.api_key,
        name: 'version',
      },
    ];
    for (const { path, query, key, name } of cases) {
      const res = await t.api.get(path, { key, query });
      expect({ path, status: res.status, body: res.body }).toMatchObject({ path, ...unknownAt(name) });
    }
    expect((await t.api.get('/api/v1/control/api-keys', { key: tenant.session })).status).toBe(200);
    const models = await t.api.get('/v1/models', {
      key: tenant.api_key,
      query: { 'api-version': '2024-06-01' },
    });
    expect(models).toMatchObject({ status: 200, body: { object: 'list' } });
  });

  it('when the path is in another case or the method is HEAD, then an undeclared query parameter is refused as for GET', async () => {
    const tenant = await tenantWithSession();
    // Express routes match case-insensitively, and answer HEAD with the GET route.
    const upper = await t.api.get('/API/V1/Control/API-KEYS', { key: tenant.session, query: { limit: '5' } });
    expect(upper).toMatchObject(unknownAt('limit'));
    const bearer = { Authorization: `Bearer ${tenant.session}` };
    const head = await request(t.stack.url)
      .head('/api/v1/control/api-keys')
      .query({ limit: '5' })
      .set(bearer);
    expect(head).toMatchObject({ status: 400 });
    const headUpper = await request(t.stack.url).head('/API/V1/control/api-keys?limit=5').set(bearer);
    expect(headUpper).toMatchObject({ status: 400 });
    const declared = await request(t.stack.url).head('/api/v1/control/api-keys').set(bearer);
    expect(declared).toMatchObject({ status: 200 });
  });

  it('when a chat completion carries fields OpenAI clients send that this service does not use, then it is answered', async () => {
    const tenant = await createTenant();
    const chat = await t.api.post('/v1/chat/completions', {
      key: tenant.api_key,
      body: {
        model: 'tm-nano-1',
        memory_id: `extra-${randomUUID()}`,
        messages: [{ role: 'user', content: 'hello', name: 'ada' }],
        user: 'end-user-1',
        logit_bias: {},
        seed: 7,
        some_future_option: { on: true },
      },
    });
    expect(chat).toMatchObject({ status: 200, body: { object: 'chat.completion' } });
  });
});
