// Shared by write.js and recall.js: API settings from the environment, the bench's run shape, and the
// bench's requests. Texts and cues come from zipf-corpus.js, the code the bench draws them with
// (tests/load/text-corpus.ts); tests/load/k6-scenarios.test.ts holds both sides' requests side by side.
import exec from 'k6/execution';
import http from 'k6/http';
import { DEFAULT_CORPUS, zipfCorpus } from './zipf-corpus.js';

export const BASE_URL = (__ENV.BASE_URL || 'http://gateway:8080').replace(/\/+$/, '');
const API_KEY = __ENV.API_KEY;

// Math.random, not the bench's seeded PRNG: each VU is its own runtime, and one seed would give every
// VU the same sequence of texts and cues, where the bench's connections share one sequence.
const corpus = zipfCorpus(DEFAULT_CORPUS, Math.random);

/**
 * The bench's defaults (bench-options.ts): 32 connections, 2 s of unmeasured warm-up, then 10 s
 * measured. Thresholds select the `measure` scenario, as the bench's figures leave the warm-up out.
 * @param {Record<string, string[]>} thresholds
 * @returns {import('k6/options').Options}
 */
export function benchRun(thresholds) {
  const vus = Number(__ENV.VUS || 32);
  const warmup = __ENV.WARMUP || '2s';
  return {
    scenarios: {
      warmup: { executor: 'constant-vus', vus, duration: warmup },
      measure: { executor: 'constant-vus', vus, duration: __ENV.DURATION || '10s', startTime: warmup },
    },
    thresholds,
  };
}

/**
 * @param {Record<string, string>} extraHeaders
 * @param {Record<string, string>} tags
 * @returns {import('k6/http').Params}
 */
export function params(extraHeaders, tags) {
  if (!API_KEY) exec.test.abort('API_KEY is required (create one with: pnpm admin bootstrap)');
  return {
    headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json', ...extraHeaders },
    tags,
  };
}

/**
 * A namespace of this run's own (make it in setup(): init code runs once per VU).
 * @param {string} kind
 */
export function runNamespace(kind) {
  return `k6-${kind}-${Date.now().toString(36)}`;
}

/**
 * A write of a fresh text; `key` is both the Idempotency-Key and the event id, unique per request.
 * @param {string} namespace
 * @param {string} key
 * @returns {import('k6/http').BatchRequest & ['POST', string, string, import('k6/http').Params]}
 */
export function writeRequest(namespace, key) {
  const body = JSON.stringify({
    contract_version: 'v1',
    namespace,
    event: { event_id: key, occurred_at: corpus.occurredAt(), content: { text: corpus.text() } },
  });
  return [
    'POST',
    `${BASE_URL}/api/v1/memory/write`,
    body,
    params({ 'Idempotency-Key': key }, { name: 'write' }),
  ];
}

/** @param {import('k6/http').RefinedResponse<'text'>} r */
const ok = (r) => r.status >= 200 && r.status < 300;

/**
 * What the bench counts as a write: a new record retained, not a replay.
 * @param {import('k6/http').RefinedResponse<'text'>} r
 */
export function writeAccepted(r) {
  return ok(r) && r.json('state') === 'retained' && r.json('idempotency_outcome') === 'Accepted';
}

/**
 * A recall of a fresh Zipf cue, the top 10.
 * @param {string} namespace
 */
export function recall(namespace) {
  const body = JSON.stringify({ contract_version: 'v1', namespace, cue: { text: corpus.cue() }, top_k: 10 });
  return http.post(`${BASE_URL}/api/v1/memory/recall`, body, params({}, { name: 'recall' }));
}

/**
 * What the bench counts as a recall: a 2xx answer from the recall operation.
 * @param {import('k6/http').RefinedResponse<'text'>} r
 */
export function recallAnswered(r) {
  return ok(r) && r.json('operation') === 'memory.recall';
}

/** @param {string} namespace */
export function deleteNamespace(namespace) {
  const url = `${BASE_URL}/api/v1/memory?namespace=${encodeURIComponent(namespace)}`;
  http.del(url, null, params({}, { name: 'delete' }));
}
