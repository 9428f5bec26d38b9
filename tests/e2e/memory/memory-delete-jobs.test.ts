import { MemoryConfigSchema } from '@tm/memory';
import { describe, expect, it } from 'vitest';
import { type DeleteReceipt, TextMemory } from '../../../libs/clients/sdk/src/index.js';
import { cliUsers, requireBuiltCli } from '../support/cli.js';
import { followDeletion, holdJob, tenantWithRecords } from '../support/deletions.js';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { memoryDbCount, recordsInNamespace } from '../support/memory-db.js';
import { startServiceProcess } from '../support/service-process.js';
import { stackEnv, useStack } from '../support/stack.js';

/**
 * Namespace deletion as a job: batches of 5 records, so a few thousand records take hundreds
 * of committed batches, and no wait in the DELETE, so it always answers 202 and the client follows
 * the status route.
 */
const BATCHES_OF_FIVE = { MEMORY_DELETE_BATCH_SIZE: '5', MEMORY_DELETE_WAIT_MS: '0' };
/** Thousands of writes, then hundreds of batches, on two shared cores. */
const TEST_MS = 240_000;

const t = useStack({ memoryEnv: { ...BATCHES_OF_FIVE, MEMORY_DELETE_INTERVAL_MS: '200' } });

const jobRow = (id: string) =>
  memoryDbCount("SELECT records AS n FROM namespace_deletion WHERE id = $1 AND status = 'in_progress'", [id]);

describe('DELETE /api/v1/memory as a job', () => {
  it(
    'when a namespace of 2,000 records is deleted in batches of 5, then one call starts it, its records are hidden at once, and polling follows it to the end',
    async () => {
      const namespace = uniqueNamespace('big');
      const tenant = await tenantWithRecords(t.api, namespace, 2_000);
      const other = await createTenant();
      const one = await t.api.write(
        tenant.api_key,
        writeBody(namespace, 'the harbour crane, once more'),
        uniqueKey(),
      );

      const res = await t.api.deleteNamespace(tenant.api_key, namespace);
      const release = await holdJob(res.body.deletion.id);
      try {
        expect(res).toMatchObject({
          status: 202,
          headers: {
            location: `/api/v1/memory/deletions/${res.body.deletion.id}`,
            'retry-after': '1',
          },
          body: {
            state: 'not_retained',
            namespace,
            deletion: { status: 'in_progress', progress: { records_total: 2_001 }, finished_at: null },
          },
        });
        // While the job runs: nothing of the namespace is readable, a write waits for the end, asking
        // again answers the same job, and another tenant cannot see it.
        const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'harbour crane'));
        const read = await t.api.get(`/v1/memories/${one.body.memory_id}`, { key: tenant.api_key });
        const session = await t.api.login(tenant.owner.email, tenant.owner.password);
        const listed = await t.api.get('/api/v1/infrastructure/namespaces', { key: session });
        const write = await t.api.write(tenant.api_key, writeBody(namespace, 'too soon'), uniqueKey());
        const again = await t.api.deleteNamespace(tenant.api_key, namespace);
        const foreign = await t.api.deletion(other.api_key, res.body.deletion.id);
        const foreignDelete = await t.api.deleteNamespace(other.api_key, namespace);

        expect(recalled).toMatchObject({ status: 200, body: { state: 'no_data', related: [] } });
        expect(read).toMatchObject({ status: 404 });
        expect(listed).toMatchObject({ status: 200, body: { data: [] } });
        expect(write).toMatchObject({
          status: 409,
          headers: { 'retry-after': '1' },
          body: { retryable: true, details: { code: 'namespace_being_deleted' } },
        });
        expect(again).toMatchObject({
          status: 202,
          body: { deletion: { id: res.body.deletion.id, status: 'in_progress' } },
        });
        expect(foreign).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
        expect(foreignDelete).toMatchObject({ status: 200, body: { state: 'no_data', deleted: 0 } });
      } finally {
        await release();
      }

      const seen = await followDeletion(t.api, tenant.api_key, res.body.deletion.id);

      const deleted = seen.map((s) => s.body.deletion.progress.records_deleted as number);
      expect(deleted).toEqual([...deleted].sort((a, b) => a - b));
      expect(seen.at(-1)).toMatchObject({
        status: 200,
        body: {
          state: 'not_retained',
          deleted: 2_001,
          retained: 0,
          removed: { idempotency_entries: 2_001 },
          deletion: { status: 'completed', progress: { records_deleted: 2_001, records_total: 2_001 } },
        },
      });
      // 401 batches of records alone, and as many of idempotency entries.
      expect(seen.at(-1)?.body.deletion.progress.batches).toBeGreaterThan(800);
      expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
      const after = await t.api.write(tenant.api_key, writeBody(namespace, 'a new start'), uniqueKey());
      expect(after).toMatchObject({ status: 200, body: { state: 'retained' } });
    },
    TEST_MS,
  );

  it(
    'when the memory service is killed mid-deletion and started again, then the job goes on from its last batch and the deleted count adds up',
    async () => {
      const namespace = uniqueNamespace('crash');
      const tenant = await tenantWithRecords(t.api, namespace, 1_500);
      // The stack's memory service steps aside for one in its own process, which can be SIGKILLed.
      await t.stack.stopMemory();
      const env = stackEnv();
      const doomed = await startServiceProcess('memory', {
        MEMORY_DATABASE_URL: env.memoryDbUrl,
        NATS_URL: env.natsUrl,
        ...BATCHES_OF_FIVE,
      });
      let killed = false;
      let restarted = false;
      try {
        const res = await t.api.deleteNamespace(tenant.api_key, namespace);
        expect(res).toMatchObject({ status: 202, body: { deletion: { status: 'in_progress' } } });
        const id = res.body.deletion.id as string;
        await expect.poll(() => jobRow(id), EVENTUALLY).toBeGreaterThan(0);

        await doomed.kill('SIGKILL');
        killed = true;
        const atCrash = await jobRow(id);
        expect(atCrash).toBeGreaterThan(0);
        expect(atCrash).toBeLessThan(1_500);

        await t.stack.startMemory();
        restarted = true;
        const seen = await followDeletion(t.api, tenant.api_key, id);

        for (const s of seen)
          expect(s.body.deletion.progress.records_deleted).toBeGreaterThanOrEqual(atCrash);
        expect(seen.at(-1)).toMatchObject({
          status: 200,
          body: {
            deleted: 1_500,
            retained: 0,
            deletion: { status: 'completed', progress: { records_deleted: 1_500, records_total: 1_500 } },
          },
        });
        expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
      } finally {
        if (!killed) await doomed.kill('SIGKILL');
        if (!restarted) await t.stack.startMemory();
      }
    },
    TEST_MS,
  );

  it(
    'when the SDK deletes a namespace, then it follows the job with onProgress to the final receipt; with maxWaitMs 0 it returns the receipt as it stands',
    async () => {
      const namespace = uniqueNamespace('sdk');
      const tenant = await tenantWithRecords(t.api, namespace, 300);
      const tm = new TextMemory({ baseUrl: t.stack.url, apiKey: tenant.api_key });
      const progress: DeleteReceipt[] = [];

      const receipt = await tm.memory.delete(namespace, {
        pollIntervalMs: 100,
        onProgress: (r) => progress.push(r),
      });

      expect(receipt).toMatchObject({
        state: 'not_retained',
        deleted: 300,
        retained: 0,
        deletion: { status: 'completed', progress: { records_deleted: 300, records_total: 300 } },
      });
      // The DELETE's 202 (MEMORY_DELETE_WAIT_MS 0), then at least one poll, ending with the final receipt.
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress[0]?.deletion).toMatchObject({ id: receipt.deletion.id, status: 'in_progress' });
      expect(progress.at(-1)).toEqual(receipt);
      const counts = progress.map((r) => r.deletion.progress.records_deleted);
      expect(counts).toEqual([...counts].sort((a, b) => a - b));

      const other = uniqueNamespace('sdk-bounded');
      await tm.memory.write({ namespace: other, text: 'one of many' });
      await tm.memory.write({ namespace: other, text: 'two of many' });
      const bounded = await tm.memory.delete(other, { maxWaitMs: 0 });
      expect(bounded).toMatchObject({ state: 'not_retained', deletion: { status: 'in_progress' } });
      await expect
        .poll(async () => (await tm.memory.deletion(bounded.deletion.id)).deletion.status, EVENTUALLY)
        .toBe('completed');
    },
    TEST_MS,
  );

  it(
    'when tm deletes a namespace, then it waits for the job, printing records deleted of the total on stderr',
    async () => {
      requireBuiltCli();
      const namespace = uniqueNamespace('cli');
      const tenant = await tenantWithRecords(t.api, namespace, 300);
      const { tm } = cliUsers(() => t.stack.url)();

      const run = await tm(['delete', '-n', namespace, '--yes'], { env: { TM_API_KEY: tenant.api_key } });

      expect(run.code, run.stderr).toBe(0);
      const lines = run.stderr.trim().split('\n');
      expect(lines[0]).toMatch(/^delete \d+\/300 records$/);
      expect(lines.at(-1)).toBe('delete 300/300 records');
      expect(run.stdout).toMatch(/state:\s+not_retained/);
      expect(run.stdout).toMatch(/deleted:\s+300/);
      expect(run.stdout).toMatch(/deletion:\s+\S+ \(completed\)/);
      expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
    },
    TEST_MS,
  );

  it('when the batch size is not a whole number from 1 to 50,000, then the memory service refuses to start', () => {
    const base = {
      MEMORY_DATABASE_URL: 'postgresql://localhost/tm_memory',
      NATS_URL: 'nats://localhost:4222',
    };
    for (const bad of ['0', '-5', '2.5', 'many', '50001']) {
      expect(MemoryConfigSchema.safeParse({ ...base, MEMORY_DELETE_BATCH_SIZE: bad }).success).toBe(false);
    }
    expect(MemoryConfigSchema.parse({ ...base, MEMORY_DELETE_BATCH_SIZE: '5' })).toMatchObject({
      MEMORY_DELETE_BATCH_SIZE: 5,
      MEMORY_DELETE_WAIT_MS: 2_000,
    });
  });
});
