import { Subjects } from '@tm/contracts';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import {
  createTenant,
  recallBody,
  uniqueKey,
  uniqueNamespace,
  usageRecordFor,
  writeBody,
} from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { usageInStream, usageMessages } from '../support/usage-stream.js';

const t = useStack();

describe('usage records from the memory outbox', () => {
  it('when writes are replayed and recalls made, then JetStream holds one usage record per billable operation', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const keys = [uniqueKey(), uniqueKey(), uniqueKey()];
    for (const [i, key] of keys.entries()) {
      const body = writeBody(namespace, `usage note ${i}`, { event_id: `u-${i}` });
      await t.api.write(tenant.api_key, body, key);
      await t.api.write(tenant.api_key, body, key); // replay: billed once
    }
    await t.api.recall(tenant.api_key, recallBody(namespace, 'usage note'));

    await t.stack.memory.flushOutbox();
    const records = await usageInStream(tenant.tenant_id);

    expect(
      records
        .filter((r) => r.operation === 'memory.write')
        .map((r) => r.idempotency_key)
        .sort(),
    ).toEqual([...keys].sort());
    expect(records.filter((r) => r.operation === 'memory.recall')).toHaveLength(1);
    expect(
      records.every((r) => r.units === 1 && r.namespace === namespace && r.key_id === tenant.key_id),
    ).toBe(true);
    expect(JSON.stringify(records)).not.toContain('usage note');
  });

  it('when rows are pending, then one relay pass publishes them together as a batch message', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    // Rows as the write path leaves them, inserted in one statement so that a pass finds all or none.
    const keys = [uniqueKey(), uniqueKey(), uniqueKey()];
    const records = keys.map((key) => usageRecordFor(tenant, { namespace, idempotency_key: key }));
    const db = new pg.Client({ connectionString: t.stack.env.memoryDbUrl });
    await db.connect();
    await db.query(
      `INSERT INTO outbox_message (id, subject, payload)
       SELECT id, $2, payload FROM unnest($1::uuid[], $3::jsonb[]) AS r(id, payload)`,
      [records.map((r) => r.usage_id), Subjects.memory.usageRecorded, records.map((r) => JSON.stringify(r))],
    );
    await db.end();
    await t.stack.memory.flushOutbox();

    const carrying = (await usageMessages()).filter((m) =>
      m.records.some((r) => r.tenant_id === tenant.tenant_id),
    );
    expect(carrying).toHaveLength(1);
    expect(carrying[0]?.batch).toBe(true);
    expect(carrying[0]?.records.map((r) => r.idempotency_key).sort()).toEqual([...keys].sort());
  });

  it('when the relay re-sends a row it had published but not removed (a crash in between), then the stream keeps one copy', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    await t.api.write(tenant.api_key, writeBody(namespace, 'crash window'), uniqueKey());
    await t.stack.memory.flushOutbox();
    const before = await usageInStream(tenant.tenant_id);

    // The row as it was before the relay removed it: same id (the stream's msg id), same payload.
    const db = new pg.Client({ connectionString: t.stack.env.memoryDbUrl });
    await db.connect();
    const [record] = before;
    await db.query('INSERT INTO outbox_message (id, subject, payload) VALUES ($1, $2, $3)', [
      record?.usage_id,
      'memory.v1.usage.recorded',
      JSON.stringify(record),
    ]);
    await t.stack.memory.flushOutbox();
    const left = await db.query('SELECT count(*)::int AS n FROM outbox_message WHERE id = $1', [
      record?.usage_id,
    ]);
    await db.end();
    const after = await usageInStream(tenant.tenant_id);

    expect(before).toHaveLength(1);
    expect(after).toEqual(before);
    expect(left.rows[0].n).toBe(0);
  });

  it('when a relay batch worth of pending rows cannot be published, then the rows behind them still reach the stream', async () => {
    const tenant = await createTenant();
    const db = new pg.Client({ connectionString: t.stack.env.memoryDbUrl });
    await db.connect();
    // No stream listens on this subject, so JetStream refuses these on every attempt; they are older
    // than the write's row and more than one relay pass takes.
    await db.query(
      `INSERT INTO outbox_message (id, subject, payload, created_at)
       SELECT gen_random_uuid(), 'memory.v1.unrouted', '{}', now() - interval '1 hour'
         FROM generate_series(1, 600)`,
    );

    await t.api.write(tenant.api_key, writeBody(uniqueNamespace(), 'behind a stuck row'), uniqueKey());
    await t.stack.memory.flushOutbox();
    const records = await usageInStream(tenant.tenant_id);
    const stuck = await db.query(`SELECT attempts FROM outbox_message WHERE subject = 'memory.v1.unrouted'`);
    await db.query(`DELETE FROM outbox_message WHERE subject = 'memory.v1.unrouted'`);
    await db.end();

    expect(records.map((r) => r.operation)).toEqual(['memory.write']);
    expect(stuck.rows).toHaveLength(600);
    expect(stuck.rows.every((r) => r.attempts > 0)).toBe(true);
  });
});
