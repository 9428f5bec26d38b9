// Write throughput and latency: every request a new event with its own idempotency key.
//   k6 run -e BASE_URL=http://gateway:8080 -e API_KEY=tmk_... tests/load/k6/write.js
import { check } from 'k6';
import exec from 'k6/execution';
import http from 'k6/http';
import { deleteNamespace, runNamespace, writeRequest } from './corpus.js';

export const options = {
  vus: Number(__ENV.VUS || 32),
  duration: __ENV.DURATION || '30s',
  thresholds: {
    'http_req_duration{name:write}': [`p(95)<${Number(__ENV.WRITE_P95_MS || 500)}`],
    'http_req_failed{name:write}': ['rate<0.01'],
    checks: ['rate>0.99'],
  },
};

export function setup() {
  return { namespace: runNamespace('write'), run: Date.now().toString(36) };
}

export default function (data) {
  const key = `${data.run}-${exec.vu.idInTest}-${exec.vu.iterationInScenario}`;
  const [method, url, body, params] = writeRequest(data.namespace, key);
  const res = http.request(method, url, body, params);
  check(res, {
    'write 200': (r) => r.status === 200,
    'write retained': (r) => r.status === 200 && r.json('state') === 'retained',
  });
}

export function teardown(data) {
  deleteNamespace(data.namespace);
}
