import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueNamespace } from '../support/factories.js';
import { importSteps } from '../support/imports.js';
import { recordSecrets } from '../support/log-capture.js';
import { recordsInNamespace } from '../support/memory-db.js';
import { stackEnv, useStack } from '../support/stack.js';
import { type StubDataset, type StubHub, startStubHub } from '../support/stub-hub.js';
import { importJobsOf } from '../support/template-db.js';

// Whole imports of thousands of rows paged from the stub hub: a hang guard, not a speed check.
vi.setConfig({ testTimeout: 180_000 });

let hub: StubHub;
beforeAll(async () => {
  hub = await startStubHub();
});
afterAll(() => hub?.close());

const t = useStack({
  templateEnv: () => ({
    ...hub.env,
    // a hub that is late past 400 ms is timed out; two retries, quickly
    HUB_TIMEOUT_MS: '400',
    HUB_RETRIES: '2',
    HUB_RETRY_BASE_MS: '20',
    HUB_PROBE_BUDGET_MS: '10000',
    IMPORT_BATCH_SIZE: '150',
    IMPORT_CONCURRENCY: '8',
    IMPORT_POLL_MS: '200',
    IMPORT_SECRET_KEY: randomBytes(32).toString('base64url'),
  }),
});

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
const uuid = expect.stringMatching(/^[0-9a-f-]{36}$/);
const OVERLONG = 'x'.repeat(33_000);
let serial = 0;
const uniqueId = (label: string) => `stub-org/${label}-${process.pid}-${++serial}`;
const sha = () => randomBytes(20).toString('hex');

/** A dataset of `count` rows: name, topic (missing every 10th row), note. */
function peopleRows(count: number, overlong: Set<number> = new Set()) {
  return Array.from({ length: count }, (_, i) => ({
    name: `Person ${i}`,
    ...(i % 10 === 0 ? {} : { topic: `topic ${i}` }),
    note: overlong.has(i) ? OVERLONG : `note ${i}`,
  }));
}

function addDataset(label: string, extra: Partial<StubDataset> = {}): StubDataset {
  const dataset: StubDataset = {
    id: uniqueId(label),
    sha: sha(),
    configs: { default: { train: peopleRows(20), test: peopleRows(5) } },
    columns: ['name', 'topic', 'note'],
    ...extra,
  };
  hub.add(dataset);
  return dataset;
}

const importDataset = (key: string, body: object) => t.api.post('/v1/imports', { key, body });
const { upload, runToCompletion, partlyProcessed, allFailures } = importSteps(t);

/** The template service's row of a job, for what the API never shows (the sealed token). */
async function storedJob(id: string) {
  const client = new pg.Client({ connectionString: stackEnv().templateDbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ hub_token_sealed: string | null }>(
      'SELECT hub_token_sealed FROM import_job WHERE id = $1',
      [id],
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

const rowRequestsOf = (dataset: string) =>
  hub.requests.filter((r) => r.url.startsWith('/viewer/rows') && r.url.includes(encodeURIComponent(dataset)));

describe('POST /v1/imports with a model-hub dataset, then start, status and failures', () => {
  it('when a paged dataset of 3,000 rows is imported, then the estimate comes from the metadata, every page is read and rows are stamped with their source', async () => {
    const ROWS = 3_000;
    const dataset = addDataset('people', {
      configs: { default: { train: peopleRows(ROWS, new Set([100, 2900])), test: peopleRows(5) } },
      truncatedRows: new Set([1500]),
    });
    dataset.configs.default?.train?.splice(2000, 1, { name: 'Nul\u0000Person', note: 'n' });
    const tenant = await createTenant();
    const namespace = uniqueNamespace('hub-people');

    const created = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      format: 'Call {name} about {topic|general matters}. {note} {region|}',
      namespace,
    });
    const readBeforeStart = rowRequestsOf(dataset.id).length;

    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({
      contract_version: 'v1',
      id: uuid,
      state: 'estimated',
      file_name: null,
      file_kind: null,
      dataset: { id: dataset.id, config: 'default', split: 'train', revision: dataset.sha },
      namespace,
      format: 'Call {name} about {topic|general matters}. {note} {region|}',
      template_name: null,
      marketplace_template_id: null,
      total: ROWS,
      processed: 0,
      retained: 0,
      failed: 0,
      estimate: {
        rows: ROWS,
        rows_malformed: 0,
        rows_empty_render: 0,
        rows_missing_value: 0,
        rows_too_long: 0,
        billable_rows: ROWS,
        placeholders_without_column: ['region'],
        warnings: [expect.stringContaining('{region}'), expect.stringContaining('metadata')],
        pricing_version: 'sandbox-2026-11',
        unit_price_usd: 0.0001,
        estimated_cost_usd: (ROWS * 100) / 1_000_000,
      },
      created_at: iso,
      started_at: null,
      completed_at: null,
      error: null,
    });
    expect(readBeforeStart).toBe(0);
    const id = created.body.id as string;

    const started = await t.api.post(`/v1/imports/${id}/start`, { key: tenant.api_key });
    const { job, seen } = await runToCompletion(tenant.api_key, id);
    const failures = await allFailures(tenant.api_key, id);
    const recall = await t.api.recall(
      tenant.api_key,
      recallBody(namespace, 'Call Person 10 about general matters'),
    );

    expect(started).toMatchObject({ status: 202, body: { id, state: 'processing', started_at: iso } });
    expect(job).toMatchObject({
      state: 'completed',
      total: ROWS,
      processed: ROWS,
      retained: ROWS - 4,
      failed: 4,
    });
    expect(seen.every((v, i) => i === 0 || v >= (seen[i - 1] ?? 0))).toBe(true);
    expect(failures.map((f) => [f.row, f.reason])).toEqual([
      [100, 'text_too_long'],
      [1500, 'malformed_row'],
      [2000, 'malformed_row'],
      [2900, 'text_too_long'],
    ]);
    const pages = rowRequestsOf(dataset.id).map((r) => new URL(r.url, 'http://x').searchParams);
    expect(pages.every((p) => Number(p.get('length')) <= 100)).toBe(true);
    expect(pages.map((p) => Number(p.get('offset')))).toEqual(
      Array.from({ length: ROWS / 100 }, (_, i) => i * 100),
    );
    const person10 = recall.body.related.find((r: { text: string }) =>
      r.text.startsWith('Call Person 10 about'),
    );
    expect(person10).toMatchObject({
      text: expect.stringContaining('Call Person 10 about general matters. note 10'),
      source: { type: 'hub_dataset', id: `hub:${dataset.id}@${dataset.sha}:default/train#10` },
    });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(ROWS - 4);
  });

  it('when a gated dataset is imported with a token and the service restarts mid-import, then it resumes with the sealed token and writes no row twice', async () => {
    const ROWS = 1_200;
    const token = `hf_${randomBytes(24).toString('base64url')}`;
    recordSecrets([token]);
    const dataset = addDataset('gated-big', { token, configs: { main: { train: peopleRows(ROWS) } } });
    const tenant = await createTenant();
    const namespace = uniqueNamespace('hub-restart');

    const created = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      hub_token: token,
      format: '{name}: {note}',
      namespace,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.dataset).toEqual({
      id: dataset.id,
      config: 'main',
      split: 'train',
      revision: dataset.sha,
    });
    const id = created.body.id as string;
    const sealed = (await storedJob(id))?.hub_token_sealed;
    await t.api.post(`/v1/imports/${id}/start`, { key: tenant.api_key });
    const midway = await partlyProcessed(tenant.api_key, id);
    await t.stack.stopTemplate();
    await t.stack.startTemplate();
    const { job } = await runToCompletion(tenant.api_key, id);

    expect(midway.processed).toBeLessThan(ROWS);
    expect(job).toMatchObject({
      state: 'completed',
      total: ROWS,
      processed: ROWS,
      retained: ROWS,
      failed: 0,
    });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(ROWS);
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(token);
    expect((await storedJob(id))?.hub_token_sealed).toBeNull();
    expect(JSON.stringify([created.body, job])).not.toContain(token);
    expect(rowRequestsOf(dataset.id).every((r) => r.authorization === `Bearer ${token}`)).toBe(true);
  });

  it('when the dataset changes on the hub mid-import, then the job fails with dataset_revision_changed and keeps what it wrote', async () => {
    const dataset = addDataset('moving', { configs: { default: { train: peopleRows(900) } } });
    const tenant = await createTenant();
    const created = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      format: '{name}',
      namespace: uniqueNamespace('hub-moving'),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await t.api.post(`/v1/imports/${id}/start`, { key: tenant.api_key });
    await eventually(async () => {
      expect(rowRequestsOf(dataset.id).length).toBeGreaterThan(0);
    });
    const before = dataset.sha;
    dataset.sha = sha();

    const { job } = await runToCompletion(tenant.api_key, id);

    expect(job).toMatchObject({
      state: 'failed',
      total: 900,
      completed_at: iso,
      error: { code: 'dataset_revision_changed', message: expect.stringContaining(before) },
    });
    expect(job.processed).toBeLessThan(900);
  });
});

describe('POST /v1/imports with a dataset: imports in flight per tenant', () => {
  it('when a tenant has its maximum of dataset imports reading the hub, then another start or another dataset import is 429 too_many_imports, while its uploads and other tenants go on', async () => {
    // rows never come: a started import stays in `processing`, reading (and retrying) the hub
    const dataset = addDataset('busy', { rowsUnavailable: true });
    const tenant = await createTenant();
    const other = await createTenant();
    const body = { dataset: dataset.id, split: 'train', format: '{name}' };
    const [a, b, c] = [
      await importDataset(tenant.api_key, body),
      await importDataset(tenant.api_key, body),
      await importDataset(tenant.api_key, body),
    ];
    const startA = await t.api.post(`/v1/imports/${a.body.id}/start`, { key: tenant.api_key });
    const startB = await t.api.post(`/v1/imports/${b.body.id}/start`, { key: tenant.api_key });

    const startC = await t.api.post(`/v1/imports/${c.body.id}/start`, { key: tenant.api_key });
    const d = await importDataset(tenant.api_key, body);
    const jobC = await t.api.get(`/v1/imports/${c.body.id}`, { key: tenant.api_key });
    const uploaded = await upload(tenant.api_key, { format: '{a}' }, 'a\n1\n');
    const elsewhere = await importDataset(other.api_key, body);

    for (const created of [a, b, c]) expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(startA).toMatchObject({ status: 202, body: { state: 'processing' } });
    expect(startB).toMatchObject({ status: 202, body: { state: 'processing' } });
    const busy = {
      status: 429,
      body: {
        error:
          'This tenant already has 2 dataset imports being resolved or read from the hub; retry when one has finished',
        retryable: true,
        details: { code: 'too_many_imports' },
      },
    };
    expect(startC).toMatchObject(busy);
    expect(startC.headers['retry-after']).toBe('5');
    expect(d).toMatchObject(busy);
    expect(jobC).toMatchObject({ status: 200, body: { state: 'estimated', started_at: null } });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(201);
  });
});

describe('POST /v1/imports with a dataset the hub refuses: one code each, and nothing is kept', () => {
  it('when the dataset needs its own loading script, then 422 remote_code_required: no dataset code is ever run', async () => {
    const dataset = addDataset('scripted', { script: true });
    const tenant = await createTenant();

    const res = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      format: '{name}',
    });

    expect(res).toMatchObject({
      status: 422,
      body: {
        error: expect.stringMatching(/never runs code.*parquet or CSV export/s),
        retryable: false,
        details: { code: 'remote_code_required' },
      },
    });
    expect(rowRequestsOf(dataset.id)).toEqual([]);
    expect(await importJobsOf(tenant.tenant_id)).toBe(0);
  });

  it('when only the viewer says the dataset runs a script (501), then 422 remote_code_required too', async () => {
    // the repo's files do not show it as a loading script (not named after the repo): the viewer's 501 decides
    const dataset = addDataset('viewer-script', { script: true, scriptFile: 'loader.py' });
    const tenant = await createTenant();
    const res = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      format: '{name}',
    });
    expect(res).toMatchObject({ status: 422, body: { details: { code: 'remote_code_required' } } });
  });

  it('when a placeholder without a default matches none of the split’s columns, then 400 at format naming it and the columns, and nothing is kept', async () => {
    const dataset = addDataset('typo');
    const tenant = await createTenant();

    const res = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      format: 'Call {nmae} about {topic}',
    });

    const message =
      'Placeholder {nmae} matches no column of the split (columns: name, topic, note); name a column, or give a default: {nmae|…}';
    expect(res).toMatchObject({
      status: 400,
      body: {
        error: message,
        retryable: false,
        details: { code: 'validation_failed', fields: [{ path: 'format', message }] },
      },
    });
    expect(await importJobsOf(tenant.tenant_id)).toBe(0);
  });

  it('when the split does not exist, then 422 dataset_split_unavailable listing the splits there are', async () => {
    const dataset = addDataset('splits');
    const tenant = await createTenant();

    const res = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'validation',
      format: '{name}',
    });

    expect(res).toMatchObject({
      status: 422,
      body: {
        error: expect.stringContaining('Available splits: train, test'),
        retryable: false,
        details: {
          code: 'dataset_split_unavailable',
          fields: [{ path: 'split', message: 'available: train, test' }],
        },
      },
    });
    expect(await importJobsOf(tenant.tenant_id)).toBe(0);
  });

  it('when the config does not exist, or several exist and none is named, then 422 dataset_split_unavailable at config', async () => {
    const dataset = addDataset('configs', {
      configs: { en: { train: peopleRows(3) }, fr: { train: peopleRows(3), test: peopleRows(2) } },
    });
    const tenant = await createTenant();

    const unknown = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      config: 'de',
      split: 'train',
      format: '{name}',
    });
    const unnamed = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      format: '{name}',
    });
    const named = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      config: 'fr',
      split: 'test',
      format: '{name}',
    });

    for (const res of [unknown, unnamed]) {
      expect(res).toMatchObject({
        status: 422,
        body: {
          details: {
            code: 'dataset_split_unavailable',
            fields: [{ path: 'config', message: 'available: en/train, fr/train, fr/test' }],
          },
        },
      });
    }
    expect(named).toMatchObject({
      status: 201,
      body: { dataset: { config: 'fr', split: 'test' }, total: 2 },
    });
  });

  it('when the hub has only a preview of the dataset (no parquet export), then 422 dataset_split_unavailable', async () => {
    const dataset = addDataset('preview', { previewOnly: true });
    const tenant = await createTenant();
    const res = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      format: '{name}',
    });
    expect(res).toMatchObject({
      status: 422,
      body: {
        error: expect.stringContaining('only a preview'),
        details: { code: 'dataset_split_unavailable' },
      },
    });
  });

  it('when the revision asked for is the hub’s current commit, then it imports; a revision the hub does not have is 404 not_found at revision', async () => {
    const dataset = addDataset('revisions');
    const tenant = await createTenant();

    const current = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'test',
      revision: dataset.sha,
      format: '{name}',
    });
    const unknown = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'test',
      revision: 'v0.1',
      format: '{name}',
    });

    expect(current).toMatchObject({ status: 201, body: { dataset: { revision: dataset.sha } } });
    expect(unknown).toMatchObject({
      status: 404,
      body: { details: { code: 'not_found', fields: [{ path: 'revision' }] } },
    });
  });

  it('when a gated dataset comes without a token, or with one that has no access, then 403 dataset_gated and the token is never echoed', async () => {
    const token = `hf_${randomBytes(24).toString('base64url')}`;
    const wrong = `hf_${randomBytes(24).toString('base64url')}`;
    recordSecrets([token, wrong]);
    const dataset = addDataset('gated', { token });
    const tenant = await createTenant();

    const without = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      format: '{name}',
    });
    const refused = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      hub_token: wrong,
      format: '{name}',
    });
    const accepted = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      hub_token: token,
      format: '{name}',
    });

    expect(without).toMatchObject({
      status: 403,
      body: {
        error: expect.stringContaining('send a hub_token with access'),
        retryable: false,
        details: { code: 'dataset_gated', fields: [{ path: 'hub_token', message: 'is required' }] },
      },
    });
    expect(refused).toMatchObject({
      status: 403,
      body: {
        details: {
          code: 'dataset_gated',
          fields: [{ path: 'hub_token', message: 'has no access to the dataset' }],
        },
      },
    });
    expect(accepted).toMatchObject({ status: 201, body: { state: 'estimated', total: 20 } });
    expect(JSON.stringify([without.body, refused.body, accepted.body])).not.toMatch(
      new RegExp(`${token}|${wrong}`),
    );
    expect(await importJobsOf(tenant.tenant_id)).toBe(1);
  });

  it('when the dataset is not on the hub, then the hub’s 401 for an unknown repo is dataset_gated; a malformed id is 400', async () => {
    const tenant = await createTenant();
    const unknown = await importDataset(tenant.api_key, {
      dataset: uniqueId('absent'),
      split: 'train',
      format: '{a}',
    });
    const malformed = await importDataset(tenant.api_key, {
      dataset: '../etc',
      split: 'train',
      format: '{a}',
    });
    expect(unknown).toMatchObject({ status: 403, body: { details: { code: 'dataset_gated' } } });
    expect(malformed).toMatchObject({
      status: 400,
      body: { details: { code: 'validation_failed', fields: [{ path: 'dataset' }] } },
    });
  });

  it('when the hub does not answer in time, then a retryable 504 hub_timeout with Retry-After', async () => {
    const dataset = addDataset('slow', { delayMs: 1_000 });
    const tenant = await createTenant();

    const res = await importDataset(tenant.api_key, {
      dataset: dataset.id,
      split: 'train',
      format: '{name}',
    });

    expect(res).toMatchObject({ status: 504, body: { retryable: true, details: { code: 'hub_timeout' } } });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(await importJobsOf(tenant.tenant_id)).toBe(0);
  });

  it('when the hub answers 503 past every retry, then a retryable 503 hub_unavailable; a hub that recovers within the retries is not seen', async () => {
    const down = addDataset('down', { failFirst: 1_000 });
    const flaky = addDataset('flaky', { failFirst: 2 });
    const tenant = await createTenant();

    const refused = await importDataset(tenant.api_key, {
      dataset: down.id,
      split: 'train',
      format: '{name}',
    });
    const recovered = await importDataset(tenant.api_key, {
      dataset: flaky.id,
      split: 'train',
      format: '{name}',
    });

    expect(refused).toMatchObject({
      status: 503,
      body: { retryable: true, details: { code: 'hub_unavailable' } },
    });
    expect(hub.requests.filter((r) => r.url.includes(down.id)).length).toBe(3); // one call, three attempts
    expect(recovered).toMatchObject({ status: 201, body: { state: 'estimated', total: 20 } });
  });

  it('when the hub is out, then other template routes still answer (the gateway’s breaker does not count it)', async () => {
    const down = addDataset('down-breaker', { failFirst: 1_000 });
    const tenant = await createTenant();
    for (let i = 0; i < 6; i += 1) {
      const res = await importDataset(tenant.api_key, { dataset: down.id, split: 'train', format: '{name}' });
      expect(res.status).toBe(503);
    }
    const templates = await t.api.get('/v1/templates', { key: tenant.api_key });
    expect(templates.status).toBe(200);
  });
});
