import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { followDeletion, holdCompletions, tenantWithRecords } from '../support/deletions.js';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { importSteps } from '../support/imports.js';
import { recordsInNamespace } from '../support/memory-db.js';
import { handMadeExport, RESTORE, restore } from '../support/restores.js';
import { useStack } from '../support/stack.js';
import { type StubHub, startStubHub } from '../support/stub-hub.js';
import { templateDbCount } from '../support/template-db.js';
import { bugTemplate, templateSteps, uniqueName } from '../support/templates.js';

/**
 * A namespace deleted while something writes into it: a restore, a document import, a dataset import
 * from the (stub) model hub, a template memory, single and batch writes. Jobs written slowly (batches
 * of 10, two at a time) so the DELETE lands mid-job; memory's deletion in batches of 5 with no wait in
 * the DELETE, so it answers 202 and its job (kept from completing while the test looks:
 * holdCompletions) is followed to the end.
 */
let hub: StubHub;
beforeAll(async () => {
  hub = await startStubHub();
});
afterAll(() => hub?.close());

const t = useStack({
  memoryEnv: { MEMORY_DELETE_BATCH_SIZE: '5', MEMORY_DELETE_WAIT_MS: '0', MEMORY_DELETE_INTERVAL_MS: '200' },
  templateEnv: () => ({
    IMPORT_POLL_MS: '100',
    IMPORT_BATCH_SIZE: '10',
    IMPORT_CONCURRENCY: '2',
    ...hub.env,
    // a row page the test holds through a whole deletion is still awaited, not timed out
    HUB_TIMEOUT_MS: '170000',
  }),
});
const { upload, runToCompletion } = importSteps(t);
const { createTemplate, createMemory } = templateSteps(t);

const TEST_MS = 240_000;
const ROWS = 1_000;

const importRowsOf = (id: string) =>
  templateDbCount('SELECT count(*) AS n FROM import_row WHERE import_id = $1', [id]);

/** A job's status read until it has settled some rows (it is then mid-job: ROWS take many batches). */
const partlyDone = (key: string, path: string) =>
  eventually(
    async () => {
      const res = await t.api.get(path, { key });
      expect(res.body.processed, `${path}: rows processed`).toBeGreaterThan(0);
      return res;
    },
    { timeout: 120_000, interval: 20 },
  );

/** While the namespace is being deleted: what a client trying to write or read into it gets. */
async function duringDeletion(key: string, namespace: string) {
  return {
    write: await t.api.write(key, writeBody(namespace, 'written during the deletion'), uniqueKey()),
    batch: await t.api.post('/api/v1/memory/write/batch', {
      key,
      body: {
        contract_version: 'v1',
        namespace,
        items: [
          {
            idempotency_key: uniqueKey(),
            event: { occurred_at: '2026-11-29T10:00:00Z', content: { text: 'batched during the deletion' } },
          },
        ],
      },
    }),
    recall: await t.api.recall(key, recallBody(namespace, 'lighthouse keeper note')),
  };
}

/**
 * DELETE the namespace with the deletion kept from completing while `meanwhile` looks (holdCompletions),
 * then follow the deletion to its end: the DELETE's answer and what `meanwhile` saw.
 */
async function deleteHeldOpen<T>(key: string, namespace: string, meanwhile: () => Promise<T>) {
  const release = await holdCompletions();
  const deleted = await t.api.deleteNamespace(key, namespace);
  let seen: T;
  try {
    seen = await meanwhile();
  } finally {
    await release();
  }
  await followDeletion(t.api, key, deleted.body.deletion.id);
  return { deleted, seen };
}

const refused = {
  status: 409,
  headers: { 'retry-after': '1' },
  body: { retryable: true, details: { code: 'namespace_being_deleted' } },
};

describe('DELETE /api/v1/memory while a restore writes into the namespace', () => {
  it(
    'when the namespace is deleted mid-restore, then the restore ends cancelled with its counts, writes are refused and recall is empty meanwhile, and nothing is left once the deletion completes',
    async () => {
      const tenant = await createTenant();
      const key = tenant.api_key;
      const namespace = uniqueNamespace('restoring');
      const records = Array.from({ length: ROWS }, (_, i) => ({
        event_id: `r${i}`,
        text: `lighthouse keeper note ${i}`,
      }));
      const started = await restore(t.api, key, handMadeExport(namespace, records));
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const path = `${RESTORE}/${started.body.id}`;
      await partlyDone(key, path);

      const { deleted, seen } = await deleteHeldOpen(key, namespace, async () => ({
        job: await t.api.get(path, { key }),
        meanwhile: await duringDeletion(key, namespace),
      }));
      const { job, meanwhile } = seen;
      const after = await t.api.get(path, { key });

      expect(deleted).toMatchObject({
        status: 202,
        body: { namespace, deletion: { status: 'in_progress', finished_at: null } },
      });
      expect(job).toMatchObject({
        status: 200,
        body: {
          id: started.body.id,
          state: 'cancelled',
          namespace,
          total: ROWS,
          completed_at: expect.any(String),
        },
      });
      const { processed, written, already_present, failed } = job.body;
      expect(processed).toBe(written + already_present + failed);
      expect(written).toBeGreaterThan(0);
      expect(processed).toBeLessThan(ROWS);
      expect(meanwhile.write).toMatchObject(refused);
      expect(meanwhile.batch).toMatchObject(refused);
      expect(meanwhile.recall).toMatchObject({ status: 200, body: { state: 'no_data', related: [] } });
      // Once completed: the job is still there, cancelled, with the same counts; nothing of the
      // namespace is left in either service.
      expect(after).toMatchObject({ status: 200, body: job.body });
      expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
      expect(await importRowsOf(started.body.id)).toBe(0);
    },
    TEST_MS,
  );
});

describe('DELETE /api/v1/memory while a document import writes into the namespace', () => {
  it(
    'when the namespace is deleted mid-import, then the import ends cancelled with its counts, a template memory into it is refused, and nothing is left once the deletion completes',
    async () => {
      const tenant = await createTenant();
      const key = tenant.api_key;
      const namespace = uniqueNamespace('importing');
      const csv = ['note', ...Array.from({ length: ROWS }, (_, i) => `lighthouse keeper note ${i}`)].join(
        '\n',
      );
      const created = await upload(key, { format: '{note}', namespace }, csv, 'notes.csv');
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const path = `/v1/imports/${created.body.id}`;
      expect((await t.api.post(`${path}/start`, { key })).status).toBe(202);
      await partlyDone(key, path);
      const template = await createTemplate(key, bugTemplate(uniqueName('fence')));

      const { deleted, seen } = await deleteHeldOpen(key, namespace, async () => ({
        job: await t.api.get(path, { key }),
        memory: await createMemory(
          key,
          { template_name: template.template_name, namespace, data: { title: 'Crane stuck' } },
          uniqueKey(),
        ),
        meanwhile: await duringDeletion(key, namespace),
      }));
      const { job, memory, meanwhile } = seen;
      const after = await t.api.get(path, { key });

      expect(deleted).toMatchObject({
        status: 202,
        body: { namespace, deletion: { status: 'in_progress' } },
      });
      expect(job).toMatchObject({
        status: 200,
        body: {
          id: created.body.id,
          state: 'cancelled',
          namespace,
          total: ROWS,
          completed_at: expect.any(String),
        },
      });
      expect(job.body.processed).toBe(job.body.retained + job.body.failed);
      expect(job.body.retained).toBeGreaterThan(0);
      expect(job.body.processed).toBeLessThan(ROWS);
      expect(memory).toMatchObject(refused);
      expect(meanwhile.write).toMatchObject(refused);
      expect(meanwhile.recall).toMatchObject({ status: 200, body: { state: 'no_data', related: [] } });
      expect(after).toMatchObject({ status: 200, body: job.body });
      expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
      expect(await importRowsOf(created.body.id)).toBe(0);
    },
    TEST_MS,
  );
});

describe('DELETE /api/v1/memory while a dataset import reads the hub and writes into the namespace', () => {
  it(
    'when the namespace is deleted while a row page is on its way from the hub, then the import ends cancelled with its counts, recall is empty at once, and the page arriving after the deletion completed leaves nothing',
    async () => {
      const tenant = await createTenant();
      const key = tenant.api_key;
      const namespace = uniqueNamespace('hub-importing');
      const dataset = {
        id: `stub-org/fenced-${process.pid}-${randomBytes(4).toString('hex')}`,
        sha: randomBytes(20).toString('hex'),
        configs: {
          default: {
            train: Array.from({ length: ROWS }, (_, i) => ({ note: `lighthouse keeper note ${i}` })),
          },
        },
        columns: ['note'],
      };
      hub.add(dataset);
      const created = await t.api.post('/v1/imports', {
        key,
        body: { dataset: dataset.id, split: 'train', format: '{note}', namespace },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const path = `/v1/imports/${created.body.id}`;
      expect((await t.api.post(`${path}/start`, { key })).status).toBe(202);
      await partlyDone(key, path);
      // The hub goes slow: the worker's next row page is held, so the DELETE lands while it is read.
      const page = hub.holdRows(dataset.id);
      await expect.poll(page.waiting, { timeout: 120_000, interval: 20 }).toBeGreaterThan(0);
      const before = await eventually(async () => {
        const res = await t.api.recall(key, recallBody(namespace, 'lighthouse keeper note'));
        expect(res.body.related?.length, 'recall before the DELETE').toBeGreaterThan(0);
        return res;
      });

      const { deleted, seen } = await deleteHeldOpen(key, namespace, async () => ({
        meanwhile: await duringDeletion(key, namespace),
        job: await eventually(async () => {
          const res = await t.api.get(path, { key });
          expect(res.body.state, `${path}: state`).not.toBe('processing');
          return res;
        }),
      }));
      const { job, meanwhile } = seen;
      // Only now does the hub answer; then a job started after it has run to its end, so the worker
      // (one job's batch at a time) is past the batch that read the page.
      page.release();
      const later = await upload(key, { format: '{a}', namespace: uniqueNamespace('after') }, 'a\n1\n');
      expect(later.status, JSON.stringify(later.body)).toBe(201);
      expect((await t.api.post(`/v1/imports/${later.body.id}/start`, { key })).status).toBe(202);
      expect((await runToCompletion(key, later.body.id)).job.state).toBe('completed');
      const after = await t.api.get(path, { key });

      expect(before.status).toBe(200);
      expect(deleted).toMatchObject({
        status: 202,
        body: { namespace, deletion: { status: 'in_progress' } },
      });
      expect(meanwhile.write).toMatchObject(refused);
      expect(meanwhile.batch).toMatchObject(refused);
      expect(meanwhile.recall).toMatchObject({ status: 200, body: { state: 'no_data', related: [] } });
      expect(job).toMatchObject({
        status: 200,
        body: {
          id: created.body.id,
          state: 'cancelled',
          namespace,
          dataset: { id: dataset.id, split: 'train', revision: dataset.sha },
          total: ROWS,
          completed_at: expect.any(String),
        },
      });
      expect(job.body.processed).toBe(job.body.retained + job.body.failed);
      expect(job.body.retained).toBeGreaterThan(0);
      expect(job.body.processed).toBeLessThan(ROWS);
      // Once completed, and the late page answered: the job is still there, cancelled, with the same
      // counts; nothing of the namespace is left in either service (the page's rows were not kept).
      expect(after).toMatchObject({ status: 200, body: job.body });
      expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
      expect(await importRowsOf(created.body.id)).toBe(0);
    },
    TEST_MS,
  );
});

describe('DELETE /api/v1/memory racing single writes', () => {
  it(
    'when writes race the DELETE, then each is either refused or removed with the namespace, every write after the DELETE answered is refused, and nothing is left once it completes',
    async () => {
      const namespace = uniqueNamespace('raced');
      // Enough records for the job to take many batches, so the test can hold it before it ends.
      const tenant = await tenantWithRecords(t.api, namespace, 500);
      const key = tenant.api_key;

      const racing = Array.from({ length: 20 }, (_, i) =>
        t.api.write(key, writeBody(namespace, `racing note ${i}`), uniqueKey()),
      );
      const release = await holdCompletions();
      const deleted = await t.api.deleteNamespace(key, namespace);
      let after: Awaited<ReturnType<typeof t.api.write>>;
      try {
        after = await t.api.write(key, writeBody(namespace, 'after the answer'), uniqueKey());
      } finally {
        await release();
      }
      const raced = await Promise.all(racing);
      await followDeletion(t.api, key, deleted.body.deletion.id);

      expect(deleted).toMatchObject({ status: 202, body: { namespace } });
      expect(after).toMatchObject(refused);
      for (const res of raced) expect([200, 409], JSON.stringify(res.body)).toContain(res.status);
      expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
      expect(await t.api.recall(key, recallBody(namespace, 'racing note'))).toMatchObject({
        status: 200,
        body: { state: 'no_data', related: [] },
      });
    },
    TEST_MS,
  );
});
