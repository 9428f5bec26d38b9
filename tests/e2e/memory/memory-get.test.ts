import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTenant, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const t = useStack();

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
const read = (key: string, memoryId: string) => t.api.get(`/v1/memories/${memoryId}`, { key });

describe('GET /v1/memories/{memory_id} for memories not made from a template', () => {
  it('when a plain write returned a memory_id, then that memory is readable by it, with its text and source', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('plain');
    const body = writeBody(namespace, 'The spare key is under the blue pot.', {
      event_id: 'evt-spare-key',
      source: { type: 'direct_user_input', id: 'chat-42' },
    });
    const written = await t.api.write(tenant.api_key, body, uniqueKey());

    const res = await read(tenant.api_key, written.body.memory_id);

    expect(res).toEqual(
      expect.objectContaining({
        status: 200,
        body: {
          contract_version: 'v1',
          memory_id: written.body.memory_id,
          namespace,
          event_id: 'evt-spare-key',
          occurred_at: '2026-11-22T09:00:00.000Z',
          text: 'The spare key is under the blue pot.',
          source: { type: 'direct_user_input', id: 'chat-42' },
          state: 'retained',
          superseded_at: null,
          retained_at: iso,
          data: null,
          template: null,
          created_at: res.body.retained_at,
        },
      }),
    );
  });

  it('when a chat turn was retained, then its memory_id is readable', async () => {
    const tenant = await createTenant();
    const conversation = `conv-${randomUUID().slice(0, 8)}`;
    const chat = await t.api.post('/v1/chat/completions', {
      key: tenant.api_key,
      body: {
        model: 'tm-nano-1',
        memory_id: conversation,
        messages: [{ role: 'user', content: 'My locker is number 42.' }],
      },
    });
    const memoryId = chat.body.text_memory.retained_turn.memory_id;

    const res = await read(tenant.api_key, memoryId);

    expect(res).toMatchObject({
      status: 200,
      body: {
        memory_id: memoryId,
        namespace: `chat/${conversation}`,
        text: 'My locker is number 42.',
        source: { type: 'chat_turn' },
        state: 'retained',
        data: null,
        template: null,
      },
    });
  });

  it('when a memory was superseded, then it is still readable, as superseded since the later event', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('moves');
    const first = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Ana lives in Lisbon.', { event_id: 'evt-lisbon' }),
      uniqueKey(),
    );
    await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'Ana lives in Porto.', {
        event_id: 'evt-porto',
        occurred_at: '2026-11-23T10:00:00Z',
        supersedes: ['evt-lisbon'],
      }),
      uniqueKey(),
    );

    const res = await read(tenant.api_key, first.body.memory_id);

    expect(res).toMatchObject({
      status: 200,
      body: {
        memory_id: first.body.memory_id,
        text: 'Ana lives in Lisbon.',
        state: 'superseded',
        superseded_at: '2026-11-23T10:00:00.000Z',
      },
    });
  });

  it('when another tenant asks, the namespace was deleted, or the id is unknown, then 404 not_found', async () => {
    const owner = await createTenant();
    const other = await createTenant();
    const namespace = uniqueNamespace('private');
    const written = await t.api.write(
      owner.api_key,
      writeBody(namespace, 'Owner-only secret note.'),
      uniqueKey(),
    );

    const otherTenant = await read(other.api_key, written.body.memory_id);
    const unknown = await read(owner.api_key, randomUUID());
    const notAnId = await read(owner.api_key, 'not-a-memory-id');
    await t.api.deleteNamespace(owner.api_key, namespace);
    const deleted = await read(owner.api_key, written.body.memory_id);

    for (const res of [otherTenant, unknown, notAnId, deleted]) {
      expect(res).toMatchObject({
        status: 404,
        body: { error: 'No such memory', details: { code: 'not_found' } },
      });
      expect(JSON.stringify(res.body)).not.toContain('Owner-only');
    }
  });

  it('when the template service is down, then a template memory is a retryable 503 while a plain one still reads', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('outage');
    const plain = await t.api.write(tenant.api_key, writeBody(namespace, 'A plain note.'), uniqueKey());
    const made = await t.api.post('/v1/memories', {
      key: tenant.api_key,
      body: { marketplace_template_id: 'task', namespace, data: { title: 'File taxes', owner: 'Ana' } },
    });
    expect(made.status).toBe(201);

    await t.stack.stopTemplate();
    try {
      const templateMemory = await read(tenant.api_key, made.body.memory_id);
      const plainMemory = await read(tenant.api_key, plain.body.memory_id);

      expect(templateMemory).toMatchObject({
        status: 503,
        body: { retryable: true, details: { code: 'service_unavailable' } },
      });
      expect(Number(templateMemory.headers['retry-after'])).toBeGreaterThan(0);
      expect(plainMemory).toMatchObject({ status: 200, body: { text: 'A plain note.', template: null } });
    } finally {
      await t.stack.startTemplate();
    }
  });
});
