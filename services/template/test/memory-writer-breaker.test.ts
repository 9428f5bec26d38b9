import { randomUUID } from 'node:crypto';
import { connectBus } from '@tm/bus';
import { CONTRACT_VERSION, type MemoryWriteMessage } from '@tm/contracts';
import { createLogger } from '@tm/kit';
import { describe, expect, inject, it, onTestFinished } from 'vitest';
import type { z } from 'zod';
import { createMemoryWriter } from '../src/clients/memory-writer.js';

const logger = createLogger({ name: 'memory-writer-breaker-test', level: 'silent' });

const write: z.input<typeof MemoryWriteMessage> = {
  scope: {
    tenant_id: randomUUID(),
    user_id: randomUUID(),
    key_id: randomUUID(),
    storage_connection_id: randomUUID(),
    consent: 'granted',
  },
  request_id: `req-${randomUUID()}`,
  idempotency_key: `key-${randomUUID()}`,
  body: {
    contract_version: CONTRACT_VERSION,
    operation: 'memory.write',
    namespace: 'breaker',
    event: { occurred_at: '2026-11-30T00:00:00.000Z', content: { text: 'never sent' } },
  },
};

describe('the template service writing to memory', () => {
  it('when memory cannot be reached, then after a few failed writes the breaker opens and a write is refused at once with the retryable 503 the gateway gives', async () => {
    // Arrange: a connection already closed, so every write goes unanswered.
    const nc = await connectBus({
      servers: inject('stack').natsUrl,
      name: 'memory-writer-breaker-test',
      logger,
    });
    await nc.close();
    const memory = createMemoryWriter(nc, { timeoutMs: 1_000, breakerResetMs: 60_000, logger });
    onTestFinished(memory.stop);
    for (let i = 0; i < 5; i++) await memory.write(write).catch(() => undefined);

    // Act
    const refused = await memory.write(write).catch((err: unknown) => err);

    // Assert
    expect(refused).toMatchObject({
      code: 'service_unavailable',
      status: 503,
      retryable: true,
      retryAfter: 1,
      message: 'The memory service is unavailable; retry shortly',
    });
  });
});
