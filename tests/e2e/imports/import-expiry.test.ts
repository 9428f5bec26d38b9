import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTUALLY } from '../support/eventually.js';
import { createTenant, uniqueNamespace } from '../support/factories.js';
import { importSteps } from '../support/imports.js';
import { recordSecrets } from '../support/log-capture.js';
import { stackEnv, useStack } from '../support/stack.js';
import { type StubHub, startStubHub } from '../support/stub-hub.js';

// Imports nobody starts expire: a short time here (IMPORT_UNSTARTED_TTL_MS), a day by default.
let hub: StubHub;
beforeAll(async () => {
  hub = await startStubHub();
});
afterAll(() => hub?.close());

const t = useStack({
  templateEnv: () => ({
    ...hub.env,
    IMPORT_UNSTARTED_TTL_MS: '1000',
    IMPORT_EXPIRY_SWEEP_MS: '200',
    IMPORT_SECRET_KEY: randomBytes(32).toString('base64url'),
  }),
});

const { upload } = importSteps(t);
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);

/** What the API never shows of a job: its sealed token and how many rows it still stores. */
async function stored(id: string) {
  const client = new pg.Client({ connectionString: stackEnv().templateDbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ hub_token_sealed: string | null; rows: string }>(
      'SELECT hub_token_sealed, (SELECT count(*) FROM import_row WHERE import_id = $1) AS rows FROM import_job WHERE id = $1',
      [id],
    );
    return { hubTokenSealed: rows[0]?.hub_token_sealed, rows: Number(rows[0]?.rows) };
  } finally {
    await client.end();
  }
}

async function expiredJob(key: string, id: string) {
  let job: { state?: string } = {};
  await expect
    .poll(async () => {
      job = (await t.api.get(`/v1/imports/${id}`, { key })).body;
      return job.state;
    }, EVENTUALLY)
    .toBe('expired');
  return job;
}

describe('an import nobody starts', () => {
  it('when a gated dataset import is never started, then it expires: its sealed hub token goes, its state says expired and it cannot be started', async () => {
    const token = `hf_${randomBytes(24).toString('base64url')}`;
    recordSecrets([token]);
    const dataset = {
      id: `stub-org/expiring-${process.pid}`,
      sha: randomBytes(20).toString('hex'),
      configs: { default: { train: [{ name: 'Ana' }, { name: 'Bo' }] } },
      columns: ['name'],
      token,
    };
    hub.add(dataset);
    const tenant = await createTenant();
    const namespace = uniqueNamespace('expiring-dataset');

    const created = await t.api.post('/v1/imports', {
      key: tenant.api_key,
      body: { dataset: dataset.id, split: 'train', format: '{name}', namespace, hub_token: token },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const job = await expiredJob(tenant.api_key, id);
    const start = await t.api.post(`/v1/imports/${id}/start`, { key: tenant.api_key });

    expect(job).toEqual({
      ...created.body,
      state: 'expired',
      completed_at: iso,
      started_at: null,
      error: null,
    });
    expect(await stored(id)).toEqual({ hubTokenSealed: null, rows: 0 });
    expect(start).toMatchObject({
      status: 409,
      body: {
        error: expect.stringMatching(/^This import expired at \S+ without being started; create it again$/),
        retryable: false,
        details: { code: 'version_conflict' },
      },
    });
    expect(hub.requests.filter((r) => r.url.startsWith('/viewer/rows'))).toEqual([]);
  });

  it('when an uploaded file is never started, then it expires and its stored rows go', async () => {
    const tenant = await createTenant();

    const created = await upload(
      tenant.api_key,
      { format: '{a}', namespace: uniqueNamespace('expiring-file') },
      'a\nfirst\nsecond\n',
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    const job = await expiredJob(tenant.api_key, id);

    expect(job).toMatchObject({
      state: 'expired',
      total: 0,
      processed: 0,
      estimate: { rows: 2, billable_rows: 2 },
      completed_at: iso,
      started_at: null,
    });
    expect(await stored(id)).toEqual({ hubTokenSealed: null, rows: 0 });
  });
});

describe('a restore whose records never all arrived', () => {
  it('when a restore is left uploading past the in-flight window (its gateway stopped while sending), then the sweep deletes it with its rows and their text', async () => {
    const tenant = await createTenant();
    const id = randomUUID();
    const client = new pg.Client({ connectionString: stackEnv().templateDbUrl });
    await client.connect();
    try {
      // One statement: the sweep runs every 200 ms and could take the job between two.
      const inserted = await client.query(
        `WITH job AS (
           INSERT INTO import_job (id, tenant_id, kind, state, namespace, from_namespace, restore_rows, format, request_id, created_at)
           VALUES ($1, $2, 'restore', 'uploading', $3, $3, 2, '(restore)', 'left-behind', now() - interval '1 hour')
           RETURNING id)
         INSERT INTO import_row (import_id, row_number, values, state) SELECT id, 1, $4, 'pending' FROM job`,
        [
          id,
          tenant.tenant_id,
          uniqueNamespace('left'),
          JSON.stringify({
            event: { event_id: 'e1', occurred_at: '2026-01-01T00:00:00Z', content: { text: 'half sent' } },
          }),
        ],
      );
      expect(inserted.rowCount).toBe(1);

      await expect
        .poll(
          async () => (await client.query('SELECT 1 FROM import_row WHERE import_id = $1', [id])).rowCount,
          EVENTUALLY,
        )
        .toBe(0);
      expect((await client.query('SELECT 1 FROM import_job WHERE id = $1', [id])).rowCount).toBe(0);
    } finally {
      await client.end();
    }
  });
});
