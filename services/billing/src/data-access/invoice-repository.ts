import { randomUUID } from 'node:crypto';
import type { PrismaClient } from './generated/client.js';
import type { Db } from './prisma-client.js';

export const findInvoice = (db: Db, tenantId: string, periodStart: Date) =>
  db.invoice.findUnique({ where: { tenantId_periodStart: { tenantId, periodStart } } });

export const listInvoices = (db: Db, tenantId: string) =>
  db.invoice.findMany({ where: { tenantId }, orderBy: { periodStart: 'desc' } });

/**
 * One tenant's month rolled up in one transaction: its `recorded` charges become `invoiced` under one
 * new invoice with their count and total, each with an event. The month's invoice if it has one
 * already, also when a concurrent close of the same month committed first.
 */
export async function rollUpInvoice(
  db: PrismaClient,
  period: { tenantId: string; start: Date; end: Date; actorUserId: string; reason: string },
) {
  try {
    return await db.$transaction(async (tx) => {
      const existing = await findInvoice(tx, period.tenantId, period.start);
      if (existing) return existing;
      // The invoice row first: a concurrent close of the same month waits on its unique key.
      const id = randomUUID();
      await tx.invoice.create({
        data: {
          id,
          tenantId: period.tenantId,
          periodStart: period.start,
          periodEnd: period.end,
          chargeCount: 0,
          totalMicroUsd: 0n,
          createdBy: period.actorUserId,
        },
      });
      // Only charges still recorded when they are moved: one voided meanwhile stays void.
      const charges = await tx.charge.updateManyAndReturn({
        where: {
          tenantId: period.tenantId,
          state: 'recorded',
          occurredAt: { gte: period.start, lt: period.end },
        },
        data: { state: 'invoiced', invoiceId: id },
        select: { id: true, amountMicroUsd: true },
      });
      await tx.chargeEvent.createMany({
        data: charges.map((c) => ({
          id: randomUUID(),
          chargeId: c.id,
          fromState: 'recorded' as const,
          toState: 'invoiced' as const,
          actorUserId: period.actorUserId,
          reason: period.reason,
        })),
      });
      return tx.invoice.update({
        where: { id },
        data: {
          chargeCount: charges.length,
          totalMicroUsd: charges.reduce((sum, c) => sum + c.amountMicroUsd, 0n),
        },
      });
    });
  } catch (err) {
    // Another close of the same month committed first: answer its invoice.
    if ((err as { code?: string }).code !== 'P2002') throw err;
    const existing = await findInvoice(db, period.tenantId, period.start);
    if (!existing) throw err;
    return existing;
  }
}
