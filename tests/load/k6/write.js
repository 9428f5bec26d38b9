// The bench's write scenario: every request a new event with its own idempotency key.
//   k6 run -e BASE_URL=http://gateway:8080 -e API_KEY=tmk_... tests/load/k6/write.js
// No threshold: the bench's write target is a share of the bare Express + pg baseline's req/s, which
// only the bench runs (docs/benchmarks.md, "k6").
import { check } from 'k6';
import exec from 'k6/execution';
import http from 'k6/http';
import { benchRun, deleteNamespace, runNamespace, writeAccepted, writeRequest } from './corpus.js';

export const options = benchRun({});

export function setup() {
  return { namespace: runNamespace('write'), run: Date.now().toString(36) };
}

/** @param {ReturnType<typeof setup>} data */
export default function (data) {
  const key = `${data.run}-${exec.vu.idInTest}-${exec.vu.iterationInScenario}-${exec.scenario.name}`;
  const [method, url, body, params] = writeRequest(data.namespace, key);
  check(http.request(method, url, body, params), { 'write accepted': writeAccepted });
}

/** @param {ReturnType<typeof setup>} data */
export function teardown(data) {
  deleteNamespace(data.namespace);
}
