// The bench's "recall, under load" scenario on a namespace seeded in setup() with SEED_RECORDS writes
// (default 100,000, the size of the bench's recall latency target).
//   k6 run -e BASE_URL=http://gateway:8080 -e API_KEY=tmk_... -e SEED_RECORDS=1000000 tests/load/k6/recall.js
import { check } from 'k6';
import http from 'k6/http';
import { benchRun, deleteNamespace, recall, recallAnswered, runNamespace, writeRequest } from './corpus.js';

const SEED_RECORDS = Number(__ENV.SEED_RECORDS || 100000);
const SEED_BATCH = 50;

/**
 * The bench's targets for recall under load (bench-targets.ts), by namespace size; other sizes have none
 * k6 can judge (at 10,000 records the targets are shares of the baselines, which only the bench runs).
 * The bench's "failed" is any answer but 2xx, and any error.
 * @type {Record<number, Record<string, string[]>>}
 */
const TARGETS = {
  100000: { 'http_req_duration{scenario:measure}': ['p(95)<50'] },
  1000000: {
    'http_req_duration{scenario:measure}': ['p(95)<300'],
    'http_req_failed{scenario:measure}': ['rate==0'],
  },
};

export const options = {
  ...benchRun(TARGETS[SEED_RECORDS] ?? {}),
  setupTimeout: __ENV.SETUP_TIMEOUT || '30m',
};

export function setup() {
  const namespace = runNamespace('recall');
  const run = Date.now().toString(36);
  for (let done = 0; done < SEED_RECORDS; done += SEED_BATCH) {
    const batch = [];
    for (let i = done; i < Math.min(done + SEED_BATCH, SEED_RECORDS); i++)
      batch.push(writeRequest(namespace, `${run}-${i}`));
    const failed = http.batch(batch).filter((r) => r.status !== 200).length;
    if (failed) throw new Error(`seeding: ${failed} of ${batch.length} writes failed after ${done} records`);
  }
  return { namespace };
}

/** @param {ReturnType<typeof setup>} data */
export default function (data) {
  check(recall(data.namespace), { 'recall answered': recallAnswered });
}

/** @param {ReturnType<typeof setup>} data */
export function teardown(data) {
  deleteNamespace(data.namespace);
}
