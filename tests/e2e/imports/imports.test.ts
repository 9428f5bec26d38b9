import http from 'node:http';
import ExcelJS from 'exceljs';
import { describe, expect, it, vi } from 'vitest';
import { createTenant, recallBody, uniqueNamespace } from '../support/factories.js';
import { importSteps } from '../support/imports.js';
import { recordsInNamespace } from '../support/memory-db.js';
import { useStack } from '../support/stack.js';
import { importJobsOf } from '../support/template-db.js';

// Whole imports of thousands of rows, end to end: 12 s alone, but past 30 s when CI runs three
// files at a time on 2 cores. The bound is a hang guard, not a speed check.
vi.setConfig({ testTimeout: 180_000 });
const MAX_BYTES = 1024 * 1024;
const t = useStack({
  // An upload silent for 1.5 s is refused; supertest sends its files at once, so only the stalled one is.
  gatewayEnv: { IMPORT_MAX_BYTES: String(MAX_BYTES), IMPORT_UPLOAD_TIMEOUT_MS: '1500' },
  // small batches, few writes in flight: a job runs long enough to be stopped half way
  templateEnv: { IMPORT_BATCH_SIZE: '50', IMPORT_CONCURRENCY: '4', IMPORT_POLL_MS: '200' },
});

const ROWS = 3_000;
const OVERLONG = 'x'.repeat(33_000);
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/);
const uuid = expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

const { upload, runToCompletion, partlyProcessed, allFailures } = importSteps(t);

const nonDecreasingTo = (seen: number[], total: number) => {
  expect(seen.every((v, i) => i === 0 || v >= (seen[i - 1] ?? 0))).toBe(true);
  expect(seen.at(-1)).toBe(total);
};

/** CSV rows: name, topic (empty every 10th row: the default), note. Row 2 is the first data row. */
function csvFile() {
  const lines = ['name,topic,note'];
  const overlong = new Set([100, 1500, 2900]);
  const malformed = new Set([50, 2000]);
  for (let i = 1; i <= ROWS; i += 1) {
    const topic = i % 10 === 0 ? '' : `topic ${i}`;
    if (malformed.has(i)) lines.push(`only-one-value-${i}`);
    else lines.push(`Person ${i},${topic},${overlong.has(i) ? OVERLONG : `note ${i}`}`);
  }
  return {
    file: Buffer.from(`${lines.join('\n')}\n`),
    overlongRows: [...overlong].map((i) => i + 1),
    malformedRows: [...malformed].map((i) => i + 1),
  };
}

describe('POST /v1/imports (CSV), then start, status and failures', () => {
  it('when a CSV of 3,000 rows with defaults and bad rows is imported, then the estimate is exact, counts reconcile and the bad rows are reported', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-csv');
    const { file, overlongRows, malformedRows } = csvFile();

    const created = await upload(
      tenant.api_key,
      { format: 'Call {name} about {topic|general matters}. {note} {region|}', namespace },
      file,
      'contacts.csv',
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      id: uuid,
      state: 'estimated',
      file_name: 'contacts.csv',
      file_kind: 'csv',
      namespace,
      total: ROWS,
      processed: 0,
      retained: 0,
      failed: 0,
      estimate: {
        rows: ROWS,
        rows_malformed: 2,
        rows_empty_render: 0,
        rows_too_long: 3,
        billable_rows: ROWS - 5,
        placeholders_without_column: ['region'],
        pricing_version: 'sandbox-2026-11',
        unit_price_usd: 0.0001,
        estimated_cost_usd: ((ROWS - 5) * 100) / 1_000_000,
      },
      created_at: iso,
      started_at: null,
      completed_at: null,
    });
    expect(created.body.estimate.warnings).toHaveLength(3);
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
      retained: ROWS - 5,
      failed: 5,
    });
    expect(job.processed).toBe(job.retained + job.failed);
    nonDecreasingTo(seen, ROWS);
    expect(failures).toEqual(
      [
        ...malformedRows.map((row) => ({ row, reason: 'malformed_row', message: expect.any(String) })),
        ...overlongRows.map((row) => ({
          row,
          reason: 'text_too_long',
          message: expect.stringContaining('32768'),
        })),
      ].sort((a, b) => a.row - b.row),
    );
    expect(JSON.stringify(failures)).not.toContain('Person');
    expect(recall.status).toBe(200);
    expect(JSON.stringify(recall.body)).toContain('Call Person 10 about general matters. note 10');
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(ROWS - 5);
  });
});

describe('POST /v1/imports (XLSX)', () => {
  it('when an XLSX workbook of 3,000 rows is imported with a template’s format, then defaults apply and overlong rows fail', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-xlsx');
    const templateName = `ticket-${namespace.slice(-8)}`;
    const template = await t.api.post('/v1/templates', {
      key: tenant.api_key,
      body: {
        template_name: templateName,
        description: 'A support ticket',
        fields: [
          { name: 'title', type: 'string', required: true },
          { name: 'status', type: 'string' },
        ],
        format: 'Ticket {title} is {status|open}',
      },
    });
    expect(template.status).toBe(201);
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('tickets');
    sheet.addRow(['title', 'status']);
    for (let i = 1; i <= ROWS; i += 1) {
      sheet.addRow([i === 7 || i === 2222 ? OVERLONG : `T-${i}`, i % 3 === 0 ? null : 'closed']);
    }
    const file = Buffer.from(await workbook.xlsx.writeBuffer());

    const created = await upload(
      tenant.api_key,
      { template_name: templateName, namespace },
      file,
      'tickets.xlsx',
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      state: 'estimated',
      file_kind: 'xlsx',
      format: 'Ticket {title} is {status|open}',
      template_name: templateName,
      estimate: {
        rows: ROWS,
        rows_too_long: 2,
        rows_empty_render: 0,
        billable_rows: ROWS - 2,
        placeholders_without_column: [],
      },
    });
    const id = created.body.id as string;
    await t.api.post(`/v1/imports/${id}/start`, { key: tenant.api_key });
    const { job, seen } = await runToCompletion(tenant.api_key, id);
    const failures = await allFailures(tenant.api_key, id);
    const recall = await t.api.recall(tenant.api_key, recallBody(namespace, 'Ticket T-9 is open'));

    expect(job).toMatchObject({
      state: 'completed',
      total: ROWS,
      processed: ROWS,
      retained: ROWS - 2,
      failed: 2,
    });
    nonDecreasingTo(seen, ROWS);
    // spreadsheet rows: the header is row 1
    expect(failures.map((f) => [f.row, f.reason])).toEqual([
      [8, 'text_too_long'],
      [2223, 'text_too_long'],
    ]);
    expect(JSON.stringify(recall.body)).toContain('Ticket T-9 is open');
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(ROWS - 2);
  });
});

describe('POST /v1/imports (JSON), a restart mid-import', () => {
  it('when the template service restarts half way through a JSON import, then it resumes and no row is written twice', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-json');
    const rows = Array.from({ length: ROWS }, (_, k) => {
      const i = k + 1;
      if (i === 10 || i === 2500) return { text: '' }; // renders empty
      if (i === 3000) return 'not an object';
      return i % 4 === 0 ? { text: `fact ${i}` } : { text: `fact ${i}`, tag: ` #t${i}` };
    });
    const file = Buffer.from(JSON.stringify(rows));

    const created = await upload(tenant.api_key, { format: '{text}{tag|}', namespace }, file, 'facts.json');
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.estimate).toMatchObject({
      rows: ROWS,
      rows_empty_render: 2,
      rows_malformed: 1,
      billable_rows: ROWS - 3,
    });
    const id = created.body.id as string;
    await t.api.post(`/v1/imports/${id}/start`, { key: tenant.api_key });
    const midway = await partlyProcessed(tenant.api_key, id);
    await t.stack.stopTemplate();
    await t.stack.startTemplate();
    const { job, seen } = await runToCompletion(tenant.api_key, id);
    const failures = await allFailures(tenant.api_key, id);

    expect(midway.processed).toBeLessThan(ROWS);
    expect(job).toMatchObject({
      state: 'completed',
      total: ROWS,
      processed: ROWS,
      retained: ROWS - 3,
      failed: 3,
    });
    nonDecreasingTo(seen, ROWS);
    expect(failures.map((f) => [f.row, f.reason])).toEqual([
      [10, 'empty_render'],
      [2500, 'empty_render'],
      [3000, 'malformed_row'],
    ]);
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(ROWS - 3);
  });
});

describe('POST /v1/imports with empty cells', () => {
  it('when a placeholder without a default finds its cell empty, then the estimate warns with the column, the row is not written, and its failure names the row and column, never the cell', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-empty-cell');
    const csv = 'name,city\nAna,Oslo\nBo,\nCy,Bergen\nDee,  \n';

    const created = await upload(
      tenant.api_key,
      { format: '{name} lives in {city}', namespace },
      csv,
      'people.csv',
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await t.api.post(`/v1/imports/${id}/start`, { key: tenant.api_key });
    const { job } = await runToCompletion(tenant.api_key, id);
    const failures = await allFailures(tenant.api_key, id);
    const recall = await t.api.recall(tenant.api_key, recallBody(namespace, 'lives'));

    expect(created.body.estimate).toEqual({
      rows: 4,
      rows_malformed: 0,
      rows_empty_render: 0,
      rows_too_long: 0,
      rows_missing_value: 2,
      billable_rows: 2,
      placeholders_without_column: [],
      warnings: [
        '2 row(s) leave column "city" empty and will not be written: {city} has no default; write {city|…} or {#city}…{/city} to write them',
      ],
      pricing_version: 'sandbox-2026-11',
      unit_price_usd: 0.0001,
      estimated_cost_usd: 0.0002,
    });
    expect(job).toMatchObject({ state: 'completed', total: 4, processed: 4, retained: 2, failed: 2 });
    // the file's lines: the header is row 1
    const message =
      'Column "city" is empty in this row and the format gives no default; fill the cell, or write {city|…} or {#city}…{/city} to allow it empty';
    expect(failures).toEqual([
      { row: 3, reason: 'missing_value', message },
      { row: 5, reason: 'missing_value', message },
    ]);
    expect(recall.body.related.map((r: { text: string }) => r.text).sort()).toEqual([
      'Ana lives in Oslo',
      'Cy lives in Bergen',
    ]);
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(2);
  });

  it('when a marketplace template’s optional columns are empty, then every row is written and the empty ones’ phrases are dropped', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-task');
    const csv =
      'title,owner,due_date,priority,status,details\nFile taxes,Ana,2026-04-15,high,todo,\nBook dentist,,,,,\n';

    const created = await upload(
      tenant.api_key,
      { marketplace_template_id: 'task', namespace },
      csv,
      'tasks.csv',
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await t.api.post(`/v1/imports/${id}/start`, { key: tenant.api_key });
    const { job } = await runToCompletion(tenant.api_key, id);
    const recall = await t.api.recall(tenant.api_key, recallBody(namespace, 'task'));

    expect(created.body.estimate).toMatchObject({
      rows: 2,
      rows_missing_value: 0,
      billable_rows: 2,
      warnings: [],
    });
    expect(job).toMatchObject({ state: 'completed', retained: 2, failed: 0 });
    expect(recall.body.related.map((r: { text: string }) => r.text).sort()).toEqual([
      'Task "Book dentist".',
      'Task "File taxes" owned by Ana, due 2026-04-15, priority high, status todo.',
    ]);
  });
});

describe('an import after its namespace is deleted', () => {
  it('when the namespace is deleted, then its import job goes too (404), and its rows with it', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-deleted');
    const created = await upload(
      tenant.api_key,
      { format: '{text}', namespace },
      Buffer.from('text\nalpha\nbeta\n'),
      'a.csv',
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as string;
    await t.api.post(`/v1/imports/${id}/start`, { key: tenant.api_key });
    const { job } = await runToCompletion(tenant.api_key, id);
    expect(job).toMatchObject({ state: 'completed', retained: 2 });

    const deleted = await t.api.deleteNamespace(tenant.api_key, namespace);
    const after = await t.api.get(`/v1/imports/${id}`, { key: tenant.api_key });

    expect(deleted).toMatchObject({ status: 200, body: { deleted: 2 } });
    expect(after).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
  });
});

describe('POST /v1/imports refusals', () => {
  it('when an upload stops sending half way, then 408 upload_timeout and nothing is stored', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-stalled');
    const boundary = 'stalled-upload-boundary';
    const head =
      `--${boundary}\r\nContent-Disposition: form-data; name="format"\r\n\r\n{text}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="namespace"\r\n\r\n${namespace}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rows.csv"\r\n` +
      'Content-Type: text/csv\r\n\r\ntext\nfirst row\n';
    // The body promises more than it sends, then goes quiet: the gateway must not wait forever.
    const answer = await new Promise<{ status: number; body: { details?: { code?: string } } }>(
      (resolve, reject) => {
        const req = http.request(
          new URL('/v1/imports', t.stack.url),
          {
            method: 'POST',
            headers: {
              authorization: `Bearer ${tenant.api_key}`,
              'content-type': `multipart/form-data; boundary=${boundary}`,
              'content-length': String(Buffer.byteLength(head) + 10_000),
            },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk) => {
              text += chunk;
            });
            res.on('end', () => {
              resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) });
              req.destroy();
            });
          },
        );
        req.on('error', reject);
        req.write(head);
      },
    );

    expect(answer).toMatchObject({ status: 408, body: { details: { code: 'upload_timeout' } } });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
  });

  it('when a multipart upload also names a model-hub dataset, then 400 naming the field: a dataset import is a JSON body of its own', async () => {
    const tenant = await createTenant();
    const res = await upload(
      tenant.api_key,
      { format: '{a}', dataset: 'org/gated-set' },
      Buffer.from('a\n1\n'),
      'rows.csv',
    );
    expect(res).toMatchObject({ status: 400, body: { details: { code: 'validation_failed' } } });
    expect(res.body.details.fields.map((f: { path: string }) => f.path)).toContain('dataset');
  });

  it('when a placeholder without a default matches no column, then 400 at format naming it and the columns, and no job is kept', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-typo');

    const res = await upload(
      tenant.api_key,
      { format: '{nmae} lives in {city} {region|}', namespace },
      Buffer.from('name,city\nAna,Lisbon\n'),
      'people.csv',
    );

    const message =
      'Placeholder {nmae} matches no column of the file (columns: name, city); name a column, or give a default: {nmae|…}';
    expect(res).toMatchObject({
      status: 400,
      body: {
        error: message,
        retryable: false,
        details: { code: 'validation_failed', fields: [{ path: 'format', message }] },
      },
    });
    expect(await importJobsOf(tenant.tenant_id)).toBe(0);
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
  });

  it('when a .txt file is uploaded, then 415 unsupported_file_type', async () => {
    const tenant = await createTenant();
    const res = await upload(tenant.api_key, { format: '{a}' }, Buffer.from('a\n1\n'), 'notes.txt');
    expect(res).toMatchObject({ status: 415, body: { details: { code: 'unsupported_file_type' } } });
  });

  it('when a file is larger than the limit, then 413 payload_too_large and nothing is stored', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('import-big');
    const line = `${'y'.repeat(1_000)}\n`;
    const file = Buffer.from(`text\n${line.repeat(Math.ceil((MAX_BYTES * 1.5) / line.length))}`);
    const res = await upload(tenant.api_key, { format: '{text}', namespace }, file, 'big.csv');
    expect(res).toMatchObject({ status: 413, body: { details: { code: 'payload_too_large' } } });
    expect(await recordsInNamespace(tenant.tenant_id, namespace)).toBe(0);
  });

  it('when a JSON or XLSX file is malformed, then 400 malformed_file', async () => {
    const tenant = await createTenant();
    const json = await upload(
      tenant.api_key,
      { format: '{a}' },
      Buffer.from('[{"a": 1}, {"a": '),
      'broken.json',
    );
    const xlsx = await upload(tenant.api_key, { format: '{a}' }, Buffer.from('a,b\n1,2\n'), 'sheet.xlsx');
    expect(json).toMatchObject({ status: 400, body: { details: { code: 'malformed_file' } } });
    expect(xlsx).toMatchObject({ status: 400, body: { details: { code: 'malformed_file' } } });
  });

  it('when another tenant asks for an import, then 404 on status, failures and start', async () => {
    const owner = await createTenant();
    const other = await createTenant();
    const created = await upload(owner.api_key, { format: '{a}' }, Buffer.from('a\n1\n'), 'one.csv');
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const status = await t.api.get(`/v1/imports/${id}`, { key: other.api_key });
    const failures = await t.api.get(`/v1/imports/${id}/failures`, { key: other.api_key });
    const start = await t.api.post(`/v1/imports/${id}/start`, { key: other.api_key });

    for (const res of [status, failures, start]) {
      expect(res).toMatchObject({ status: 404, body: { details: { code: 'not_found' } } });
    }
  });
});
