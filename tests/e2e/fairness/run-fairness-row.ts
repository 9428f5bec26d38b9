import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultStack } from '../faults/fault-stack.js';
import { type Attempt, Load } from '../faults/load.js';
import { readTotals, reconcile, settledWebhooks } from '../faults/totals.js';
import type { FairnessSettings } from './fairness-settings.js';
import type { Pressure, PressureContext, PressureSession, TenantA } from './pressure-table.js';
import { A_ADDRESS, AddressedClient } from './second-address.js';

/** What B saw in one window, quiet or under pressure. */
export interface BRun {
  attempts: number;
  p50Ms: number;
  p95Ms: number;
  /** Failed attempts by status and code (`503 upstream_unavailable ×2`), or `none`. */
  errors: string;
  serverErrors: number;
  noAnswer: number;
  /** Errors the SDK surfaced as not retryable (a 4xx to B), by status and code. */
  refused: string[];
  acknowledged: number;
  /** Acknowledged writes not in the memory database. */
  lost: number;
  /** Writes still unanswered after the application's re-sends. */
  unanswered: number;
  webhooks: { delivered: number; missing: number; p50Ms: number; p95Ms: number; worstMs: number };
}

export interface FairnessRow {
  pressure: Pressure;
  quiet: BRun | undefined;
  loaded: BRun | undefined;
  /** B's p95 under pressure over its quiet p95. */
  p95Ratio: number | undefined;
  /** What B was refused beside its load (its owner's logins in the login row): also among `problems`. */
  besideLoad: string[];
  problems: string[];
  notes: string[];
  passed: boolean;
  rowMs: number;
}

/** Nearest-rank percentile of `values` (0 when there are none). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** B's load (the stack's tenant, from 127.0.0.1), started; `finish` stops it and reads what B saw. */
function startB(stack: FaultStack, settings: FairnessSettings, keyPrefix: string) {
  const load = new Load({
    baseUrl: stack.baseUrl,
    apiKey: stack.tenant.apiKey,
    namespace: `fairness-${keyPrefix}`,
    keyPrefix,
    concurrency: settings.concurrency,
    recallEvery: settings.recallEvery,
    thinkMs: settings.thinkMs,
    attemptTimeoutMs: settings.attemptTimeoutMs,
  });
  load.start();
  return {
    stop: () => load.stop(),
    read: () => readB(stack, settings, load, keyPrefix),
  };
}

async function readB(stack: FaultStack, settings: FairnessSettings, load: Load, keyPrefix: string) {
  const unanswered = await load.resendUnanswered(15_000);
  const totals = reconcile(
    load.acked,
    await readTotals({
      memoryDbUrl: stack.memoryDbUrl,
      billingDbUrl: stack.billingDbUrl,
      tenantId: stack.tenant.tenantId,
      namespace: `fairness-${keyPrefix}`,
      keyPrefix,
    }),
  );
  const receiver = stack.webhooks;
  if (!receiver) throw new Error('the stack has no webhook receiver');
  const webhooks = await settledWebhooks(
    load.acked,
    (keys) => receiver.deliveriesOf(keys),
    settings.webhooksSettleMs,
  );
  const deliveryMs: number[] = [];
  for (const [key, ackedAt] of load.ackedAt) {
    const arrivedAt = receiver.arrivedAt(key);
    if (arrivedAt !== undefined) deliveryMs.push(Math.max(0, arrivedAt - ackedAt));
  }
  const failed = load.attempts.filter((a) => a.status < 200 || a.status >= 300);
  return {
    attempts: load.attempts.length,
    p50Ms: percentile(
      load.attempts.map((a) => a.ms),
      50,
    ),
    p95Ms: percentile(
      load.attempts.map((a) => a.ms),
      95,
    ),
    errors: tally(failed.map(kindOf)),
    serverErrors: failed.filter((a) => a.status >= 500).length,
    noAnswer: failed.filter((a) => a.status === 0).length,
    refused: load.nonRetryable.map((e) => `${e.status} ${e.code}`),
    acknowledged: load.acked.size,
    lost: totals.lost,
    unanswered: unanswered.length,
    webhooks: {
      delivered: webhooks.delivered,
      missing: webhooks.lost,
      p50Ms: percentile(deliveryMs, 50),
      p95Ms: percentile(deliveryMs, 95),
      worstMs: Math.max(0, ...deliveryMs),
    },
  } satisfies BRun;
}

const kindOf = (a: Attempt) =>
  a.status === 0 ? (a.code ?? 'no answer') : `${a.status} ${a.code ?? ''}`.trim();

function tally(kinds: string[]): string {
  const counts = new Map<string, number>();
  for (const k of kinds) counts.set(k, (counts.get(k) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${k} ×${n}`).join(', ') || 'none';
}

/** B's load before the first row, not measured. */
export async function warmUp(stack: FaultStack, settings: FairnessSettings, runTag: string) {
  const b = startB(stack, settings, `${runTag}-warmup`);
  await sleep(settings.warmupMs);
  await b.stop();
}

/** Tenant A for one row: a tenant of its own, its owner's session and a client on 127.0.0.2. */
async function tenantA(stack: FaultStack, id: string, runTag: string): Promise<TenantA> {
  const tenant = await stack.bootstrapTenant(`fairness-a-${id}`, `a-${id}-${runTag}@fairness.test`);
  const client = new AddressedClient(stack.baseUrl, A_ADDRESS);
  const login = await client.json('POST', '/api/v1/control/sessions', tenant.owner);
  if (login.status !== 201) throw new Error(`A's owner could not log in: ${login.status}`);
  client.answers.clear();
  return { tenant, token: String(login.body.token), client, namespace: `fairness-a-${runTag}-${id}` };
}

/**
 * One row: A sets its pressure up; B's load runs a quiet window; then A's pressure starts, and once it
 * has run `leadMs`, B's load runs the same window again under it. B's two windows are then compared.
 */
export async function runFairnessRow(
  stack: FaultStack,
  pressure: Pressure,
  settings: FairnessSettings,
  runTag: string,
): Promise<FairnessRow> {
  const began = Date.now();
  const problems: string[] = [];
  const notes: string[] = [];
  const besideLoad: string[] = [];
  const prefix = `${runTag}-${pressure.id}`;
  let quiet: BRun | undefined;
  let loaded: BRun | undefined;
  let a: TenantA | undefined;
  let session: PressureSession | undefined;
  try {
    a = await tenantA(stack, pressure.id, runTag);
    const ctx: PressureContext = {
      stack,
      a,
      tag: `${prefix}-a`,
      note: (text) => notes.push(text),
      fail: (text) => {
        besideLoad.push(text);
        problems.push(text);
      },
    };
    session = await pressure.prepare(ctx);

    const q = startB(stack, settings, `${prefix}-quiet`);
    await sleep(settings.windowMs);
    await q.stop();
    quiet = await q.read();

    const until = Date.now() + settings.leadMs + settings.windowMs;
    const pressing = session.run(until).catch((err: Error) => {
      problems.push(`A's pressure stopped with an error: ${err.message}`);
    });
    await sleep(settings.leadMs);
    const b = startB(stack, settings, `${prefix}-pressure`);
    await sleep(Math.max(0, until - Date.now()));
    await b.stop();
    await pressing;
    loaded = await b.read();
  } catch (err) {
    problems.push(`the row could not run: ${(err as Error).message}`);
  } finally {
    await session?.cleanup?.().catch((err: Error) => notes.push(`A's clean-up failed: ${err.message}`));
    a?.client.close();
  }
  const p95Ratio = quiet && loaded && quiet.p95Ms > 0 ? loaded.p95Ms / quiet.p95Ms : undefined;
  if (loaded) problems.push(...judge(loaded, p95Ratio, quiet, settings));
  if (quiet) notes.push(...quietNotes(quiet, settings));
  return {
    pressure,
    quiet,
    loaded,
    p95Ratio,
    besideLoad,
    problems,
    notes,
    passed: problems.length === 0,
    rowMs: Date.now() - began,
  };
}

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The row's rules, applied to B's window under pressure. */
function judge(b: BRun, ratio: number | undefined, quiet: BRun | undefined, settings: FairnessSettings) {
  const problems: string[] = [];
  if (b.serverErrors) problems.push(`B saw ${b.serverErrors} 5xx`);
  if (b.noAnswer) problems.push(`B saw ${b.noAnswer} attempts without an answer`);
  if (b.refused.length) problems.push(`B was refused: ${tally(b.refused)}`);
  if (ratio !== undefined && ratio > settings.maxP95Ratio)
    problems.push(
      `B's p95 ${b.p95Ms} ms is ${ratio.toFixed(1)}× its quiet ${quiet?.p95Ms} ms (bound ${settings.maxP95Ratio}×)`,
    );
  if (b.lost) problems.push(`${b.lost} of B's acknowledged writes not stored`);
  if (b.unanswered) problems.push(`${b.unanswered} of B's writes still unanswered after 15 s of re-sending`);
  if (b.webhooks.missing)
    problems.push(
      `${b.webhooks.missing} of B's webhooks not delivered ${s(settings.webhooksSettleMs)} after its load stopped`,
    );
  if (b.webhooks.p95Ms > settings.deliveryBoundMs)
    problems.push(
      `B's webhooks took ${s(b.webhooks.p95Ms)} at p95 (worst ${s(b.webhooks.worstMs)}; bound ${s(settings.deliveryBoundMs)})`,
    );
  return problems;
}

/** The quiet window is the yardstick: what is wrong with it is said, not judged. */
function quietNotes(q: BRun, settings: FairnessSettings) {
  const notes: string[] = [];
  if (q.serverErrors || q.noAnswer || q.refused.length) notes.push(`quiet window saw failures: ${q.errors}`);
  if (q.webhooks.missing || q.webhooks.p95Ms > settings.deliveryBoundMs)
    notes.push(`quiet window's webhooks: ${q.webhooks.missing} missing, p95 ${s(q.webhooks.p95Ms)}`);
  return notes;
}
