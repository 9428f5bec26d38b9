import { prepared, type SqlRunner, timeOrderedId } from '@tm/kit';
import type { ChargeState } from './generated/client.js';
import type { Db } from './prisma-client.js';

export interface NewUsage {
  id: string;
  tenantId: string;
  userId: string;
  keyId: string;
  requestId: string;
  operation: string;
  units: number;
  idempotencyKey: string | null;
  pricingVersion: string;
  occurredAt: Date;
  amountMicroUsd: bigint;
  chargeState: ChargeState;
}

/**
 * Usage records, their charges and the charges' first events in one statement (atomic, one round
 * trip; through Prisma the three inserts cost about a millisecond of CPU per record). A usage id
 * already in the ledger is skipped with its charge.
 */
const RECORD_USAGE = prepared(
  'billing_record_usage',
  `WITH input AS (
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
                          $8::text[], $9::text[], $10::timestamptz[], $11::bigint[], $12::"ChargeState"[],
                          $13::uuid[], $14::uuid[])
       AS t(id, tenant_id, user_id, key_id, request_id, operation, units, idempotency_key, pricing_version,
            occurred_at, amount, state, charge_id, event_id)
   ), usage AS (
     INSERT INTO usage_record (id, tenant_id, user_id, key_id, request_id, operation, units, idempotency_key,
                               pricing_version, occurred_at)
     SELECT id, tenant_id, user_id, key_id, request_id, operation, units, idempotency_key, pricing_version, occurred_at
       FROM input
     ON CONFLICT (id) DO NOTHING
     RETURNING id
   ), charged AS (
     INSERT INTO charge (id, usage_record_id, tenant_id, operation, units, amount_micro_usd, pricing_version, state,
                         occurred_at)
     SELECT i.charge_id, i.id, i.tenant_id, i.operation, i.units, i.amount, i.pricing_version, i.state, i.occurred_at
       FROM input i JOIN usage u ON u.id = i.id
     RETURNING id, state
   )
   INSERT INTO charge_event (id, charge_id, from_state, to_state)
   SELECT i.event_id, c.id, NULL, c.state FROM charged c JOIN input i ON i.charge_id = c.id
   RETURNING charge_id`,
);

/**
 * Record usage and its charges. A usage id already in the ledger (a redelivery, a relay re-send) is
 * skipped with its charge, so each usage record is charged once; so is an id the batch holds twice
 * (a redelivery next to its original). Returns how many were new.
 */
export async function recordUsage(run: SqlRunner, usages: NewUsage[]): Promise<number> {
  const seen = new Set<string>();
  const batch = usages.filter((u) => !seen.has(u.id) && seen.add(u.id));
  if (batch.length === 0) return 0;
  const column = <T>(pick: (u: NewUsage) => T) => batch.map(pick);
  const rows = await run(RECORD_USAGE, [
    column((u) => u.id),
    column((u) => u.tenantId),
    column((u) => u.userId),
    column((u) => u.keyId),
    column((u) => u.requestId),
    column((u) => u.operation),
    column((u) => u.units),
    column((u) => u.idempotencyKey),
    column((u) => u.pricingVersion),
    column((u) => u.occurredAt),
    column((u) => u.amountMicroUsd.toString()),
    column((u) => u.chargeState),
    column(() => timeOrderedId()),
    column(() => timeOrderedId()),
  ]);
  return rows.length;
}

/**
 * A tenant's charges over [from, to) by bucket of `bucketMinutes` (its start, UTC-aligned), operation
 * and state, in one statement on the (tenant_id, occurred_at) index: the window's totals and its series
 * are both added up from these rows, so they cannot disagree. 30 days of 100k charges, on a loaded
 * 2-core machine: ~150-300 ms (the ungrouped-by-bucket read it replaced: ~280 ms), and
 * date_bin rather than floor(extract(epoch …)) (numeric: ~480 ms).
 */
export const usageInWindow = (db: Db, tenantId: string, from: Date, to: Date, bucketMinutes: number) =>
  db.$queryRaw<
    Array<{
      slot: Date;
      operation: string;
      state: ChargeState;
      requests: number;
      units: number;
      amount: bigint;
    }>
  >`SELECT date_bin(make_interval(mins => ${bucketMinutes}::int), occurred_at, 'epoch') AS slot, operation, state,
           count(*)::int AS requests, sum(units)::int AS units, sum(amount_micro_usd)::bigint AS amount
      FROM charge WHERE tenant_id = ${tenantId} AND occurred_at >= ${from} AND occurred_at < ${to}
     GROUP BY 1, 2, 3`;

export const lastRecordedAt = async (db: Db, tenantId: string) =>
  (
    await db.usageRecord.findFirst({
      where: { tenantId },
      orderBy: { recordedAt: 'desc' },
      select: { recordedAt: true },
    })
  )?.recordedAt ?? null;

export const findCharge = (db: Db, tenantId: string, id: string) =>
  db.charge.findFirst({
    where: { tenantId, id },
    include: { usageRecord: true, events: { orderBy: [{ at: 'asc' }, { id: 'asc' }] } },
  });

export async function listCharges(
  db: Db,
  filter: { tenantId: string; state?: ChargeState; operation?: string; from?: Date; to?: Date },
  page: { limit: number; offset: number },
) {
  const where = {
    tenantId: filter.tenantId,
    ...(filter.state ? { state: filter.state } : {}),
    ...(filter.operation ? { operation: filter.operation } : {}),
    ...(filter.from || filter.to
      ? {
          occurredAt: {
            ...(filter.from ? { gte: filter.from } : {}),
            ...(filter.to ? { lt: filter.to } : {}),
          },
        }
      : {}),
  };
  // The count and the page from one snapshot: run side by side on two connections, a charge landing
  // between them was counted in `total` but missing from the page.
  const read = async (tx: Db) => ({
    total: await tx.charge.count({ where }),
    rows: await tx.charge.findMany({
      where,
      orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }],
      skip: page.offset,
      take: page.limit,
      include: { usageRecord: true, events: { orderBy: [{ at: 'asc' }, { id: 'asc' }] } },
    }),
  });
  return '$transaction' in db ? db.$transaction(read, { isolationLevel: 'RepeatableRead' }) : read(db);
}

/** Move a charge from one state to another and log it: when it moved, or null when it was not in `from`. */
export async function transitionCharge(
  db: Db,
  change: { id: string; from: ChargeState; to: ChargeState; actorUserId: string; reason: string },
): Promise<Date | null> {
  const moved = await db.charge.updateMany({
    where: { id: change.id, state: change.from },
    data: { state: change.to },
  });
  if (moved.count === 0) return null;
  const event = await db.chargeEvent.create({
    data: {
      id: timeOrderedId(),
      chargeId: change.id,
      fromState: change.from,
      toState: change.to,
      actorUserId: change.actorUserId,
      reason: change.reason,
    },
    select: { at: true },
  });
  return event.at;
}
