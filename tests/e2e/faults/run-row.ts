import { setTimeout as sleep } from 'node:timers/promises';
import { pollUntil } from '../../../infra/dev/wait-for.js';
import { TextMemory } from '../../../libs/clients/sdk/src/index.js';
import type { FaultStack } from './fault-stack.js';
import type { Fault, FaultContext } from './fault-table.js';
import { type Attempt, Load } from './load.js';
import {
  type Reconciliation,
  recallUsage,
  reconcile,
  settledTotals,
  settledWebhooks,
  type WebhookReconciliation,
} from './totals.js';

export interface RowSettings {
  concurrency: number;
  recallEvery: number;
  thinkMs: number;
  /** Writes acknowledged before the fault is injected, so it lands on a running load. */
  warmupAcks: number;
  /** Load kept running once the stack is healthy again. */
  afterHealthyMs: number;
  /** The stated recovery bound: health 200 with every dependency available, and a write answered. */
  healthyWithinMs: number;
  /** Client-side bound per attempt = GATEWAY_REQUEST_TIMEOUT_MS + this margin. */
  latencyMarginMs: number;
  /** How long billing gets to record and charge every acknowledged write. */
  settleMs: number;
  /** How long the webhooks service gets to deliver every acknowledged write's memory.retained. */
  webhooksSettleMs: number;
}

export interface RowResult {
  fault: Fault;
  inFlightAtFault: number;
  totals: Reconciliation;
  /** The row's memory.retained deliveries at the suite's receiver. */
  webhooks: WebhookReconciliation;
  /** Writes the SDK gave up on after its retries, sent again by the load with the same key. */
  resent: number;
  recallsAcked: number;
  /** What the health route answered while the fault was in force (each distinct answer, first seen first). */
  healthDuringFault: string[];
  /** Recall usage records billed during the row (a recall has no idempotency key: see totals.ts). */
  recallsBilled: number;
  failedAttempts: string;
  worstLatencyMs: number;
  latencyBoundMs: number;
  timeToHealthyMs: number | undefined;
  problems: string[];
  notes: string[];
  passed: boolean;
  /** How long the row took, load and settling included. */
  rowMs: number;
}

/**
 * One row: a load runs, the fault is injected and lifted, the stack must be healthy again within the
 * bound, and then the totals must be exact and every failure the client saw retryable and on time.
 */
export async function runRow(
  stack: FaultStack,
  fault: Fault,
  settings: RowSettings,
  runTag: string,
): Promise<RowResult> {
  const began = Date.now();
  const problems: string[] = [];
  const notes: string[] = [];
  const keyPrefix = `${runTag}-${fault.id}`;
  const namespace = `faults-${runTag}-${fault.id}`;
  const latencyBoundMs = stack.options.requestTimeoutMs + settings.latencyMarginMs;
  const refusedBefore = stack.webhooks?.refused ?? 0;
  // On a cluster, the last row's restarted node must be caught up first, or this row's fault could
  // take a second copy and look like a lost quorum.
  const unsettled = await stack.natsUnsettled();
  if (unsettled) problems.push(`the NATS cluster was not whole before the fault: ${unsettled}`);
  if ((await healthyWithin(stack, runTag, settings.healthyWithinMs)) === undefined)
    problems.push('the stack was not healthy before the fault');

  const load = new Load({
    baseUrl: stack.baseUrl,
    apiKey: stack.tenant.apiKey,
    namespace,
    keyPrefix,
    concurrency: settings.concurrency,
    recallEvery: settings.recallEvery,
    thinkMs: settings.thinkMs,
    attemptTimeoutMs: latencyBoundMs + 2_000,
  });
  const loadStarted = new Date();
  load.start();
  // Not warm within 30 s: the fault goes in all the same, on whatever load there is.
  await pollUntil(async () => load.acked.size >= settings.warmupAcks, { timeoutMs: 30_000, intervalMs: 50 });

  const inFlightAtFault = load.inFlight;
  let lifted = Date.now();
  const health = watchHealth(stack);
  const ctx: FaultContext = {
    stack,
    keyPrefix,
    note: (text) => notes.push(text),
    fail: (text) => problems.push(text),
    firstWriteAnswered: (since) => load.firstWriteAnswered(since),
  };
  try {
    lifted = await fault.run(ctx);
  } catch (err) {
    problems.push(`the fault could not be lifted: ${(err as Error).message}`);
  }
  const healthDuringFault = await health.stop();
  const healthyAt = await healthyWithin(stack, runTag, settings.healthyWithinMs);
  const timeToHealthyMs = healthyAt === undefined ? undefined : healthyAt - lifted;
  if (timeToHealthyMs === undefined)
    problems.push(`not healthy within ${settings.healthyWithinMs / 1000} s of the fault being lifted`);
  await fault.afterHealthy?.(ctx, lifted);

  await sleep(settings.afterHealthyMs);
  await load.stop();
  const loadEnded = new Date();
  const resent = load.gaveUp.size;
  const unanswered = await load.resendUnanswered(30_000);
  if (unanswered.length)
    problems.push(`${unanswered.length} writes still unanswered after 30 s of re-sending`);

  const totals = reconcile(
    load.acked,
    await settledTotals(
      {
        memoryDbUrl: stack.memoryDbUrl,
        billingDbUrl: stack.billingDbUrl,
        tenantId: stack.tenant.tenantId,
        namespace,
        keyPrefix,
      },
      load.acked.size,
      settings.settleMs,
    ),
  );
  if (totals.lost) problems.push(`${totals.lost} acknowledged writes not stored`);
  if (totals.duplicated) problems.push(`${totals.duplicated} duplicates`);
  if (totals.doubleCharged) problems.push(`${totals.doubleCharged} double charges`);
  if (totals.unbilled)
    problems.push(
      `${totals.unbilled} acknowledged writes without a usage record after ${settings.settleMs / 1000} s`,
    );
  if (totals.uncharged)
    problems.push(
      `${totals.uncharged} acknowledged writes without a charge after ${settings.settleMs / 1000} s`,
    );
  if (totals.unacknowledgedStored)
    problems.push(`${totals.unacknowledgedStored} stored writes never acknowledged`);
  if (!totals.exact && problems.length === 0) problems.push('totals differ');

  const receiver = stack.webhooks;
  if (!receiver) throw new Error('the fault stack has no webhook receiver');
  const webhooks = await settledWebhooks(
    load.acked,
    (keys) => receiver.deliveriesOf(keys),
    settings.webhooksSettleMs,
  );
  if (webhooks.lost)
    problems.push(
      `${webhooks.lost} acknowledged writes without a memory.retained delivery after ${settings.webhooksSettleMs / 1000} s`,
    );
  if (webhooks.twoIds) problems.push(`${webhooks.twoIds} writes delivered under two webhook-ids`);
  if (webhooks.notResent)
    problems.push(`${webhooks.notResent} deliveries cut before their answer and never sent again`);
  if (receiver.refused > refusedBefore)
    problems.push(`${receiver.refused - refusedBefore} webhook requests the library refused`);
  for (const err of load.nonRetryable.slice(0, 3))
    problems.push(`the SDK surfaced a non-retryable ${err.status} ${err.code}`);

  const recallsBilled = await recallUsage(stack.billingDbUrl, stack.tenant.tenantId, loadStarted, loadEnded);
  if (recallsBilled !== load.recallsAcked)
    notes.push(`${recallsBilled} recalls billed for ${load.recallsAcked} answered`);
  const judged = judgeAttempts(load.attempts, fault, latencyBoundMs);
  problems.push(...judged.problems);
  return {
    fault,
    inFlightAtFault,
    totals,
    webhooks,
    resent,
    recallsAcked: load.recallsAcked,
    healthDuringFault,
    recallsBilled,
    failedAttempts: judged.summary,
    worstLatencyMs: judged.worstMs,
    latencyBoundMs,
    timeToHealthyMs,
    problems,
    notes,
    passed: problems.length === 0,
    rowMs: Date.now() - began,
  };
}

/** Socket errors of a connection refused (nothing listening) rather than one cut mid-request. */
const REFUSED = new Set(['ECONNREFUSED']);

function judgeAttempts(attempts: Attempt[], fault: Fault, boundMs: number) {
  const problems: string[] = [];
  const kinds = new Map<string, number>();
  const bad = new Map<string, number>();
  const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  let worstMs = 0;
  let late = 0;
  for (const a of attempts) {
    worstMs = Math.max(worstMs, a.ms);
    if (a.ms > boundMs) late++;
    if (a.status >= 200 && a.status < 300) continue;
    const kind = a.status === 0 ? `${a.code ?? 'no answer'}` : `${a.status} ${a.code ?? ''}`.trim();
    count(kinds, kind);
    if (a.status === 0) {
      const allowed =
        fault.connectionErrors === 'any' ||
        (fault.connectionErrors === 'refused' && REFUSED.has(a.code ?? ''));
      if (!allowed) count(bad, `${kind} (no answer)`);
    } else if (!isRetryableAnswer(a)) {
      count(bad, `${kind}${a.retryable ? ' without Retry-After' : ' not retryable'}`);
    }
  }
  for (const [kind, n] of bad) problems.push(`${n} × ${kind}`);
  if (late) problems.push(`${late} attempts past the ${boundMs} ms bound (worst ${worstMs} ms)`);
  const summary = [...kinds].map(([kind, n]) => `${kind} ×${n}`).join(', ') || 'none';
  return { problems, summary, worstMs };
}

/**
 * The spec's retryable failures: 503/504 (and 409 idempotency_in_flight, which docs/decisions/memory.md makes
 * retryable with Retry-After: 1) with `retryable: true` and a Retry-After header.
 */
const isRetryableAnswer = (a: Attempt) =>
  (a.status === 503 || a.status === 504 || (a.status === 409 && a.code === 'idempotency_in_flight')) &&
  a.retryable === true &&
  Boolean(a.retryAfter);

/**
 * The health route's answers while a fault is in force, read every 250 ms: reported, not judged,
 * since what health should say during each fault is being changed (503 when writes cannot be served).
 */
function watchHealth(stack: FaultStack) {
  const seen: string[] = [];
  let watching = true;
  const loop = (async () => {
    while (watching) {
      let answer: string;
      try {
        const res = await fetch(`${stack.baseUrl}/api/v1/infrastructure/health`, {
          signal: AbortSignal.timeout(3_000),
        });
        const body = (await res.json()) as { available?: boolean };
        answer = `${res.status} ${body.available ? 'available' : 'unavailable'}`;
      } catch {
        answer = 'no answer';
      }
      if (!seen.includes(answer)) seen.push(answer);
      await sleep(250);
    }
  })();
  return {
    stop: async () => {
      watching = false;
      await loop;
      return seen;
    },
  };
}

let probes = 0;

/**
 * When the stack is healthy again: health answers 200 with every service available (the optional ones,
 * template and webhooks, too), and a write (its own namespace and key, apart from the row's totals)
 * is answered 200. Undefined past `withinMs`.
 */
export async function healthyWithin(stack: FaultStack, runTag: string, withinMs: number) {
  const client = new TextMemory({
    baseUrl: stack.baseUrl,
    apiKey: stack.tenant.apiKey,
    maxRetries: 0,
    timeoutMs: 3_000,
  });
  let healthyAt: number | undefined;
  await pollUntil(
    async () => {
      try {
        const health = await fetch(`${stack.baseUrl}/api/v1/infrastructure/health`, {
          signal: AbortSignal.timeout(3_000),
        });
        const body = (await health.json()) as {
          available?: boolean;
          services?: Record<string, { available?: boolean }>;
        };
        if (health.status !== 200 || body.available !== true) return false;
        if (!Object.values(body.services ?? {}).every((s) => s.available === true)) return false;
        await client.memory.write({
          namespace: `faults-${runTag}-probe`,
          text: 'probe',
          idempotency_key: `${runTag}-probe-${probes++}`,
        });
        healthyAt = Date.now();
        return true;
      } catch {
        return false; // not yet
      }
    },
    { timeoutMs: withinMs, intervalMs: 100 },
  );
  return healthyAt;
}
