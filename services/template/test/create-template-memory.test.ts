import { randomUUID } from 'node:crypto';
import { connectBus, type NatsConnection } from '@tm/bus';
import type { CreateTemplateMemoryMessage, MemoryWriteMessage } from '@tm/contracts';
import { createLogger } from '@tm/kit';
import { MemoryConfigSchema, type MemoryService, startMemoryService } from '@tm/memory';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { z } from 'zod';
import { createMemoryWriter, type WriteMemory } from '../src/clients/memory-writer.js';
import { closePrisma, initPrisma } from '../src/data-access/prisma-client.js';
import { storeTemplateMemory } from '../src/data-access/template-memory-repository.js';
import { createTemplateMemory } from '../src/domain/template-memories/create-template-memory.js';

// The real memory service on the run's private NATS and database: the writes below are real writes.
let memoryService: MemoryService;
let nc: NatsConnection;
const logger = createLogger({ name: 'template-test', level: 'silent' });
beforeAll(async () => {
  const env = inject('stack');
  initPrisma(env.templateDbUrl, 2);
  memoryService = await startMemoryService(
    MemoryConfigSchema.parse({ MEMORY_DATABASE_URL: env.memoryDbUrl, NATS_URL: env.natsUrl }),
    logger,
  );
  nc = await connectBus({ servers: env.natsUrl, name: 'template-test', logger });
});
afterAll(async () => {
  await nc?.drain();
  await memoryService?.stop();
  await closePrisma();
});

/** memory.v1.write to the real memory service, noting each message sent. */
function recordingMemoryWriter() {
  const sent: Array<z.input<typeof MemoryWriteMessage>> = [];
  const { write } = createMemoryWriter(nc, { timeoutMs: 5_000, breakerResetMs: 5_000, logger });
  const writeMemory: WriteMemory = (msg) => {
    sent.push(msg);
    return write(msg);
  };
  return { sent, writeMemory };
}

/** Records the memory service holds for a tenant, read from its database. */
async function memoryRecordsOf(tenantId: string): Promise<number> {
  const client = new pg.Client({ connectionString: inject('stack').memoryDbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      'SELECT count(*) AS n FROM memory_record WHERE tenant_id = $1',
      [tenantId],
    );
    return Number(rows[0]?.n);
  } finally {
    await client.end();
  }
}

const message = (data: Record<string, unknown>): CreateTemplateMemoryMessage => ({
  scope: {
    tenant_id: randomUUID(),
    user_id: randomUUID(),
    key_id: randomUUID(),
    storage_connection_id: randomUUID(),
    consent: 'granted',
  },
  request_id: `req-${randomUUID()}`,
  idempotency_key: `key-${randomUUID()}`,
  body: { marketplace_template_id: 'meeting-notes', namespace: 'templates', data },
});
const meeting = { title: 'Roadmap', date: '2026-11-20', summary: 'Search first.' };

describe('createTemplateMemory', () => {
  it('when storing the template memory fails after the write, then a retry with the same key sends the same write and answers that memory', async () => {
    const memory = recordingMemoryWriter();
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
    expect(await memoryRecordsOf(msg.scope.tenant_id)).toBe(1);
  });

  it('when the database refuses the data, then it fails before the memory is written', async () => {
    const memory = recordingMemoryWriter();
    // Past the zod bound (which the endpoint applies first): the database driver's own limit.
    let deep: unknown = 'bottom';
    for (let i = 0; i < 200; i++) deep = [deep];

    const msg = message({ ...meeting, attendees: deep });
    const attempt = createTemplateMemory(msg, {
      ...memory,
      storeMemory: storeTemplateMemory,
    });

    await expect(attempt).rejects.toThrow();
    expect(memory.sent).toEqual([]);
    expect(await memoryRecordsOf(msg.scope.tenant_id)).toBe(0);
  });
});
