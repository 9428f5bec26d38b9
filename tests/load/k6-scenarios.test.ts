// The k6 scripts (tests/load/k6/) describe the bench's scenarios: run in Node against a shim of the k6
// modules they import, their requests are held against what the bench's autocannon sends to a
// recording server, and their thresholds against the bench's targets (bench-targets.ts).
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readBenchOptions } from './bench-options.js';
import { benchTargets } from './bench-targets.js';
import { seededRandom } from './k6/random.js';
import { deleteNamespace, recallRequests, writeRequests } from './memory-api.js';
import { type LoadRequest, type LoadResult, runLoad } from './run-load.js';
import { DEFAULT_CORPUS, TextCorpus } from './text-corpus.js';

interface Sent {
  method: string;
  url: string;
  body: string | null;
  headers: Record<string, string>;
}
interface Answer {
  status: number;
  body: string;
}
type Check = (r: { status: number; json: (path?: string) => unknown }) => boolean;

const k6 = vi.hoisted(() => ({ sent: [] as Sent[], checks: [] as Record<string, Check>[] }));
const answered = (status: number) => ({ status, json: () => undefined });
const record = (method: string, url: string, body: string | null, params?: { headers?: object }) => {
  const headers = Object.fromEntries(
    Object.entries(params?.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  k6.sent.push({ method, url, body, headers });
  return answered(200);
};
vi.mock('k6', () => ({
  check: (value: unknown, sets: Record<string, Check>) => {
    k6.checks.push(sets);
    return value !== undefined;
  },
}));
vi.mock('k6/http', () => ({
  default: {
    request: record,
    post: (url: string, body: string, params: object) => record('POST', url, body, params),
    del: (url: string, body: null, params: object) => record('DELETE', url, body, params),
    batch: (requests: [string, string, string, object][]) => requests.map((r) => record(...r)),
  },
}));
vi.mock('k6/execution', () => ({
  default: {
    vu: { idInTest: 1, iterationInScenario: 0 },
    scenario: { name: 'measure' },
    test: {
      abort: (reason: string) => {
        throw new Error(reason);
      },
    },
  },
}));

interface K6Script {
  options: {
    scenarios: Record<string, { executor: string; vus: number; duration: string; startTime?: string }>;
    thresholds: Record<string, string[]>;
  };
  setup: () => { namespace: string };
  default: (data: { namespace: string; run?: string }) => void;
  teardown: (data: { namespace: string }) => void;
}

const API_KEY = 'tmk_k6_scenarios';
const BASE_URL = 'http://gateway.test:8080';

/**
 * A fresh copy of a k6 script (its options read __ENV when loaded) whose Math.random is the bench's
 * seeded PRNG, so k6 and the bench draw the same texts and cues when they share the sampler.
 */
async function loadK6(script: 'write.js' | 'recall.js', env: Record<string, string> = {}) {
  vi.resetModules();
  vi.stubGlobal('__ENV', { BASE_URL, API_KEY, ...env });
  vi.spyOn(Math, 'random').mockImplementation(seededRandom(DEFAULT_CORPUS.seed));
  k6.sent.length = 0;
  k6.checks.length = 0;
  // A computed path: the root tsconfig checks the bench, not the k6 scripts (tests/load/k6/tsconfig.json).
  return (await import(/* @vite-ignore */ `./k6/${script}`)) as K6Script;
}

/** What the bench's autocannon sends for `request`, `amount` requests on one connection. */
async function benchSends(request: LoadRequest, amount: number): Promise<Sent[]> {
  const sent: Sent[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      sent.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body,
        headers: req.headers as Sent['headers'],
      });
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  try {
    await runLoad(request, { baseUrl: `http://127.0.0.1:${port}`, connections: 1, amount });
  } finally {
    server.close();
  }
  return sent;
}

/** The bench's DELETE of a namespace, answered at once with a completed deletion. */
async function benchDeletes(namespace: string): Promise<Sent> {
  const sent: Sent[] = [];
  const server = createServer((req, res) => {
    sent.push({
      method: req.method ?? '',
      url: req.url ?? '',
      body: null,
      headers: req.headers as Sent['headers'],
    });
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ deleted: 0, deletion: { status: 'completed' } }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  try {
    await deleteNamespace(`http://127.0.0.1:${port}`, API_KEY, namespace);
  } finally {
    server.close();
  }
  return sent[0] as Sent;
}

// What each side's HTTP client adds on its own (fetch's among them, for the bench's DELETE);
// everything else is the scenario's.
const TRANSPORT = new Set([
  'host',
  'connection',
  'content-length',
  'user-agent',
  'accept',
  'accept-encoding',
  'accept-language',
  'sec-fetch-mode',
]);
const LOCAL_NAMES = /("namespace":")[^"]*"|("event_id":")[^"]*"/g;

/** A request with the run's own names (base URL, namespace, keys) taken out, for comparing sides. */
function scenarioOf(request: Sent) {
  const body = request.body ? JSON.parse(request.body) : null;
  const key = request.headers['idempotency-key'];
  // The key names the event, on both sides.
  if (key !== undefined) expect(body?.event?.event_id).toBe(key);
  return {
    method: request.method,
    path: request.url.replace(BASE_URL, '').replace(/namespace=[^&]*/, 'namespace=…'),
    headers: Object.fromEntries(
      Object.entries(request.headers)
        // A content type says nothing on a request without a body (k6's DELETE carries the scripts' one).
        .filter(([name]) => !TRANSPORT.has(name) && (body !== null || name !== 'content-type'))
        .map(([name, value]) => [name, name === 'idempotency-key' ? '…' : value]),
    ),
    body: request.body?.replace(LOCAL_NAMES, '$1$2…"') ?? null,
  };
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('tests/load/k6/write.js', () => {
  it('when run, then it sends the bench write scenario’s requests: route, headers, body and corpus texts', async () => {
    // Arrange
    const bench = await benchSends(writeRequests(API_KEY, 'bench-ns', new TextCorpus(), 'bench-run'), 5);
    const write = await loadK6('write.js');

    // Act
    const data = write.setup();
    for (let i = 0; i < 5; i++) write.default({ ...data, run: `run${i}` });

    // Assert
    expect(k6.sent.map(scenarioOf)).toEqual(bench.map(scenarioOf));
    expect(new Set(k6.sent.map((r) => r.headers['idempotency-key'])).size).toBe(5);
  });

  it('when a write is answered, then it counts as the bench counts it: a new record retained', async () => {
    // Arrange
    const write = await loadK6('write.js');
    write.default({ ...write.setup(), run: 'r' });
    const [k6Checks] = k6.checks;
    const accept = writeRequests(API_KEY, 'ns', new TextCorpus(), 'k').accept;
    const answers: Answer[] = [
      { status: 200, body: '{"state":"retained","idempotency_outcome":"Accepted"}' },
      { status: 200, body: '{"state":"retained","idempotency_outcome":"Replayed"}' },
      { status: 200, body: '{"state":"rejected","idempotency_outcome":"Accepted"}' },
      { status: 503, body: '{"state":"retained","idempotency_outcome":"Accepted"}' },
    ];

    // Act
    const verdicts = answers.map((a) => ({
      k6: Object.values(k6Checks ?? {}).every((c) => c(response(a))),
      bench: a.status >= 200 && a.status < 300 && accept?.(a.body) === true,
    }));

    // Assert
    expect(verdicts.map((v) => v.k6)).toEqual([true, false, false, false]);
    expect(verdicts.map((v) => v.k6)).toEqual(verdicts.map((v) => v.bench));
  });

  it('when loaded without settings, then it runs the bench’s connections, warm-up and duration, and judges no target', async () => {
    const write = await loadK6('write.js');
    expect(write.options.scenarios).toEqual(benchScenarios());
    // The bench's write targets are shares of the bare Express + pg baselines, which only the bench runs.
    expect(write.options.thresholds).toEqual({});
    const writeTargets = benchTargets(measured(0, 0)).filter((t) => t.target.startsWith('Write'));
    expect(writeTargets.map((t) => t.target)).toEqual([
      'Write throughput ≥ 50% of the baseline',
      'Write throughput ≥ 60% of the same-work baseline',
    ]);
  });
});

describe('tests/load/k6/recall.js', () => {
  it('when run, then it sends the bench recall scenario’s requests with the same Zipf cues', async () => {
    // Arrange
    const bench = await benchSends(recallRequests(API_KEY, 'bench-ns', new TextCorpus()), 5);
    const recall = await loadK6('recall.js');

    // Act
    for (let i = 0; i < 5; i++) recall.default({ namespace: 'k6-ns' });

    // Assert
    expect(k6.sent.map(scenarioOf)).toEqual(bench.map(scenarioOf));
  });

  it('when set up, then it seeds SEED_RECORDS writes of the bench write scenario into its namespace, and teardown deletes it as the bench does', async () => {
    // Arrange
    const benchWrite = scenarioOf(
      (await benchSends(writeRequests(API_KEY, 'b', new TextCorpus(), 'k'), 1))[0] as Sent,
    );
    const benchDelete = scenarioOf(await benchDeletes('bench-ns'));
    const recall = await loadK6('recall.js', { SEED_RECORDS: '120' });

    // Act
    const data = recall.setup();
    const seeded = [...k6.sent];
    recall.teardown(data);

    // Assert
    expect(seeded).toHaveLength(120);
    expect(new Set(seeded.map((r) => r.headers['idempotency-key'])).size).toBe(120);
    expect(seeded.every((r) => JSON.parse(r.body ?? '{}').namespace === data.namespace)).toBe(true);
    expect(scenarioOf(seeded[0] as Sent)).toEqual(benchWrite);
    expect(scenarioOf(k6.sent.at(-1) as Sent)).toEqual(benchDelete);
    expect(k6.sent.at(-1)?.url).toBe(
      `${BASE_URL}/api/v1/memory?namespace=${encodeURIComponent(data.namespace)}`,
    );
  });

  it('when a recall is answered, then it counts as the bench counts it: a 2xx from the recall operation', async () => {
    const recall = await loadK6('recall.js');
    recall.default({ namespace: 'ns' });
    const [k6Checks] = k6.checks;
    const accept = recallRequests(API_KEY, 'ns', new TextCorpus()).accept;
    const answers: Answer[] = [
      { status: 200, body: '{"operation":"memory.recall","records":[]}' },
      { status: 200, body: '{"operation":"memory.write"}' },
      { status: 504, body: '{"operation":"memory.recall"}' },
    ];
    const verdicts = answers.map((a) => ({
      k6: Object.values(k6Checks ?? {}).every((c) => c(response(a))),
      bench: a.status >= 200 && a.status < 300 && accept?.(a.body) === true,
    }));
    expect(verdicts.map((v) => v.k6)).toEqual([true, false, false]);
    expect(verdicts.map((v) => v.k6)).toEqual(verdicts.map((v) => v.bench));
  });

  it('when loaded without settings, then it runs the bench’s connections, warm-up and duration', async () => {
    const recall = await loadK6('recall.js');
    expect(recall.options.scenarios).toEqual(benchScenarios());
  });

  it.each([10_000, 50_000, 100_000, 1_000_000])(
    'when SEED_RECORDS is %i, then its thresholds pass and fail where the bench’s targets for that size are met and missed',
    async (records) => {
      // Arrange
      const recall = await loadK6('recall.js', { SEED_RECORDS: String(records) });
      const limits = Object.values(recall.options.thresholds)
        .flat()
        .flatMap((t) => /<(\d+(?:\.\d+)?)$/.exec(t)?.[1] ?? [])
        .map(Number);
      const p95s = [
        ...Array.from({ length: 2_000 }, (_, i) => (i + 1) / 2),
        ...limits.flatMap((l) => [l - 0.01, l]),
      ];

      // Act
      const disagreements = p95s.flatMap((p95) =>
        [0, 1].flatMap((failed) => {
          const bench = benchTargets(measured(records, p95, failed)).every((t) => t.met !== false);
          const k6Met = thresholdsMet(recall.options.thresholds, p95, failed);
          return bench === k6Met ? [] : [{ p95, failed, bench, k6: k6Met }];
        }),
      );

      // Assert
      expect(disagreements).toEqual([]);
    },
  );
});

const response = (a: Answer) => ({
  status: a.status,
  json: (path?: string) => {
    const body = JSON.parse(a.body) as Record<string, unknown>;
    return path === undefined ? body : body[path];
  },
});

/** The bench's default run shape, as k6 scenarios: the warm-up, then the measured run. */
function benchScenarios() {
  const { connections, warmup, duration } = readBenchOptions([], {});
  return {
    warmup: { executor: 'constant-vus', vus: connections, duration: `${warmup}s` },
    measure: {
      executor: 'constant-vus',
      vus: connections,
      duration: `${duration}s`,
      startTime: `${warmup}s`,
    },
  };
}

/** A bench run whose loaded recall at `records` had this p95 and failures, and met every other target. */
function measured(records: number, p95: number, failed = 0) {
  const result = (latency: number, failures: number): LoadResult => ({
    rps: 1e9,
    ok: 1_000,
    rejected: 0,
    non2xx: failures,
    errors: 0,
    statusCodes: failures ? { '200': 1_000, '500': failures } : { '200': 1_000 },
    seconds: 1,
    p50: latency,
    p95: latency,
    p99: latency,
    max: latency,
  });
  const fine = result(0.1, 0);
  return {
    baselineRps: 1,
    sameWorkWriteRps: 1,
    writeRps: 1e9,
    connections: readBenchOptions([], {}).connections,
    // The questions' targets are met: recall.js runs the Zipf cues, which `loaded` judges.
    recallAt: new Map([
      [
        records,
        {
          single: fine,
          rare: fine,
          common: fine,
          question: fine,
          loaded: result(p95, failed),
          loadedQuestions: fine,
          sameWorkSingle: fine,
          sameWorkLoaded: result(p95, 0),
        },
      ],
    ]),
    telemetry: new Map(),
  };
}

/** k6's verdict on a measured run where every request was a recall with this p95 and failures. */
function thresholdsMet(thresholds: Record<string, string[]>, p95: number, failed: number) {
  const value: Record<string, Record<string, number>> = {
    'http_req_duration{scenario:measure}': { 'p(95)': p95 },
    'http_req_failed{scenario:measure}': { rate: failed / 1_001 },
  };
  return Object.entries(thresholds).every(([metric, expressions]) =>
    expressions.every((expression) => {
      const [, aggregate, operator, limit] = /^(p\(95\)|rate)(<|==)(\d+(?:\.\d+)?)$/.exec(expression) ?? [];
      const actual = value[metric]?.[aggregate ?? ''];
      if (actual === undefined) throw new Error(`no evaluator for ${metric}: ${expression}`);
      return operator === '<' ? actual < Number(limit) : actual === Number(limit);
    }),
  );
}
