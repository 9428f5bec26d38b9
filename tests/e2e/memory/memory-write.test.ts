import { describe, expect, it } from 'vitest';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { recordsInNamespace, recordsWithEvent } from '../support/memory-db.js';
import { useStack } from '../support/stack.js';
import { usageInStream, usageRecordsForKey } from '../support/usage-stream.js';

const t = useStack();

describe('POST /api/v1/memory/write', () => {
  it('when a consenting tenant writes, then the text is retained with the full v1 response', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();

    const res = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Alice prefers green tea', {
        event_id: 'e-1',
        source: { type: 'direct_user_input', id: 'chat-7' },
      }),
      key,
      {
        'X-Request-Id': 'client-req-1',
      },
    );

    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('client-req-1');
    expect(res.body).toMatchObject({
      contract_version: 'v1',
      operation: 'memory.write',
      state: 'retained',
      request_id: 'client-req-1',
      retryable: false,
      idempotency_key: key,
      idempotency_outcome: 'Accepted',
      namespace,
      event_id: 'e-1',
      memory_id: expect.any(String),
      decision: { version: 'decision-v1', value: 'memorized', memorized: true },
      representation: { status: 'not_available' },
      surprise: { status: 'unavailable' },
      supersession: [],
      provenance: {
        execution_mode: 'mock',
        provider: 'service-local-mock',
        model_version: 'deterministic-lexical-v2',
        model_execution: false,
        capability_status: 'contract_fixture',
        model_variant: 'Unspecified',
      },
      usage: {
        billing_state: 'billable',
        operation_units: 1,
        pricing_version: expect.any(String),
        sandbox: true,
      },
    });
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'green tea'));
    expect(recalled.body.related[0]).toMatchObject({
      event_id: 'e-1',
      memory_id: res.body.memory_id,
      source: { type: 'direct_user_input', id: 'chat-7' },
    });
  });

  it('when the key comes only in the body, then it is used; when header and body differ, then 400', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();

    const ok = await t.api.write(tenant.api_key, {
      ...writeBody(namespace, 'body key'),
      idempotency_key: key,
    });
    const mismatch = await t.api.write(
      tenant.api_key,
      { ...writeBody(namespace, 'two keys'), idempotency_key: key },
      uniqueKey(),
    );
    const missing = await t.api.write(tenant.api_key, writeBody(namespace, 'no key'));

    expect(ok).toMatchObject({ status: 200, body: { idempotency_key: key } });
    expect(mismatch).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'idempotency_key' }] } },
    });
    expect(missing).toMatchObject({
      status: 400,
      body: { details: { fields: [{ path: 'idempotency_key' }] } },
    });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(1);
  });

  it('when the same write is replayed, then the original result comes back as Replayed and usage is recorded once', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();
    const body = writeBody(namespace, 'The invoice is due on Friday', { event_id: 'inv-1' });

    const first = await t.api.write(tenant.api_key, body, key);
    // Same logical write, properties in another order and the same instant spelled differently.
    const reordered = {
      event: { ...body.event, occurred_at: '2026-11-22T09:00:00.000+00:00' },
      namespace,
      contract_version: 'v1',
    };
    const replay = await t.api.write(tenant.api_key, reordered, key);

    expect(replay.status).toBe(200);
    expect(replay.body).toMatchObject({
      idempotency_outcome: 'Replayed',
      memory_id: first.body.memory_id,
      decision: first.body.decision,
      usage: first.body.usage,
      original_request_id: first.body.request_id,
    });
    expect(replay.body.request_id).not.toBe(first.body.request_id);
    await t.stack.memory.flushOutbox();
    expect(await usageRecordsForKey(tenant.tenant_id, key)).toBe(1);
    expect(await recordsWithEvent(tenant.tenant_id, namespace, 'inv-1')).toBe(1);
  });

  it('when the same key comes with another body, then 409 Conflict and nothing changes', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();
    await t.api.write(tenant.api_key, writeBody(namespace, 'original text', { event_id: 'x-1' }), key);

    const res = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'changed text', { event_id: 'x-1' }),
      key,
    );

    expect(res).toMatchObject({
      status: 409,
      body: {
        retryable: false,
        idempotency_outcome: 'Conflict',
        details: { code: 'idempotency_conflict' },
      },
    });
    expect(typeof res.body.error).toBe('string');
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'changed original text'));
    expect(recalled.body.related.map((r: { text: string }) => r.text)).toEqual(['original text']);
  });

  it('when the same key comes with another text, then the 409 names event.content.text and never the text', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();
    await t.api.write(tenant.api_key, writeBody(namespace, 'Bo lives in Lisbon', { event_id: 'n-1' }), key);

    const res = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Bo lives in Porto', { event_id: 'n-1' }),
      key,
    );

    expect(res).toMatchObject({
      status: 409,
      body: {
        error: expect.stringContaining('event.content.text differs'),
        details: { code: 'idempotency_conflict', fields: [{ path: 'event.content.text' }] },
      },
    });
    expect(JSON.stringify(res.body)).not.toMatch(/Lisbon|Porto/);
  });

  it('when a write without an event time is sent again unchanged, then it replays with the time the service gave it', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();
    const { occurred_at: _none, ...event } = writeBody(namespace, 'Re-run script fact', {
      event_id: 'rr-1',
    }).event;
    const body = { ...writeBody(namespace, 'Re-run script fact'), event };
    const before = Date.now();

    const first = await t.api.write(tenant.api_key, body, key);
    const again = await t.api.write(tenant.api_key, body, key);
    const timed = await t.api.write(
      tenant.api_key,
      { ...body, event: { ...event, occurred_at: '2026-01-01T00:00:00Z' } },
      key,
    );

    expect(first.body).toMatchObject({ idempotency_outcome: 'Accepted', state: 'retained' });
    expect(again).toMatchObject({
      status: 200,
      body: { idempotency_outcome: 'Replayed', memory_id: first.body.memory_id },
    });
    // A time the first write left to the service is one it did not ask for: naming one now is another write.
    expect(timed).toMatchObject({
      status: 409,
      body: { details: { code: 'idempotency_conflict', fields: [{ path: 'event.occurred_at' }] } },
    });
    const got = await t.api.get(`/v1/memories/${first.body.memory_id}`, { key: tenant.api_key });
    expect(got.status).toBe(200);
    expect(Date.parse(got.body.occurred_at)).toBeGreaterThanOrEqual(before - 5_000);
    expect(await recordsWithEvent(tenant.tenant_id, namespace, 'rr-1')).toBe(1);
  });

  it('when a write with an event time is sent again without one, then it replays: the recorded time stands', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();
    const timed = writeBody(namespace, 'Timed fact', {
      event_id: 'tf-1',
      occurred_at: '2026-03-04T05:06:07Z',
    });
    const { occurred_at: _none, ...untimed } = timed.event;

    const first = await t.api.write(tenant.api_key, timed, key);
    const again = await t.api.write(tenant.api_key, { ...timed, event: untimed }, key);

    expect(again).toMatchObject({
      status: 200,
      body: { idempotency_outcome: 'Replayed', memory_id: first.body.memory_id },
    });
  });

  it('when twenty identical writes arrive at once, then exactly one record and one usage row exist', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();
    const body = writeBody(namespace, 'concurrent write', { event_id: 'burst-1' });

    const responses = await Promise.all(
      Array.from({ length: 20 }, () => t.api.write(tenant.api_key, body, key)),
    );

    const ok = responses.filter((r) => r.status === 200);
    for (const r of responses.filter((r) => r.status !== 200)) {
      // A duplicate still in flight may be told to retry; never anything else.
      expect(r).toMatchObject({
        status: 409,
        body: {
          retryable: true,
          idempotency_outcome: 'Retryable',
          details: { code: 'idempotency_in_flight' },
        },
      });
    }
    expect(ok.filter((r) => r.body.idempotency_outcome === 'Accepted')).toHaveLength(1);
    expect(new Set(ok.map((r) => r.body.memory_id)).size).toBe(1);
    await t.stack.memory.flushOutbox();
    expect(await recordsWithEvent(tenant.tenant_id, namespace, 'burst-1')).toBe(1);
    expect(await usageRecordsForKey(tenant.tenant_id, key)).toBe(1);
  });

  it('when many different writes arrive at once, one reusing an event id, then each other is retained once and the reuse is refused', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const writes = Array.from({ length: 24 }, (_, i) => ({
      key: uniqueKey(),
      body: writeBody(namespace, `parallel note ${i}`, { event_id: `p-${i}` }),
    }));
    const reuse = { key: uniqueKey(), body: writeBody(namespace, 'reused id', { event_id: 'p-3' }) };

    const responses = await Promise.all(
      [...writes, reuse].map((w) => t.api.write(tenant.api_key, w.body, w.key)),
    );
    const replays = await Promise.all(writes.map((w) => t.api.write(tenant.api_key, w.body, w.key)));

    const byEvent = new Map<string, Array<{ status: number; body: { details?: { code?: string } } }>>();
    for (const [i, w] of [...writes, reuse].entries()) {
      const id = w.body.event.event_id;
      byEvent.set(id, [...(byEvent.get(id) ?? []), responses[i] as never]);
    }
    const p3 = byEvent.get('p-3') ?? [];
    // Whichever of the two writes of p-3 came first stands; the other is a duplicate event.
    expect(p3.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(p3.find((r) => r.status === 409)?.body.details?.code).toBe('duplicate_event');
    for (const [i, w] of writes.entries()) {
      if (w.body.event.event_id === 'p-3') continue;
      expect(responses[i]).toMatchObject({ status: 200, body: { idempotency_outcome: 'Accepted' } });
      expect(replays[i]?.body).toMatchObject({
        idempotency_outcome: 'Replayed',
        memory_id: responses[i]?.body.memory_id,
      });
    }
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(24);
    await t.stack.memory.flushOutbox();
    const usage = await usageInStream(tenant.tenant_id);
    expect(usage.map((u) => u.idempotency_key).sort()).toEqual(
      writes
        .filter((w) => responses[writes.indexOf(w)]?.status === 200)
        .map((w) => w.key)
        .concat(responses[24]?.status === 200 ? [reuse.key] : [])
        .sort(),
    );
  });

  it('when the event id is already retained under another key, then 409 and the first write stands', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    await t.api.write(tenant.api_key, writeBody(namespace, 'first', { event_id: 'dup' }), uniqueKey());

    const secondKey = uniqueKey();

    const res = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'second', { event_id: 'dup' }),
      secondKey,
    );
    // The refused write left no claim behind: its key is free for a corrected event.
    const corrected = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'second', { event_id: 'dup-2' }),
      secondKey,
    );

    expect(corrected).toMatchObject({
      status: 200,
      body: { idempotency_outcome: 'Accepted', event_id: 'dup-2' },
    });
    expect(res).toMatchObject({
      status: 409,
      body: { idempotency_outcome: 'Conflict', details: { code: 'duplicate_event' } },
    });
    expect(await recordsWithEvent(tenant.tenant_id, namespace, 'dup')).toBe(1);
  });

  it('when the user has not granted consent, then 200 not_retained and nothing is stored', async () => {
    const tenant = await createTenant({ consent: false });
    const namespace = uniqueNamespace();
    const key = uniqueKey();

    const res = await t.api.write(tenant.api_key, writeBody(namespace, 'private thought'), key);

    expect(res).toMatchObject({
      status: 200,
      body: {
        state: 'not_retained',
        memory_id: null,
        decision: { value: 'not_retained', memorized: false },
        usage: { billing_state: 'no_data', operation_units: 0 },
      },
    });
    await t.stack.memory.flushOutbox();
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
    expect(await usageRecordsForKey(tenant.tenant_id, key)).toBe(0);
  });

  describe('validation', () => {
    const invalid: Array<[string, (ns: string) => unknown, string]> = [
      ['empty text', (ns) => writeBody(ns, ''), 'event.content.text'],
      ['whitespace-only text', (ns) => writeBody(ns, '   \n'), 'event.content.text'],
      ['overlong text', (ns) => writeBody(ns, 'a'.repeat(32_769)), 'event.content.text'],
      ['empty namespace', () => writeBody('', 'text'), 'namespace'],
      ['overlong namespace', () => writeBody('n'.repeat(129), 'text'), 'namespace'],
      ['namespace with spaces', () => writeBody('has space', 'text'), 'namespace'],
      [
        'wrong contract_version',
        (ns) => ({ ...writeBody(ns, 'text'), contract_version: 'v2' }),
        'contract_version',
      ],
      [
        'missing contract_version',
        (ns) => ({ ...writeBody(ns, 'text'), contract_version: undefined }),
        'contract_version',
      ],
      ['wrong operation', (ns) => ({ ...writeBody(ns, 'text'), operation: 'memory.recall' }), 'operation'],
      [
        'time without zone',
        (ns) => writeBody(ns, 'text', { occurred_at: '2026-11-22T09:00:00' }),
        'event.occurred_at',
      ],
      ['not a time', (ns) => writeBody(ns, 'text', { occurred_at: 'yesterday' }), 'event.occurred_at'],
      [
        'a time in the year 0000, superseding',
        (ns) => writeBody(ns, 'text', { occurred_at: '0000-01-01T00:00:00Z', supersedes: ['older'] }),
        'event.occurred_at',
      ],
      [
        'tenant_id in the body',
        (ns) => ({ ...writeBody(ns, 'text'), tenant_id: 'someone-else' }),
        'tenant_id',
      ],
      [
        'bad source type',
        (ns) => writeBody(ns, 'text', { source: { type: 'Has Spaces' } }),
        'event.source.type',
      ],
      [
        'self-supersession',
        (ns) => writeBody(ns, 'text', { event_id: 'self', supersedes: ['self'] }),
        'event.supersedes',
      ],
    ];

    it.each(invalid)(
      'when the body has %s, then 400 with field details and nothing is stored',
      async (_label, make, path) => {
        const tenant = await createTenant();
        const namespace = uniqueNamespace();

        const res = await t.api.write(tenant.api_key, make(namespace), uniqueKey());

        expect(res).toMatchObject({
          status: 400,
          body: { retryable: false, details: { code: 'validation_failed' } },
        });
        expect(res.body.details.fields.map((f: { path: string }) => f.path)).toContain(path);
        expect(res.body.details.request_id).toBe(res.body.request_id);
        expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
      },
    );

    it('when the body is malformed JSON, then 400 malformed_json', async () => {
      const tenant = await createTenant();
      const res = await t.api.post('/api/v1/memory/write', {
        key: tenant.api_key,
        raw: { data: '{"contract_version":', contentType: 'application/json' },
      });
      expect(res).toMatchObject({ status: 400, body: { details: { code: 'malformed_json' } } });
    });

    it('when the body is not JSON, then 415', async () => {
      const tenant = await createTenant();
      const res = await t.api.post('/api/v1/memory/write', {
        key: tenant.api_key,
        raw: { data: 'namespace=a', contentType: 'application/x-www-form-urlencoded' },
      });
      expect(res).toMatchObject({ status: 415, body: { details: { code: 'unsupported_media_type' } } });
    });

    it('when the body is larger than the limit, then 413', async () => {
      const tenant = await createTenant();
      const res = await t.api.write(
        tenant.api_key,
        writeBody(uniqueNamespace(), 'x'.repeat(300 * 1024)),
        uniqueKey(),
      );
      expect(res).toMatchObject({ status: 413, body: { details: { code: 'payload_too_large' } } });
    });
  });
});
