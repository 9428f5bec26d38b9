import { poolRunner } from '@tm/kit';
import { loadMemoryConfig, pruneExpiredEntries } from '@tm/memory';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { recordsWithEvent } from '../support/memory-db.js';
import { stackEnv, useStack } from '../support/stack.js';

const t = useStack();
const RETENTION_HOURS = 24;

let pool: pg.Pool;
beforeAll(() => {
  pool = new pg.Pool({ connectionString: stackEnv().memoryDbUrl, max: 2 });
});
afterAll(() => pool.end());

/** Make an entry look `hours` old, as if written then: the test cannot wait a day. */
const age = (tenantId: string, key: string, hours: number) =>
  pool.query(
    `UPDATE idempotency_entry SET created_at = now() - $3::float8 * interval '1 hour' WHERE tenant_id = $1 AND key = $2`,
    [tenantId, key, hours],
  );
const entries = async (tenantId: string, key: string) =>
  (await pool.query('SELECT 1 FROM idempotency_entry WHERE tenant_id = $1 AND key = $2', [tenantId, key]))
    .rowCount;

describe('Idempotency retention (IDEMPOTENCY_RETENTION_HOURS)', () => {
  it('when a key is retried just inside its retention after pruning, then it still replays or conflicts', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();
    const first = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'kept a day', { event_id: 'in-1' }),
      key,
    );
    await age(tenant.tenant_id, key, RETENTION_HOURS - 0.1);

    await pruneExpiredEntries(poolRunner(pool), RETENTION_HOURS);

    const replay = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'kept a day', { event_id: 'in-1' }),
      key,
    );
    expect(replay).toMatchObject({
      status: 200,
      body: { idempotency_outcome: 'Replayed', memory_id: first.body.memory_id },
    });
    const other = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'another text', { event_id: 'in-2' }),
      key,
    );
    expect(other).toMatchObject({ status: 409, body: { details: { code: 'idempotency_conflict' } } });
  });

  it('when a key has expired and been pruned, then it is free for a new write, and the old event still cannot be stored twice', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const key = uniqueKey();
    await t.api.write(tenant.api_key, writeBody(namespace, 'written long ago', { event_id: 'old-1' }), key);
    await age(tenant.tenant_id, key, RETENTION_HOURS + 0.1);

    expect(await pruneExpiredEntries(poolRunner(pool), RETENTION_HOURS)).toBeGreaterThanOrEqual(1);

    expect(await entries(tenant.tenant_id, key)).toBe(0);
    const reused = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'a new write', { event_id: 'new-1' }),
      key,
    );
    expect(reused).toMatchObject({
      status: 200,
      body: { idempotency_outcome: 'Accepted', event_id: 'new-1' },
    });
    const again = await t.api.write(
      tenant.api_key,
      writeBody(namespace, 'written long ago', { event_id: 'old-1' }),
      uniqueKey(),
    );
    expect(again).toMatchObject({ status: 409, body: { details: { code: 'duplicate_event' } } });
    expect(await recordsWithEvent(tenant.tenant_id, namespace, 'old-1')).toBe(1);
  });

  it('when entries of both ages exist, then pruning removes only the expired ones', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace();
    const [expired, fresh] = [uniqueKey(), uniqueKey()];
    await t.api.write(tenant.api_key, writeBody(namespace, 'one', { event_id: 'p-1' }), expired);
    await t.api.write(tenant.api_key, writeBody(namespace, 'two', { event_id: 'p-2' }), fresh);
    await age(tenant.tenant_id, expired, RETENTION_HOURS * 3);

    await pruneExpiredEntries(poolRunner(pool), RETENTION_HOURS);

    expect(await entries(tenant.tenant_id, expired)).toBe(0);
    expect(await entries(tenant.tenant_id, fresh)).toBe(1);
  });

  it('when the retention is not a positive whole number of hours, then the memory service refuses to start', () => {
    for (const bad of ['0', '-5', '1.5', 'a day']) {
      expect(() => loadMemoryConfig({ IDEMPOTENCY_RETENTION_HOURS: bad }), bad).toThrow(
        /IDEMPOTENCY_RETENTION_HOURS/,
      );
    }
    expect(loadMemoryConfig({}).IDEMPOTENCY_RETENTION_HOURS).toBe(24);
  });
});
