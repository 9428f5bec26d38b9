import type { ExportRecord, ExportRelation, RestoreJob } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { followDeletion } from '../support/deletions.js';
import { createTenant, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import {
  type ExportFile,
  exportFile,
  followRestore,
  handMadeExport,
  RESTORE,
  restore,
} from '../support/restores.js';
import { useSecondDeployment } from '../support/second-deployment.js';
import { useStack } from '../support/stack.js';
import { usageInStream } from '../support/usage-stream.js';

const t = useStack({ templateEnv: { IMPORT_POLL_MS: '200' } });

type Tenant = Awaited<ReturnType<typeof createTenant>>;

async function write(key: string, namespace: string, text: string, event: Parameters<typeof writeBody>[2]) {
  const res = await t.api.write(key, writeBody(namespace, text, event), uniqueKey());
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.state).toBe('retained');
}

/**
 * A namespace with every kind of supersession: e2 supersedes e1 (superseded), e3 one that was never
 * written (unresolved), e4 one written only after it (unresolved: the target came later); e1 carries
 * its source metadata.
 */
async function namespaceWithSupersessions(tenant: Tenant, namespace: string) {
  const key = tenant.api_key;
  const source = { type: 'direct_user_input', id: 'chat-41' };
  await write(key, namespace, 'The ferry leaves at nine', {
    event_id: 'e1',
    occurred_at: '2026-01-01T08:00:00Z',
    source,
  });
  await write(key, namespace, 'The ferry leaves at ten', {
    event_id: 'e2',
    occurred_at: '2026-01-02T08:00:00Z',
    supersedes: ['e1'],
  });
  await write(key, namespace, 'The cafe opens at eight', {
    event_id: 'e3',
    occurred_at: '2026-01-03T08:00:00Z',
    supersedes: ['never-written'],
  });
  await write(key, namespace, 'A ticket costs five euros', {
    event_id: 'e4',
    occurred_at: '2026-01-04T08:00:00Z',
    supersedes: ['e5'],
  });
  await write(key, namespace, 'A ticket cost four euros', {
    event_id: 'e5',
    occurred_at: '2026-01-05T08:00:00Z',
  });
}

/**
 * What a restore must keep of an export: every record but its memory id and retained_at (new in the
 * restore), and every relation with its records named by event id (memory ids are new, but a relation
 * must point at the restored record of its event).
 */
function kept(doc: ExportFile, namespace?: string) {
  const eventOf = new Map(doc.records.map((r) => [r.memory_id, r.event_id]));
  const records = doc.records.map(({ memory_id: _, retained_at: __, ...r }: ExportRecord) => ({
    ...r,
    namespace: namespace ?? r.namespace,
  }));
  const relations = doc.supersession_relations
    .map((r: ExportRelation) => ({
      namespace: namespace ?? r.namespace,
      superseding_event_id: r.superseding_event_id,
      superseding_record: eventOf.get(r.superseding_memory_id),
      target_event_id: r.target_event_id,
      target_record: r.target_memory_id === null ? null : eventOf.get(r.target_memory_id),
      status: r.status,
    }))
    .sort((a, b) =>
      (a.superseding_event_id + a.target_event_id).localeCompare(b.superseding_event_id + b.target_event_id),
    );
  return { records, relations };
}

/** The tenant's write usage records in the stream (after a flush of memory's outbox): one per billed write. */
async function billedWrites(tenant: Tenant) {
  await t.stack.memory.flushOutbox();
  return (await usageInStream(tenant.tenant_id)).filter((u) => u.operation === 'memory.write').length;
}

async function deleteNamespace(tenant: Tenant, namespace: string) {
  const res = await t.api.deleteNamespace(tenant.api_key, namespace);
  expect([200, 202], JSON.stringify(res.body)).toContain(res.status);
  if (res.status === 202) await followDeletion(t.api, tenant.api_key, res.body.deletion.id);
}

/** POST a restore, expect its 202, and follow it to the end. */
async function restored(key: string, file: unknown, query: Record<string, string> = {}): Promise<RestoreJob> {
  const res = await restore(t.api, key, file, query);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return followRestore(t.api, key, res.body.id);
}

describe('POST /api/v1/memory/restore', () => {
  it('when a namespace is exported, deleted and its export restored, then exporting again gives the same records and relations, each record billed once', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('restore');
    await namespaceWithSupersessions(tenant, namespace);
    const before = await exportFile(t.api, tenant.api_key, [namespace]);
    expect(before.supersession_relations.map((r) => [r.target_event_id, r.status]).sort()).toEqual([
      ['e1', 'superseded'],
      ['e5', 'unresolved'],
      ['never-written', 'unresolved'],
    ]);
    await deleteNamespace(tenant, namespace);
    expect((await exportFile(t.api, tenant.api_key, [namespace])).records).toEqual([]);

    const res = await restore(t.api, tenant.api_key, before);

    expect(res).toMatchObject({
      status: 202,
      body: { contract_version: 'v1', namespace, from_namespace: namespace, total: 5, completed_at: null },
    });
    expect(await followRestore(t.api, tenant.api_key, res.body.id)).toMatchObject({
      id: res.body.id,
      state: 'completed',
      total: 5,
      processed: 5,
      written: 5,
      already_present: 0,
      failed: 0,
    });
    const after = await exportFile(t.api, tenant.api_key, [namespace]);
    expect(kept(after)).toEqual(kept(before));
    expect(after.records.map((r) => r.memory_id)).not.toEqual(before.records.map((r) => r.memory_id));
    expect(await billedWrites(tenant)).toBe(10); // five writes, five records restored
  });

  it('when the same file is restored twice, then the second restore stores and bills nothing', async () => {
    const tenant = await createTenant();
    const source = uniqueNamespace('source');
    const target = uniqueNamespace('target');
    await namespaceWithSupersessions(tenant, source);
    const file = await exportFile(t.api, tenant.api_key, [source]);
    const first = await restored(tenant.api_key, file, { namespace: target });
    const afterFirst = await exportFile(t.api, tenant.api_key, [target]);

    const second = await restored(tenant.api_key, file, { namespace: target });

    expect(first).toMatchObject({
      namespace: target,
      from_namespace: source,
      written: 5,
      already_present: 0,
    });
    expect(second).toMatchObject({ total: 5, written: 0, already_present: 5, failed: 0 });
    expect(await exportFile(t.api, tenant.api_key, [target])).toMatchObject({
      records: afterFirst.records,
      supersession_relations: afterFirst.supersession_relations,
    });
    expect(await billedWrites(tenant)).toBe(10);
  });

  it('when the records are still where they were exported from, then nothing is stored, and a record changed under its event id is a failure naming it', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('present');
    await namespaceWithSupersessions(tenant, namespace);
    const file = await exportFile(t.api, tenant.api_key, [namespace]);
    const target = uniqueNamespace('edited');
    await restored(tenant.api_key, file, { namespace: target });
    const edited = structuredClone(file);
    (edited.records.find((r) => r.event_id === 'e3') as ExportRecord).text = 'The cafe opens at nine';

    const inPlace = await restored(tenant.api_key, file);
    const changed = await restored(tenant.api_key, edited, { namespace: target });
    const failures = await t.api.get(`${RESTORE}/${changed.id}/failures`, { key: tenant.api_key });

    expect(inPlace).toMatchObject({ written: 0, already_present: 5, failed: 0 });
    expect(changed).toMatchObject({ written: 0, already_present: 4, failed: 1 });
    expect(failures).toMatchObject({
      status: 200,
      body: {
        restore_id: changed.id,
        failures: [
          { event_id: 'e3', reason: 'write_refused', message: expect.stringContaining('idempotency key') },
        ],
        paging: { total: 1, limit: 50, offset: 0 },
      },
    });
    expect(JSON.stringify(failures.body)).not.toContain('cafe');
    expect((await exportFile(t.api, tenant.api_key, [target])).records.map((r) => r.text)).toContain(
      'The cafe opens at eight',
    );
    expect(await billedWrites(tenant)).toBe(10);
  });

  it('when another tenant restores the file into a namespace of its own, then it gets the same records and relations, and the first tenant is unchanged', async () => {
    const a = await createTenant();
    const b = await createTenant();
    const namespace = uniqueNamespace('moved');
    await namespaceWithSupersessions(a, namespace);
    const file = await exportFile(t.api, a.api_key, [namespace]);
    const elsewhere = uniqueNamespace('elsewhere');

    const job = await restored(b.api_key, file, { namespace: elsewhere });

    expect(job).toMatchObject({ namespace: elsewhere, from_namespace: namespace, written: 5 });
    expect(kept(await exportFile(t.api, b.api_key, [elsewhere]))).toEqual(kept(file, elsewhere));
    expect(await exportFile(t.api, a.api_key, [namespace])).toMatchObject({
      records: file.records,
      supersession_relations: file.supersession_relations,
    });
    expect(await billedWrites(b)).toBe(5);
  });

  it('when the export holds several namespaces, then from_namespace picks the one restored, and leaving it out is a 400', async () => {
    const tenant = await createTenant();
    const one = uniqueNamespace('one');
    const two = uniqueNamespace('two');
    await write(tenant.api_key, one, 'Only in the first namespace', { event_id: 'x1' });
    await write(tenant.api_key, two, 'Only in the second namespace', { event_id: 'x2' });
    const file = await exportFile(t.api, tenant.api_key, [one, two]);
    const target = uniqueNamespace('picked');

    const unnamed = await restore(t.api, tenant.api_key, file, { namespace: target });
    const job = await restored(tenant.api_key, file, { namespace: target, from_namespace: two });

    expect(unnamed).toMatchObject({
      status: 400,
      body: {
        details: {
          code: 'validation_failed',
          fields: [
            { path: 'from_namespace', message: 'the export holds 2 namespaces; name the one to restore' },
          ],
        },
      },
    });
    expect(job).toMatchObject({ from_namespace: two, total: 1, written: 1 });
    expect((await exportFile(t.api, tenant.api_key, [target])).records).toMatchObject([
      { event_id: 'x2', text: 'Only in the second namespace' },
    ]);
  });

  describe('when the file is not a whole, valid export, then a 4xx and nothing is stored', () => {
    const good = () => handMadeExport('hand-made', [{ event_id: 'h1', text: 'A line from a good file' }]);
    const cases: Array<[string, () => { file?: unknown; raw?: string }, number, string]> = [
      ['not JSON', () => ({ raw: '{"contract_version":"v1","records":[' }), 400, 'malformed_json'],
      [
        'counts that do not match its parts',
        () => ({ file: { ...good(), counts: { records: 2, supersession_relations: 0, history: 0 } } }),
        400,
        'counts',
      ],
      ['not complete', () => ({ file: { ...good(), complete: false } }), 400, 'complete'],
      [
        'a record /write would refuse',
        () => {
          const file = good();
          (file.records[0] as ExportRecord).text = '   ';
          return { file };
        },
        400,
        'records[0].content.text',
      ],
      [
        'a relation whose record is missing',
        () => {
          const file = good();
          file.supersession_relations = [
            {
              namespace: 'hand-made',
              superseding_event_id: 'gone',
              superseding_memory_id: '0190a0a0-0000-7000-8000-00000000ffff',
              target_event_id: 'h1',
              target_memory_id: null,
              status: 'unresolved',
              recorded_at: '2026-11-22T10:00:00.000Z',
            },
          ];
          file.counts.supersession_relations = 1;
          return { file };
        },
        400,
        'supersession_relations[0].superseding_event_id',
      ],
      [
        'an event id twice',
        () => {
          const file = handMadeExport('hand-made', [
            { event_id: 'h1', text: 'one' },
            { event_id: 'h1', text: 'two' },
          ]);
          return { file };
        },
        400,
        'records[1].event_id',
      ],
      ['no record at all', () => ({ file: handMadeExport('hand-made', []) }), 400, 'from_namespace'],
      [
        "a top-level tenant_id (another tenant's)",
        () => ({ file: { tenant_id: 'a-tenant-of-someone-else', ...good() } }),
        400,
        '"path":"tenant_id"',
      ],
      [
        'a field the export does not write, in a record',
        () => {
          const file = good();
          Object.assign(file.records[0] as ExportRecord, { owner: 'someone' });
          return { file };
        },
        400,
        '"path":"records.0.owner","message":"is not a known field"',
      ],
    ];

    it.each(cases)('%s', async (_label, make, status, named) => {
      const tenant = await createTenant();
      const target = uniqueNamespace('refused');
      const { file, raw } = make();

      const res = raw
        ? await t.api.post(RESTORE, {
            key: tenant.api_key,
            query: { namespace: target },
            raw: { data: raw, contentType: 'application/json' },
          })
        : await restore(t.api, tenant.api_key, file, { namespace: target });

      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(JSON.stringify(res.body)).toContain(named);
      expect((await exportFile(t.api, tenant.api_key, [target])).records).toEqual([]);
      expect(await billedWrites(tenant)).toBe(0);
    });

    it('a body over 16 MiB: 413', async () => {
      const tenant = await createTenant();
      const file = handMadeExport('hand-made', [{ event_id: 'big', text: 'x'.repeat(16 * 1024 * 1024) }]);

      const res = await restore(t.api, tenant.api_key, file);

      expect(res).toMatchObject({ status: 413, body: { details: { code: 'payload_too_large' } } });
      expect((await exportFile(t.api, tenant.api_key, ['hand-made'])).records).toEqual([]);
    });
  });

  it("when another tenant's key asks for a restore's status or failures, then 404 as for an unknown id", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const job = await restored(
      a.api_key,
      handMadeExport(uniqueNamespace('mine'), [{ event_id: 'm1', text: 'Mine alone' }]),
    );

    const status = await t.api.get(`${RESTORE}/${job.id}`, { key: b.api_key });
    const failures = await t.api.get(`${RESTORE}/${job.id}/failures`, { key: b.api_key });

    for (const res of [status, failures]) {
      expect(res).toMatchObject({ status: 404, body: { retryable: false, details: { code: 'not_found' } } });
      expect(JSON.stringify(res.body)).not.toContain(job.namespace);
    }
  });

  it('when the memory service is down while the job runs, then it waits, resumes once memory is back, and bills each record once', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('outage');
    const file = handMadeExport(
      namespace,
      Array.from({ length: 30 }, (_, i) => ({ event_id: `o${i}`, text: `Note ${i} about the tide tables` })),
    );
    await t.stack.stopMemory();
    let started: RestoreJob;
    try {
      const res = await restore(t.api, tenant.api_key, file);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      started = res.body;
      const during = await t.api.get(`${RESTORE}/${started.id}`, { key: tenant.api_key });
      expect(during).toMatchObject({ status: 200, body: { state: 'processing', written: 0, failed: 0 } });
    } finally {
      await t.stack.startMemory();
    }

    const job = await followRestore(t.api, tenant.api_key, started.id);

    expect(job).toMatchObject({ total: 30, written: 30, already_present: 0, failed: 0 });
    expect((await exportFile(t.api, tenant.api_key, [namespace])).records).toHaveLength(30);
    expect(await billedWrites(tenant)).toBe(30);
  });
});

describe('POST /api/v1/memory/restore while its namespace is deleted', () => {
  it('when the target namespace is deleted while the restore waits, then the job ends cancelled with its counts and nothing is written or billed', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('deleted');
    const file = handMadeExport(namespace, [{ event_id: 'd1', text: 'Written only if the namespace stays' }]);
    await t.stack.stopMemory();
    let id: string;
    try {
      const res = await restore(t.api, tenant.api_key, file);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      id = res.body.id;
      // The template service cancels the namespace's jobs first; memory is away, so the delete is a 503.
      expect((await t.api.deleteNamespace(tenant.api_key, namespace)).status).toBe(503);
    } finally {
      await t.stack.startMemory();
    }

    await deleteNamespace(tenant, namespace);
    const status = await t.api.get(`${RESTORE}/${id}`, { key: tenant.api_key });

    expect(status).toMatchObject({
      status: 200,
      body: { id, state: 'cancelled', total: 1, processed: 0, written: 0, already_present: 0, failed: 0 },
    });
    expect((await exportFile(t.api, tenant.api_key, [namespace])).records).toEqual([]);
    expect(await billedWrites(tenant)).toBe(0);
  });
});

describe('POST /api/v1/memory/restore into a second deployment', () => {
  const second = useSecondDeployment();

  it("when one deployment's export is restored into a tenant of another (its own databases and bus), then exporting there gives the same records and relations", async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('hosted');
    await namespaceWithSupersessions(tenant, namespace);
    const file = await exportFile(t.api, tenant.api_key, [namespace]);

    const res = await restore(second.api, second.apiKey, file);
    const job = await followRestore(second.api, second.apiKey, res.body.id);

    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(job).toMatchObject({ namespace, total: 5, written: 5, already_present: 0, failed: 0 });
    expect(kept(await exportFile(second.api, second.apiKey, [namespace]))).toEqual(kept(file));
    const again = await restore(second.api, second.apiKey, file);
    expect(await followRestore(second.api, second.apiKey, again.body.id)).toMatchObject({
      written: 0,
      already_present: 5,
    });
  });
});
