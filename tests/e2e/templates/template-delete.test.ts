import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import { TextMemory } from '../../../libs/clients/sdk/src/index.js';
import { getPrisma } from '../../../services/template/src/data-access/prisma-client.js';
import { deleteNamespaceBatch } from '../../../services/template/src/data-access/template-memory-repository.js';
import { deleteAll } from '../../../services/template/src/domain/template-memories/delete-namespace-memories.js';
import { followDeletion } from '../support/deletions.js';
import { createTenant, uniqueKey, uniqueNamespace } from '../support/factories.js';
import { importSteps } from '../support/imports.js';
import { recordsInNamespace } from '../support/memory-db.js';
import { stackEnv, useStack } from '../support/stack.js';
import { bugTemplate, templateSteps, uniqueName } from '../support/templates.js';

/**
 * A namespace deletion's template part: batches of 5 rows, each committed, and no wait in the
 * template service, so a DELETE answers while the deletion goes on without it (202, in progress).
 */
vi.setConfig({ testTimeout: 180_000 });
const t = useStack({
  templateEnv: {
    TEMPLATE_DELETE_BATCH_SIZE: '5',
    TEMPLATE_DELETE_WAIT_MS: '0',
    IMPORT_POLL_MS: '200',
  },
});
const { createTemplate, createMemory } = templateSteps(t);
const { upload, runToCompletion } = importSteps(t);
const IMPORT_ROWS = 40;

/** What the template DB still holds of a tenant's namespace: memories, requests, import jobs, rows, chunks. */
async function heldInTemplateDb(tenantId: string, namespace: string) {
  const client = new pg.Client({ connectionString: stackEnv().templateDbUrl });
  await client.connect();
  const count = async (sql: string) =>
    Number((await client.query<{ n: string }>(sql, [tenantId, namespace])).rows[0]?.n);
  try {
    const jobs = 'SELECT id FROM import_job WHERE tenant_id = $1 AND namespace = $2';
    return {
      templateMemories: await count(
        'SELECT count(*) AS n FROM template_memory WHERE tenant_id = $1 AND namespace = $2',
      ),
      memoryRequests: await count(
        'SELECT count(*) AS n FROM memory_request WHERE tenant_id = $1 AND namespace = $2',
      ),
      importJobs: await count(`SELECT count(*) AS n FROM (${jobs}) j`),
      importRows: await count(`SELECT count(*) AS n FROM import_row WHERE import_id IN (${jobs})`),
      importChunks: await count(`SELECT count(*) AS n FROM import_chunk WHERE import_id IN (${jobs})`),
    };
  } finally {
    await client.end();
  }
}
const NOTHING = { templateMemories: 0, memoryRequests: 0, importJobs: 0, importRows: 0, importChunks: 0 };

/** A namespace holding `memories` template memories and a completed import of IMPORT_ROWS rows; their ids. */
async function namespaceWithTemplateData(key: string, namespace: string, memories: number) {
  const name = uniqueName('del');
  await createTemplate(key, bugTemplate(name));
  const ids: string[] = [];
  for (let i = 0; i < memories; i++) {
    const res = await createMemory(
      key,
      { template_name: name, namespace, data: { title: `bug ${i}` } },
      uniqueKey(),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    ids.push(res.body.memory_id);
  }
  const csv = ['text', ...Array.from({ length: IMPORT_ROWS }, (_, i) => `imported fact ${i}`)].join('\n');
  const created = await upload(key, { format: '{text}', namespace }, csv, 'facts.csv');
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const importId = created.body.id as string;
  const started = await t.api.post(`/v1/imports/${importId}/start`, { key });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const { job } = await runToCompletion(key, importId);
  expect(job).toMatchObject({ state: 'completed', retained: IMPORT_ROWS, failed: 0 });
  return { ids, importId };
}

describe('DELETE /api/v1/memory: the template part in committed batches', () => {
  it('when a namespace with template memories and an import is deleted in batches of 5, then one SDK call deletes it all: every memory is 404 and the template DB holds nothing of it', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('tpl-del');
    const { ids, importId } = await namespaceWithTemplateData(tenant.api_key, namespace, 30);
    const before = await heldInTemplateDb(tenant.tenant_id, namespace);
    expect(before).toMatchObject({ templateMemories: 30, importJobs: 1, importRows: IMPORT_ROWS });

    const tm = new TextMemory({ baseUrl: t.stack.url, apiKey: tenant.api_key });
    const receipt = await tm.memory.delete(namespace, { maxWaitMs: 60_000 });

    expect(receipt).toMatchObject({ namespace, state: 'not_retained', deletion: { status: 'completed' } });
    for (const id of ids) {
      expect(await t.api.get(`/v1/memories/${id}`, { key: tenant.api_key })).toMatchObject({
        status: 404,
        body: { details: { code: 'not_found' } },
      });
    }
    expect(await t.api.get(`/v1/imports/${importId}`, { key: tenant.api_key })).toMatchObject({
      status: 404,
      body: { details: { code: 'not_found' } },
    });
    expect(await heldInTemplateDb(tenant.tenant_id, namespace)).toEqual(NOTHING);
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
  });

  it('when the DELETE is answered before the template part is done, then its memories are hidden at once, the receipt stays in progress until that part has ended, and nothing is left once it completes', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('tpl-del-bg');
    const { ids } = await namespaceWithTemplateData(tenant.api_key, namespace, 20);

    const first = await t.api.deleteNamespace(tenant.api_key, namespace);
    const read = await t.api.get(`/v1/memories/${ids[0]}`, { key: tenant.api_key });

    // Nothing waited for the template part (TEMPLATE_DELETE_WAIT_MS 0): never a 503, the memory job
    // started (its records hidden), and the receipt in progress whatever memory's job has done.
    expect(first).toMatchObject({
      status: 202,
      headers: { 'retry-after': '1' },
      body: { namespace, deletion: { status: 'in_progress', finished_at: null } },
    });
    expect(read).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    const seen = await followDeletion(t.api, tenant.api_key, first.body.deletion.id);
    expect(seen.at(-1)).toMatchObject({ status: 200, body: { deletion: { status: 'completed' } } });
    expect(await heldInTemplateDb(tenant.tenant_id, namespace)).toEqual(NOTHING);
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
  });

  it('when a deletion stopped after some committed batches is run again, then it goes on from there and the counts add up', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('tpl-del-resume');
    await namespaceWithTemplateData(tenant.api_key, namespace, 12);
    const db = getPrisma();

    // The first run stops (a crash, a shutdown) after 11 committed batches: the import's 40 rows, its
    // emptied job (its chunks went when the upload was read), then 10 of the 12 template memories.
    const firstRun = [];
    for (let i = 0; i < 11; i++)
      firstRun.push(await deleteNamespaceBatch(db, tenant.tenant_id, namespace, 5));
    const between = await heldInTemplateDb(tenant.tenant_id, namespace);
    const rest = await deleteAll(db, { tenant_id: tenant.tenant_id, namespace }, 5);

    expect(firstRun).toEqual([
      ...Array.from({ length: IMPORT_ROWS / 5 }, () => ({ part: 'import_rows', count: 5 })),
      { part: 'import_jobs', count: 1 },
      { part: 'template_memories', count: 5 },
      { part: 'template_memories', count: 5 },
    ]);
    expect(between).toEqual({ ...NOTHING, templateMemories: 2, memoryRequests: 12 });
    expect(rest).toEqual({ template_memories: 2, import_jobs: 0 });
    expect(await heldInTemplateDb(tenant.tenant_id, namespace)).toEqual(NOTHING);
    expect(await deleteAll(db, { tenant_id: tenant.tenant_id, namespace }, 5)).toEqual({
      template_memories: 0,
      import_jobs: 0,
    });
  });
});
