// Shared by write.js and recall.js: API settings from the environment, request helpers, and
// Zipf-like texts and cues (a word's chance falls as 1/rank, like natural language), as in
// tests/load/text-corpus.ts.
import exec from 'k6/execution';
import http from 'k6/http';

export const BASE_URL = (__ENV.BASE_URL || 'http://gateway:8080').replace(/\/+$/, '');
const API_KEY = __ENV.API_KEY;

const WORDS = (
  'the of and to a in is that for it you was with on as have be at by this not are from or his ' +
  'but had they we an she her all their one there about up out what when time people year day ' +
  'meeting doctor dentist project deadline report review email phone flight hotel ticket train ' +
  'lunch dinner coffee birthday party gift office team budget invoice payment bank rent allergy ' +
  'medicine book movie concert garden dog cat park beach password laptop backup draft contract ' +
  'interview salary lesson exam passport visa tax refund receipt repair plumber parking weather ' +
  'sister brother daughter neighbor landlord coach tutor mentor prefer remember cancel confirm'
).split(' ');

// Cumulative 1/rank weights, for inverse transform sampling.
const CUMULATIVE = [];
let total = 0;
for (let rank = 1; rank <= WORDS.length; rank++) {
  total += 1 / rank;
  CUMULATIVE.push(total);
}

export function word() {
  const u = Math.random() * total;
  let i = 0;
  while (CUMULATIVE[i] < u) i++;
  return WORDS[i];
}

export function text() {
  const words = Array.from({ length: 8 + Math.floor(Math.random() * 25) }, word).join(' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}.`;
}

export function cue() {
  const n = 3 + Math.floor(Math.random() * 4);
  const words = new Set();
  while (words.size < n) words.add(word());
  return [...words].join(' ');
}

export function params(extraHeaders, tags) {
  if (!API_KEY) exec.test.abort('API_KEY is required (create one with: pnpm admin bootstrap)');
  return {
    headers: { Authorization: `Bearer ${API_KEY}`, 'Content-Type': 'application/json', ...extraHeaders },
    tags,
  };
}

/** A namespace of this run's own (make it in setup(): init code runs once per VU). */
export function runNamespace(kind) {
  return `k6-${kind}-${Date.now().toString(36)}`;
}

/** A write of a fresh text; `key` is both the Idempotency-Key and the event id, unique per request. */
export function writeRequest(namespace, key) {
  const body = JSON.stringify({
    contract_version: 'v1',
    namespace,
    event: { event_id: key, occurred_at: new Date().toISOString(), content: { text: text() } },
  });
  return [
    'POST',
    `${BASE_URL}/api/v1/memory/write`,
    body,
    params({ 'Idempotency-Key': key }, { name: 'write' }),
  ];
}

export function deleteNamespace(namespace) {
  const url = `${BASE_URL}/api/v1/memory?namespace=${encodeURIComponent(namespace)}`;
  http.del(url, null, params({}, { name: 'delete' }));
}
