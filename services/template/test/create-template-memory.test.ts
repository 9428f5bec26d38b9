import { randomUUID } from 'node:crypto';
import type { CreateTemplateMemoryMessage, MemoryWriteMessage, WriteResponse } from '@tm/contracts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { z } from 'zod';
import type { WriteMemory } from '../src/clients/memory-writer.js';
import { closePrisma, initPrisma } from '../src/data-access/prisma-client.js';
import { storeTemplateMemory } from '../src/data-access/template-memory-repository.js';
import { createTemplateMemory } from '../src/domain/create-template-memory.js';

beforeAll(() => {
  initPrisma(inject('stack').templateDbUrl, 2);
});
afterAll(closePrisma);

/** memory.v1.write as the memory service answers it: one memory per idempotency key, replayed after. */
function fakeMemoryWriter() {
  const sent: Array<z.input<typeof MemoryWriteMessage>> = [];
  const byKey = new Map<string, string>();
  const writeMemory: WriteMemory = async (msg) => {
    sent.push(msg);
    const known = byKey.get(msg.idempotency_key);
    const memoryId = known ?? randomUUID();
    byKey.set(msg.idempotency_key, memoryId);
    return {
      state: 'retained',
      memory_id: memoryId,
      idempotency_outcome: known ? 'Replayed' : 'Accepted',
      usage: {
        billing_state: 'billable',
        operation_units: 1,
        pricing_version: 'sandbox-2026-11',
        sandbox: true,
      },
    } as WriteResponse;
  };
  return { sent, writeMemory };
}

const message = (data: Record<string, unknown>): CreateTemplateMemoryMessage => ({
  scope: {
    tenant_id: `tenant-${randomUUID()}`,
    user_id: 'user-1',
    key_id: 'key-1',
    storage_connection_id: 'storage-1',
    consent: 'granted',
  },
  request_id: `req-${randomUUID()}`,
  idempotency_key: `key-${randomUUID()}`,
  body: { marketplace_template_id: 'meeting-notes', namespace: 'templates', data },
});
const meeting = { title: 'Roadmap', date: '2026-11-20', summary: 'Search first.' };

describe('createTemplateMemory', () => {
  it('when storing the template memory fails after the write, then a retry with the same key sends the same write and answers that memory', async () => {
    const memory = fakeMemoryWriter();
    const msg = message(meeting);
    const outage = async () => {
      throw new Error('connection lost');
    };

    await expect(createTemplateMemory(msg, { ...memory, storeMemory: outage })).rejects.toThrow(
      'connection lost',
    );
    const retry = await createTemplateMemory({ ...msg, request_id: 'req-retry' }, memory);

    expect(memory.sent).toHaveLength(2);
    expect(memory.sent[1]?.body).toEqual(memory.sent[0]?.body);
    expect(retry).toMatchObject({
      state: 'retained',
      memory_id: expect.any(String),
      idempotency_outcome: 'Replayed',
      text: memory.sent[0]?.body.event.content.text,
      template: { source: 'marketplace', marketplace_template_id: 'meeting-notes' },
    });
  });

  it('when the database refuses the data, then it fails before the memory is written', async () => {
    const memory = fakeMemoryWriter();
    // Past the zod bound (which the endpoint applies first): the database driver's own limit.
    let deep: unknown = 'bottom';
    for (let i = 0; i < 200; i++) deep = [deep];

    const attempt = createTemplateMemory(message({ ...meeting, attendees: deep }), {
      ...memory,
      storeMemory: storeTemplateMemory,
    });

    await expect(attempt).rejects.toThrow();
    expect(memory.sent).toEqual([]);
  });
});
