import type { DeleteReceipt } from '@tm/contracts';
import pg from 'pg';
import { expect } from 'vitest';
import type { Api } from './api.js';
import { createTenant, uniqueKey, writeBody } from './factories.js';
import { stackEnv } from './stack.js';

/** Bounds the wait for a deletion job, not its speed: thousands of small batches on two shared cores. */
const DELETION_WAIT = { timeout: 120_000, interval: 200 };

/**
 * Poll a deletion's status route, as a client would after a 202, until the job has completed; every
 * receipt seen on the way, in order (the last is the final one).
 */
export async function followDeletion(api: Api, key: string, id: string) {
  const seen: Array<{ status: number; body: DeleteReceipt }> = [];
  await expect
    .poll(async () => {
      const res = await api.deletion(key, id);
      seen.push({ status: res.status, body: res.body });
      return res.body.deletion?.status;
    }, DELETION_WAIT)
    .toBe('completed');
  return seen;
}

/** A tenant with `records` short memories in one namespace, written through the gateway, 50 at a time. */
export async function tenantWithRecords(api: Api, namespace: string, records: number) {
  const tenant = await createTenant();
  for (let start = 0; start < records; start += 50) {
    const writes = [];
    for (let i = start; i < Math.min(start + 50, records); i++) {
      writes.push(
        api.write(tenant.api_key, writeBody(namespace, `note ${i} about the harbour crane`), uniqueKey()),
      );
    }
    for (const res of await Promise.all(writes)) expect(res.status).toBe(200);
  }
  return tenant;
}

/** A transaction that holds a deletion job's row, so the worker (SKIP LOCKED) leaves the job as it is. */
export async function holdJob(id: string) {
  const client = new pg.Client({ connectionString: stackEnv().memoryDbUrl });
  await client.connect();
  await client.query('BEGIN');
  await client.query('SELECT 1 FROM namespace_deletion WHERE id = $1 FOR UPDATE', [id]);
  return async () => {
    await client.query('COMMIT');
    await client.end();
  };
}

/**
 * Keep every namespace deletion of the stack in progress until released, however few records it has:
 * a transaction holding memory_record in ROW EXCLUSIVE mode, which a job's completion (SHARE mode, with
 * a 2 s lock timeout) waits for and gives up on, to try again at the next tick. Batches, writes and
 * reads go on meanwhile. Taken before the DELETE, so the job cannot complete before the test looks.
 */
export async function holdCompletions() {
  const client = new pg.Client({ connectionString: stackEnv().memoryDbUrl });
  await client.connect();
  await client.query('BEGIN');
  await client.query('LOCK TABLE memory_record IN ROW EXCLUSIVE MODE');
  return async () => {
    await client.query('COMMIT');
    await client.end();
  };
}
