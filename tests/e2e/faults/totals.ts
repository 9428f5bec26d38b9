import pg from 'pg';
import { pollUntil } from '../../../infra/dev/wait-for.js';
import type { ReceivedDeliveries } from './webhook-receiver.js';

/** What the databases hold for one row's writes (its namespace in memory, its key prefix in billing). */
export interface StoredTotals {
  /** memory_record rows, and the event ids among them (the SDK sends the key as the event id). */
  records: number;
  storedKeys: Set<string>;
  /** billing usage_record rows for memory.write, and their idempotency keys. */
  usage: number;
  usageKeys: Set<string>;
  /** charges on those usage records, and the keys they charge. */
  charges: number;
  chargedKeys: Set<string>;
}

export interface RowScope {
  memoryDbUrl: string;
  billingDbUrl: string;
  tenantId: string;
  namespace: string;
  keyPrefix: string;
}

async function query<R extends pg.QueryResultRow>(url: string, sql: string, params: unknown[]) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Usage records committed by memory and not yet on JetStream. */
export async function outboxBacklog(memoryDbUrl: string): Promise<number> {
  const [row] = await query<{ n: string }>(memoryDbUrl, 'SELECT count(*) AS n FROM outbox_message', []);
  return Number(row?.n ?? 0);
}

/**
 * Recall usage records the tenant got between two times. Recalls carry no idempotency key, so a
 * recall the gateway gave up on (504) that memory still ran is billed, and so is its retry: the suite
 * reports the difference from the recalls answered, it does not fail on it (docs/decisions/reliability.md, Faults).
 */
export async function recallUsage(billingDbUrl: string, tenantId: string, from: Date, to: Date) {
  const [row] = await query<{ n: string }>(
    billingDbUrl,
    `SELECT count(*) AS n FROM usage_record
      WHERE tenant_id = $1 AND operation = 'memory.recall' AND occurred_at >= $2 AND occurred_at <= $3`,
    [tenantId, from, to],
  );
  return Number(row?.n ?? 0);
}

export async function readTotals(scope: RowScope): Promise<StoredTotals> {
  const stored = await query<{ event_id: string }>(
    scope.memoryDbUrl,
    'SELECT event_id FROM memory_record WHERE tenant_id = $1 AND namespace = $2',
    [scope.tenantId, scope.namespace],
  );
  const like = `${scope.keyPrefix}-%`;
  const usage = await query<{ idempotency_key: string }>(
    scope.billingDbUrl,
    `SELECT idempotency_key FROM usage_record
      WHERE tenant_id = $1 AND operation = 'memory.write' AND idempotency_key LIKE $2`,
    [scope.tenantId, like],
  );
  const charges = await query<{ idempotency_key: string }>(
    scope.billingDbUrl,
    `SELECT u.idempotency_key FROM charge c JOIN usage_record u ON u.id = c.usage_record_id
      WHERE u.tenant_id = $1 AND u.operation = 'memory.write' AND u.idempotency_key LIKE $2`,
    [scope.tenantId, like],
  );
  return {
    records: stored.length,
    storedKeys: new Set(stored.map((r) => r.event_id)),
    usage: usage.length,
    usageKeys: new Set(usage.map((r) => r.idempotency_key)),
    charges: charges.length,
    chargedKeys: new Set(charges.map((r) => r.idempotency_key)),
  };
}

/**
 * Billing consumes usage from JetStream off the request's path (and a fault may have held the outbox
 * back): read until every acknowledged write is billed and charged, or the deadline passes.
 */
export async function settledTotals(scope: RowScope, acked: number, deadlineMs: number) {
  let totals: StoredTotals | undefined;
  // Past the deadline the totals as they are: the reconciliation reports what is missing.
  await pollUntil(
    async () => {
      totals = await readTotals(scope).catch(() => undefined);
      return totals !== undefined && totals.usage >= acked && totals.charges >= acked;
    },
    { timeoutMs: deadlineMs },
  );
  return totals ?? (await readTotals(scope));
}

export interface Reconciliation {
  acknowledged: number;
  lost: number;
  duplicated: number;
  doubleCharged: number;
  unbilled: number;
  uncharged: number;
  /** Stored though never acknowledged: only possible for writes still unanswered at the end. */
  unacknowledgedStored: number;
  /** The exact-totals rule: acknowledged = stored = usage records = charges. */
  exact: boolean;
}

const missing = (from: Set<string>, inside: Set<string>) => [...from].filter((k) => !inside.has(k)).length;

export function reconcile(acked: Set<string>, totals: StoredTotals): Reconciliation {
  const n = acked.size;
  return {
    acknowledged: n,
    lost: missing(acked, totals.storedKeys),
    // The same event twice in memory, or the same write's usage recorded twice.
    duplicated: totals.records - totals.storedKeys.size + (totals.usage - totals.usageKeys.size),
    doubleCharged: totals.charges - totals.chargedKeys.size,
    unbilled: missing(acked, totals.usageKeys),
    uncharged: missing(acked, totals.chargedKeys),
    unacknowledgedStored: missing(totals.storedKeys, acked),
    exact: n === totals.records && n === totals.usage && n === totals.charges,
  };
}

/** The row's writes as the tenant's webhook receiver saw them: one `memory.retained` each, at least once. */
export interface WebhookReconciliation {
  /** Acknowledged writes whose memory.retained arrived (verified with the library). */
  delivered: number;
  /** Acknowledged writes whose memory.retained never arrived. */
  lost: number;
  /** Writes that arrived under more than one webhook-id: a receiver deduplicating by it would see two events. */
  twoIds: number;
  /** Requests beyond the first per write (the same webhook-id sent again: at least once, as the spec allows). */
  sentAgain: number;
  /** Deliveries cut before their answer (the sender killed) and not sent again. */
  notResent: number;
}

export function reconcileWebhooks(acked: Set<string>, got: ReceivedDeliveries): WebhookReconciliation {
  const delivered = [...acked].filter((key) => got.ids.has(key)).length;
  return {
    delivered,
    lost: acked.size - delivered,
    twoIds: [...got.ids.values()].filter((ids) => ids.size > 1).length,
    sentAgain: got.requests - got.ids.size,
    notResent: got.cutNotResent,
  };
}

/**
 * Deliveries follow billing off the request's path, and one a killed instance had sent comes again
 * only when its lease ends: read until every acknowledged write's has arrived, and every delivery cut
 * before its answer has come again, or the deadline passes.
 */
export async function settledWebhooks(
  acked: Set<string>,
  deliveriesOf: (keys: Iterable<string>) => ReceivedDeliveries,
  deadlineMs: number,
): Promise<WebhookReconciliation> {
  const read = () => reconcileWebhooks(acked, deliveriesOf(acked));
  await pollUntil(
    async () => {
      const now = read();
      return now.lost === 0 && now.notResent === 0;
    },
    { timeoutMs: deadlineMs },
  );
  return read();
}
