import { randomBytes, randomUUID } from 'node:crypto';
import { poolRunner, type SqlRunner, timeOrderedId } from '@tm/kit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  cloneDatabase,
  databaseUrl,
  dropDatabase,
  templateDatabase,
} from '../../../tests/e2e/support/private-databases.js';
import type { RetainInput } from '../src/data-access/idempotency-ledger.js';
import { closePrisma, getPool, initPrisma } from '../src/data-access/prisma-client.js';
import { createSharedStatements } from '../src/data-access/shared-statements.js';

const database = `tmt_${inject('runId')}_write_statements_${randomBytes(3).toString('hex')}`;
beforeAll(async () => {
  await cloneDatabase(database, templateDatabase(inject('runId'), 'memory'));
  initPrisma(databaseUrl(database), 2);
});
afterAll(async () => {
  await closePrisma();
  await dropDatabase(database);
});

/** A write of `terms` distinct terms, as writeMemory hands it to the shared statements. */
function retain(tenantId: string, terms: number): RetainInput {
  const words = Array.from({ length: terms }, (_, i) => `w${i}`);
  const key = `key-${randomUUID()}`;
  return {
    record: {
      id: timeOrderedId(),
      tenantId,
      userId: 'user',
      namespace: 'notes',
      eventId: `evt-${randomUUID()}`,
      occurredAt: new Date(),
      text: words.join(' '),
      terms: words,
      legacyTerms: words,
      source: null,
      requestId: `req-${randomUUID()}`,
    },
    idempotency: { key, fingerprint: 'f', response: {} },
    usage: { id: timeOrderedId(), subject: 'memory.v1.usage.recorded', payload: {} },
  };
}

describe('shared write statements', () => {
  it('when a write with thousands of postings arrives in the same turn as ordinary ones, then it has its own statement and theirs is shared', async () => {
    const real = poolRunner(getPool());
    const writesPerStatement: number[] = [];
    const run: SqlRunner = (sql, params) => {
      writesPerStatement.push(Array.isArray(params[0]) ? params[0].length : 1);
      return real(sql, params);
    };
    const retainShared = createSharedStatements(run);
    const tenantId = randomUUID();

    const outcomes = await Promise.all([
      retainShared(retain(tenantId, 12)),
      retainShared(retain(tenantId, 5_000)),
      retainShared(retain(tenantId, 20)),
      retainShared(retain(tenantId, 8)),
    ]);

    expect(outcomes.map((o) => o.claimed)).toEqual([true, true, true, true]);
    expect(writesPerStatement.sort()).toEqual([1, 3]);
  });
});
