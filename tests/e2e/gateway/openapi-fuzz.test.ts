import { isDeepStrictEqual } from 'node:util';
import { buildOpenApiDocument } from '@tm/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapePointer } from '../support/contract.js';
import { classesOf, FuzzTally } from '../support/fuzz/fuzz-tally.js';
import { buildWorld, type FuzzWorld, knownValues } from '../support/fuzz/fuzz-world.js';
import { SchemaArbitraries } from '../support/fuzz/json-schema-arbitrary.js';
import { type OpenApiDocument, type Operation, operationsOf } from '../support/fuzz/operations.js';
import { type FuzzRequest, requestArbitrary } from '../support/fuzz/request-arbitrary.js';
import { FAMILIES, familyOf } from '../support/fuzz/route-families.js';
import { sendFuzzRequest } from '../support/fuzz/send-fuzz-request.js';
import { type Footprint, type Footprints, openFootprints } from '../support/fuzz/tenant-footprint.js';
import { importSteps } from '../support/imports.js';
import { useStack } from '../support/stack.js';

/**
 * Fuzzing from the OpenAPI document: every operation it lists, with inputs its schemas accept
 * and inputs they refuse, each sent with the right credential, none, a forged one and the wrong kind.
 * Whatever comes in: no 5xx; every answer is one the document describes (status and body); no
 * credential, no entry; a refused input is a 4xx; a refused request stores nothing; and every charge
 * answers a request that succeeded. Seeded and bounded (docs/operations.md, "Fuzzing"):
 * FUZZ_SEED=<seed> replays a run (FUZZ_SEED=random draws one), FUZZ_RUNS=<n> sets the requests per operation,
 * FUZZ_REPORT=<file> writes the run's table per bad-input class into that file's section for it
 * (docs/reliability.md); without it nothing is written.
 */
/** The seed `npm test` uses: CI's verdict is on the change, not on the draw (decisions/security.md). */
const DEFAULT_SEED = 20_261_125;
const SEED =
  process.env.FUZZ_SEED === 'random'
    ? Math.floor(Math.random() * 2 ** 31)
    : process.env.FUZZ_SEED
      ? Number(process.env.FUZZ_SEED)
      : DEFAULT_SEED;
/** Per operation. 57 operations × 20 on two busy cores: about a minute for the file (decisions/security.md). */
const RUNS = process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : 20;

// Failed logins are capped per account and per client address; the fuzzer logs in again and again
// on purpose (control-sessions.test.ts and login-throttling.test.ts hold the caps themselves).
const t = useStack({
  gatewayEnv: {
    LOGIN_ATTEMPTS_PER_15_MINUTES: '1000000',
    LOGIN_ATTEMPTS_PER_ADDRESS_PER_15_MINUTES: '1000000',
  },
});
const { runToCompletion } = importSteps(t);
const doc = buildOpenApiDocument() as unknown as OpenApiDocument;
const operations = operationsOf(doc);

/** Routes that end the session they are called with: the fuzzer signs in again after they succeed. */
const ENDS_SESSION = new Set([
  'DELETE /api/v1/control/sessions/current',
  'POST /api/v1/control/account/password',
]);

const tally = new FuzzTally();
const startedAt = new Date();

let footprints: Footprints;
beforeAll(async () => {
  footprints = await openFootprints(t.stack.env);
  console.info(`openapi fuzz: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}`);
});
afterAll(async () => {
  await footprints?.close();
  const report = process.env.FUZZ_REPORT;
  if (!report) return;
  tally.writeSection(report, { seed: SEED, runs: RUNS, startedAt });
  console.info(`openapi fuzz: the table per bad-input class is in ${report}`);
});

function describeRequest(
  operation: Operation,
  url: string,
  fuzz: FuzzRequest,
  status: number,
  body: unknown,
) {
  const sent = fuzz.body.kind === 'json' ? JSON.stringify(fuzz.body.value) : JSON.stringify(fuzz.body);
  return `${operation.method.toUpperCase()} ${url} credential=${fuzz.credential.kind} valid=${fuzz.valid} body=${sent?.slice(0, 300)} → ${status} ${JSON.stringify(body)?.slice(0, 300)}`;
}

type Answer = { status: number; type: string; body: unknown };

/** Why the answer is not one the document gives (status, body, an error without the envelope), if it is not. */
function offDocument(operation: Operation, url: string, fuzz: FuzzRequest, res: Answer): Error | undefined {
  try {
    if (res.type === 'application/json')
      t.api.contract.expectResponse(operation.method, url, res.status, res.body);
    else {
      const label = describeRequest(operation, url, fuzz, res.status, res.body);
      expect(res.status, `an error without the JSON envelope: ${label}`).toBeLessThan(400);
      t.api.contract.expectDocumentedStatus(operation.method, url, res.status);
    }
  } catch (err) {
    return err as Error;
  }
}

/** The properties every answer holds, whatever was sent. */
function expectAnswerHolds(
  operation: Operation,
  url: string,
  fuzz: FuzzRequest,
  res: Answer,
  undocumented: Error | undefined,
) {
  const label = describeRequest(operation, url, fuzz, res.status, res.body);
  expect(res.status, `5xx: ${label}`).toBeLessThan(500);
  if (undocumented) throw undocumented;
  const { kind } = fuzz.credential;
  if (operation.credential !== 'public' && (kind === 'none' || kind === 'garbage')) {
    expect(res.status, `no valid credential, yet not 401: ${label}`).toBe(401);
  }
  if (kind === 'wrong_kind')
    expect(res.status, `the wrong kind of credential, yet not 403: ${label}`).toBe(403);
  if (kind === 'right') expect(res.status, `the right credential, yet 401: ${label}`).not.toBe(401);
  if (kind === 'right' && !fuzz.valid) {
    expect(res.status, `an input the document refuses was accepted: ${label}`).toBeGreaterThanOrEqual(400);
  }
}

/**
 * A started import retains its rows in the background; wait until it is done, or its rows would land
 * between the before and after of the next request and look like something a refusal stored. Either
 * end (completed or failed) will do here: the fuzz asserts answers and footprints, not the job. A job
 * still processing at the bound fails the run with its last state, below the test's own time-out.
 */
async function settle(world: FuzzWorld, operation: Operation, url: string, status: number) {
  if (operation.id !== 'POST /v1/imports/{import_id}/start' || status >= 300) return;
  const id = decodeURIComponent(new URL(url, t.stack.url).pathname.split('/').at(-2) ?? '');
  await runToCompletion(world.apiKey, id, { timeout: 20_000 });
}

/** Signs the owner in again after a route that ends sessions succeeded (with the new password, if any). */
async function keepSignedIn(world: FuzzWorld, operation: Operation, fuzz: FuzzRequest, status: number) {
  if (!ENDS_SESSION.has(operation.id) || status >= 300 || fuzz.credential.kind !== 'right') return;
  const sent = fuzz.body.kind === 'json' ? fuzz.body.value : undefined;
  if (operation.id === 'POST /api/v1/control/account/password' && sent && typeof sent === 'object') {
    const next = (sent as { new_password?: unknown }).new_password;
    if (typeof next === 'string') world.owner.password = next;
  }
  world.session = await t.api.login(world.owner.email, world.owner.password);
}

function fuzzOperation(operation: Operation, world: () => FuzzWorld) {
  const timeout = 30_000 + RUNS * 250;
  it(`${operation.id}: no 5xx, answers as documented, refusals store nothing`, { timeout }, async () => {
    const w = world();
    const schemas = new SchemaArbitraries(doc.components.schemas, knownValues(operation, w));
    const bodyPointer = `/paths/${escapePointer(operation.path)}/${operation.method}/requestBody/content/application~1json/schema`;
    const acceptsBody = (value: unknown) => t.api.contract.accepts(bodyPointer, value);
    let lastFootprint: Footprint | undefined;
    const statuses = new Map<string, number>();
    const property = fc.asyncProperty(requestArbitrary(operation, schemas, acceptsBody), async (fuzz) => {
      const before = lastFootprint ?? (await footprints.of(w.tenantId));
      const sentAt = performance.now();
      const { url, response } = await sendFuzzRequest(t.stack.url, operation, fuzz, w);
      const latencyMs = performance.now() - sentAt;
      const key = `${fuzz.credential.kind}:${response.status}`;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      // FUZZ_TRACE=1: every request and its answer, one line each.
      if (process.env.FUZZ_TRACE)
        console.info(describeRequest(operation, url, fuzz, response.status, response.body));
      const undocumented = offDocument(operation, url, fuzz, response);
      const after = response.status < 400 ? undefined : await footprints.of(w.tenantId);
      tally.record(operation.id, classesOf(operation, fuzz), {
        status: response.status,
        latencyMs,
        offDocument: undocumented !== undefined,
        storedWhileRefused: after !== undefined && !isDeepStrictEqual(after, before),
      });
      expectAnswerHolds(operation, url, fuzz, response, undocumented);
      if (after === undefined) {
        w.succeeded.add(String(response.headers['x-request-id']));
        lastFootprint = undefined;
      } else {
        expect(
          after,
          `a refused request changed what the tenant has stored: ${describeRequest(operation, url, fuzz, response.status, response.body)}`,
        ).toEqual(before);
        lastFootprint = after;
      }
      await settle(w, operation, url, response.status);
      await keepSignedIn(w, operation, fuzz, response.status);
    });
    try {
      await fc.assert(property, { seed: SEED, numRuns: RUNS, includeErrorInReport: true });
    } catch (err) {
      tally.fail(operation.id);
      throw new Error(
        `${operation.id} failed. Replay: FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS} npx vitest run tests/e2e/gateway/openapi-fuzz.test.ts\n${(err as Error).message}`,
        { cause: err },
      );
    } finally {
      // FUZZ_STATS=1: which answers each credential kind got, to see that inputs reach past validation.
      if (process.env.FUZZ_STATS) console.info(operation.id, Object.fromEntries([...statuses].sort()));
    }
  });
}

/** Charges come from usage records, off the request's path: wait until their number stops moving. */
async function settledCharges(world: FuzzWorld): Promise<Array<{ request_id: string }>> {
  await t.stack.memory.flushOutbox();
  const read = async () => {
    const res = await t.api.get('/api/v1/control/billing/charges', {
      key: world.session,
      query: { limit: '200' },
    });
    expect(res.status).toBe(200);
    return res.body.data as Array<{ request_id: string }>;
  };
  let previous = await read();
  for (let attempt = 0; attempt < 20; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 150));
    const current = await read();
    if (current.length === previous.length) return current;
    previous = current;
  }
  return previous;
}

for (const family of FAMILIES) {
  const members = operations.filter((operation) => familyOf(operation.path) === family.name);
  if (members.length === 0) continue;
  describe(`route family ${family.name} (a tenant of its own)`, () => {
    let world: FuzzWorld;
    beforeAll(async () => {
      world = await buildWorld(t, { charge: family.needsCharge });
    });
    for (const operation of members) fuzzOperation(operation, () => world);

    it('then every charge of the tenant answers a request that succeeded', async () => {
      const charges = await settledCharges(world);
      const strays = charges.filter((charge) => !world.succeeded.has(charge.request_id));
      expect(strays).toEqual([]);
    });
  });
}

describe('the route families', () => {
  it('then every operation of the document belongs to one', () => {
    expect(operations.filter((operation) => familyOf(operation.path) === undefined).map((o) => o.id)).toEqual(
      [],
    );
    expect(operations.length).toBeGreaterThan(50);
  });
});
