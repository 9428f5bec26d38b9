import request from 'supertest';
import { expect } from 'vitest';
import type { Api } from './api.js';
import { eventually } from './eventually.js';

/** An import job as its status route answers it: the fields the import files read. */
export type ImportJob = {
  id: string;
  state: string;
  total: number;
  processed: number;
  retained: number;
  failed: number;
};

/**
 * How long a started job may take to leave `processing`: whole imports of thousands of rows (about 11 s
 * on a quiet machine, past 80 s once seen under the full suite on two cores), below the import files'
 * 180 s test bound, so a stuck job fails with its last state rather than the test's time-out. A bound
 * against hangs, not a speed check.
 */
const JOB_RUNS = { timeout: 170_000, interval: 50 };

/** Import steps on a file's stack; `t` is read at call time, once `beforeAll` has set it. */
export function importSteps(t: { api: Api; stack: { url: string } }) {
  /** A multipart upload to POST /v1/imports (the Api helper speaks JSON only): fields, then the file. */
  function upload(key: string, fields: Record<string, string>, file: Buffer | string, fileName = 'rows.csv') {
    let req = request(t.stack.url).post('/v1/imports').set('Authorization', `Bearer ${key}`);
    for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
    return req.attach('file', typeof file === 'string' ? Buffer.from(file) : file, fileName);
  }

  /**
   * Polls a started job's status route until it has left `processing` (completed or failed: the test
   * asserts which); the job as last read, and every `processed` seen, in order. `timeout` is for a
   * caller whose test bound is below JOB_RUNS' (a small job), so the wait still fails first.
   */
  async function runToCompletion(
    key: string,
    id: string,
    { timeout = JOB_RUNS.timeout }: { timeout?: number } = {},
  ): Promise<{ job: ImportJob; seen: number[] }> {
    const seen: number[] = [];
    const res = await eventually(
      async () => {
        const res = await t.api.get(`/v1/imports/${id}`, { key });
        if (res.status !== 200) return res; // not a state to wait out: asserted below
        seen.push(res.body.processed);
        expect(res.body.state, `import ${id} after ${seen.length} reads`).not.toBe('processing');
        return res;
      },
      { ...JOB_RUNS, timeout },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return { job: res.body, seen };
  }

  /**
   * A started job as soon as it has processed some rows, to stop a service half way: read back to
   * back (no pause), or a small job may finish between two reads.
   */
  function partlyProcessed(key: string, id: string): Promise<ImportJob> {
    return eventually(
      async () => {
        const res = await t.api.get(`/v1/imports/${id}`, { key });
        expect(res.body.processed, `import ${id}: rows processed`).toBeGreaterThan(0);
        return res.body as ImportJob;
      },
      { ...JOB_RUNS, interval: 1 },
    );
  }

  /** Every row failure of a job (one page holds them all here). */
  async function allFailures(key: string, id: string) {
    const res = await t.api.get(`/v1/imports/${id}/failures`, { key, query: { limit: '500' } });
    expect(res.status).toBe(200);
    return res.body.failures as Array<{ row: number; reason: string; message: string }>;
  }

  return { upload, runToCompletion, partlyProcessed, allFailures };
}
