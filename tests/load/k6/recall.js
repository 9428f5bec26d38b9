// Recall latency on a namespace seeded in setup() with SEED_RECORDS writes (default 10,000).
//   k6 run -e BASE_URL=http://gateway:8080 -e API_KEY=tmk_... -e SEED_RECORDS=100000 tests/load/k6/recall.js
import { check } from 'k6';
import http from 'k6/http';
import { BASE_URL, cue, deleteNamespace, params, runNamespace, writeRequest } from './corpus.js';

const SEED_RECORDS = Number(__ENV.SEED_RECORDS || 10000);
const SEED_BATCH = 50;

export const options = {
  vus: Number(__ENV.VUS || 16),
  duration: __ENV.DURATION || '30s',
  setupTimeout: __ENV.SETUP_TIMEOUT || '30m',
  thresholds: {
    'http_req_duration{name:recall}': [`p(95)<${Number(__ENV.RECALL_P95_MS || 50)}`],
    'http_req_failed{name:recall}': ['rate<0.01'],
    checks: ['rate>0.99'],
  },
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

export default function (data) {
  const body = JSON.stringify({
    contract_version: 'v1',
    namespace: data.namespace,
    cue: { text: cue() },
    top_k: 10,
  });
  const res = http.post(`${BASE_URL}/api/v1/memory/recall`, body, params({}, { name: 'recall' }));
  check(res, { 'recall 200': (r) => r.status === 200 });
}

export function teardown(data) {
  deleteNamespace(data.namespace);
}
