import { randomUUID } from 'node:crypto';
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
 * Record usage and its charges in the caller's transaction. A usage id already in the ledger (a
 * redelivery, a relay re-send) is skipped with its charge, so each usage record is charged once.
 * Returns how many were new.
 */
export async function recordUsage(db: Db, usages: NewUsage[]): Promise<number> {
  const inserted = await db.usageRecord.createManyAndReturn({
    data: usages.map(({ amountMicroUsd: _a, chargeState: _s, ...u }) => u),
    skipDuplicates: true,
    select: { id: true },
  });
  const fresh = new Set(inserted.map((r) => r.id));
  // delete, not has: a batch can hold the same usage id twice (a redelivery next to its original);
  // it is charged once, not twice (which the unique usage_record_id would refuse, failing the batch).
  const charges = usages
    .filter((u) => fresh.delete(u.id))
    .map((u) => ({
      id: randomUUID(),
      usageRecordId: u.id,
      tenantId: u.tenantId,
      operation: u.operation,
      units: u.units,
      amountMicroUsd: u.amountMicroUsd,
      pricingVersion: u.pricingVersion,
      state: u.chargeState,
      occurredAt: u.occurredAt,
    }));
  if (charges.length === 0) return 0;
  await db.charge.createMany({ data: charges });
  await db.chargeEvent.createMany({
    data: charges.map((c) => ({ id: randomUUID(), chargeId: c.id, fromState: null, toState: c.state })),
  });
  return charges.length;
}

export const loadPriceItems = (db: Db) => db.priceItem.findMany();

export const usageInWindow = (db: Db, tenantId: string, from: Date, to: Date) =>
  db.charge.groupBy({
    by: ['operation', 'state'],
    where: { tenantId, occurredAt: { gte: from, lt: to } },
    _count: { _all: true },
    _sum: { units: true, amountMicroUsd: true },
  });

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
  const [total, rows] = await Promise.all([
    db.charge.count({ where }),
    db.charge.findMany({
      where,
      orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }],
      skip: page.offset,
      take: page.limit,
      include: { usageRecord: true, events: { orderBy: [{ at: 'asc' }, { id: 'asc' }] } },
    }),
  ]);
  return { total, rows };
}

/** Move a charge from one state to another and log it; false when it was not in `from`. */
export async function transitionCharge(
  db: Db,
  change: { id: string; from: ChargeState; to: ChargeState; actorUserId: string; reason: string },
): Promise<boolean> {
  const moved = await db.charge.updateMany({
    where: { id: change.id, state: change.from },
    data: { state: change.to },
  });
  if (moved.count === 0) return false;
  await db.chargeEvent.create({
    data: {
      id: randomUUID(),
      chargeId: change.id,
      fromState: change.from,
      toState: change.to,
      actorUserId: change.actorUserId,
      reason: change.reason,
    },
  });
  return true;
}
