import http from 'node:http';
import pg from 'pg';
import { describe, expect, it, vi } from 'vitest';
import {
  exceljsWorkbook,
  rezip,
  sheetjsWorkbook,
  sheetsFirst,
  workbookWithHugeSharedString,
} from '../../../services/template/test/support/xlsx-test-files.js';
import { eventually } from '../support/eventually.js';
import { createTenant, uniqueNamespace } from '../support/factories.js';
import { importSteps } from '../support/imports.js';
import { recordsInNamespace } from '../support/memory-db.js';
import { useStack } from '../support/stack.js';

// Uploads of up to a million rows, parsed end to end: seconds alone, but they once passed 30 s when
// CI runs three files at a time on 2 cores. The bound is a hang guard, not a speed check.
vi.setConfig({ testTimeout: 180_000 });
const UNZIPPED_LIMIT = 8 * 1024 * 1024;
const t = useStack({
  // Silence over 300 ms is a stall: reading a 20,000-row file after it arrived takes longer than
  // that, which must not count (the stall timer times the client, not the server).
  gatewayEnv: { IMPORT_UPLOAD_TIMEOUT_MS: '300' },
  templateEnv: {
    IMPORT_MAX_UNCOMPRESSED_BYTES: String(UNZIPPED_LIMIT),
    IMPORT_MAX_CELL_CHARS: '100000',
    IMPORT_MAX_ROWS: '50000',
    IMPORT_MAX_CONCURRENT_PER_TENANT: '1',
    IMPORT_POLL_MS: '100',
  },
});

const { upload, runToCompletion } = importSteps(t);

const refused = (status: number, code: string) => ({
  status,
  body: { error: expect.any(String), retryable: expect.any(Boolean), details: { code } },
});

describe('POST /v1/imports bounds what an upload may expand to', () => {
  it('when an XLSX expands past the unzipped limit (a zip bomb), then 413 payload_too_large and nothing is stored', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-bomb');
    const bomb = await workbookWithHugeSharedString(64 * 1024 * 1024);

    const res = await upload(tenant.api_key, { format: '{text}', namespace }, bomb, 'bomb.xlsx');

    expect(res).toMatchObject(refused(413, 'payload_too_large'));
    expect(res.body.error).toBe(
      `The workbook expands to more than ${UNZIPPED_LIMIT} bytes when unzipped, the import limit; split it or save it as CSV`,
    );
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
  });

  it('when one XLSX cell is longer than the cell limit, then 413 naming the row and column, in our words', async () => {
    const tenant = await createTenant();
    const file = await workbookWithHugeSharedString(200_000);

    const res = await upload(tenant.api_key, { format: '{text}' }, file, 'cell.xlsx');

    expect(res).toMatchObject(refused(413, 'payload_too_large'));
    expect(res.body.error).toBe(
      "Row 2, column 'text' holds 200000 characters; one cell may hold at most 100000",
    );
  });

  it('when a 2 MB CSV has 1,000,000 rows, then a clear 413 on the row limit, not a stall', async () => {
    const tenant = await createTenant();
    const file = Buffer.from(`a\n${'1\n'.repeat(1_000_000)}`);

    const res = await upload(tenant.api_key, { format: '{a}' }, file, 'million.csv');

    expect(res).toMatchObject(refused(413, 'payload_too_large'));
    expect(res.body.error).toBe(
      'The file has more than 50000 rows, the limit for one import; split it into several files',
    );
  });

  it('when a CSV under the row limit takes longer to read than the stall timeout, then 201: only the client’s silence counts', async () => {
    const tenant = await createTenant();
    const rows = 20_000;
    const file = Buffer.from(`a\n${Array.from({ length: rows }, (_, i) => `row ${i}`).join('\n')}\n`);

    const res = await upload(tenant.api_key, { format: '{a}' }, file, 'many.csv');

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      state: 'estimated',
      total: rows,
      estimate: { rows, billable_rows: rows },
    });
  });
});

describe('POST /v1/imports reads XLSX whatever the zip entry order', () => {
  const rows = [
    ['name', 'city'],
    ['Ada', 'London'],
    ['Grace', 'Arlington'],
  ];
  it.each([
    ['SheetJS', async () => sheetjsWorkbook(rows)],
    ['exceljs re-zipped with its sheets first', async () => rezip(await exceljsWorkbook(rows), sheetsFirst)],
  ])('when the workbook was written by %s, then 201 with the first tab’s rows', async (_writer, make) => {
    const tenant = await createTenant();

    const res = await upload(
      tenant.api_key,
      { format: '{name} lives in {city}' },
      await make(),
      'people.xlsx',
    );

    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      state: 'estimated',
      file_kind: 'xlsx',
      total: 2,
      estimate: { rows: 2, rows_malformed: 0, billable_rows: 2, placeholders_without_column: [] },
    });
  });
});

describe('POST /v1/imports and NUL (U+0000)', () => {
  it.each([
    ['format', { format: 'Hello\u0000{a}' }],
    ['namespace', { format: '{a}', namespace: 'ns\u0000x' }],
    ['marketplace_template_id', { marketplace_template_id: 'meeting\u0000notes' }],
  ])('when the %s field holds NUL, then 400 at that field', async (field, fields) => {
    const tenant = await createTenant();

    const res = await upload(tenant.api_key, fields, Buffer.from('a\n1\n'), 'rows.csv');

    expect(res).toMatchObject(refused(400, 'validation_failed'));
    expect(res.body.details.fields).toContainEqual({
      path: field,
      message: 'must not contain NUL (\\u0000) characters',
    });
  });

  it('when a row value holds NUL, then that row fails as malformed_row and the others are retained', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-nul');
    // JSON spells NUL as an escape, so the file itself is clean text (a raw NUL in the first bytes
    // marks a file as binary, which is a malformed_file of its own)
    const file = Buffer.from(['first', 'sec\u0000ond', 'third'].map((a) => JSON.stringify({ a })).join('\n'));

    const { created, job, failures } = await importToTheEnd(tenant.api_key, namespace, file, 'nul.ndjson');

    expect(created.body.estimate).toMatchObject({ rows: 3, rows_malformed: 1, billable_rows: 2 });
    expect(job).toMatchObject({ state: 'completed', total: 3, retained: 2, failed: 1 });
    expect(failures).toMatchObject({
      status: 200,
      body: {
        failures: [
          {
            row: 2,
            reason: 'malformed_row',
            message: "Row 2 has a NUL character (U+0000) in column 'a'; text may not contain NUL",
          },
        ],
      },
    });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(2);
  });
});

describe('POST /v1/imports and deeply nested JSON rows', () => {
  it('when one JSON row nests 200 levels deep, then that row fails as malformed_row naming the bound and the others are retained', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-deep');
    const deep = `${'['.repeat(200)}"x"${']'.repeat(200)}`;
    const file = Buffer.from(`{"a":"first"}\n{"a":${deep}}\n{"a":"third"}\n`);

    const { created, job, failures } = await importToTheEnd(tenant.api_key, namespace, file, 'deep.ndjson');

    expect(created.body.estimate).toMatchObject({ rows: 3, rows_malformed: 1, billable_rows: 2 });
    expect(job).toMatchObject({ state: 'completed', total: 3, retained: 2, failed: 1 });
    expect(failures).toMatchObject({
      status: 200,
      body: {
        failures: [
          {
            row: 2,
            reason: 'malformed_row',
            message: "Row 2, column 'a' nests objects and lists deeper than 32 levels",
          },
        ],
      },
    });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(2);
  });
});

describe('POST /v1/imports concurrency per tenant', () => {
  it('when a tenant already has an upload in flight, then its next one is 429 too_many_imports with Retry-After', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-busy');
    const held = holdUploadOpen(tenant.api_key, namespace);
    try {
      await uploadingJobAppears(tenant.tenant_id);

      const res = await upload(tenant.api_key, { format: '{a}' }, Buffer.from('a\n1\n'), 'second.csv');

      expect(res).toMatchObject({ ...refused(429, 'too_many_imports'), body: { retryable: true } });
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      held.stop();
    }
  });
});

/** An upload that keeps sending a byte at a time, so it is in flight (not stalled) until stopped. */
function holdUploadOpen(key: string, namespace: string) {
  const boundary = 'held-upload-boundary';
  const req = http.request(new URL('/v1/imports', t.stack.url), {
    method: 'POST',
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'transfer-encoding': 'chunked',
    },
  });
  req.on('error', () => {});
  req.write(
    `--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\n{a}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="namespace"\r\n\r\n${namespace}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.csv"\r\n\r\na\n`,
  );
  const drip = setInterval(() => req.write('1\n'), 100);
  return {
    stop: () => {
      clearInterval(drip);
      req.destroy();
    },
  };
}

/** Uploads an NDJSON file with format `{a}`, starts it and reads it once it has run, with its failures. */
async function importToTheEnd(key: string, namespace: string, file: Buffer, name: string) {
  const created = await upload(key, { format: '{a}', namespace }, file, name);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  await t.api.post(`/v1/imports/${id}/start`, { key });
  const { job } = await runToCompletion(key, id);
  const failures = await t.api.get(`/v1/imports/${id}/failures`, { key });
  return { created, job, failures };
}

async function uploadingJobAppears(tenantId: string): Promise<void> {
  const client = new pg.Client({ connectionString: t.stack.env.templateDbUrl });
  await client.connect();
  try {
    await eventually(
      async () => {
        const { rows } = await client.query(
          "SELECT count(*)::int AS n FROM import_job WHERE tenant_id = $1 AND state = 'uploading'",
          [tenantId],
        );
        expect(rows[0].n, 'jobs uploading').toBeGreaterThan(0);
      },
      { interval: 20 },
    );
  } finally {
    await client.end();
  }
}
