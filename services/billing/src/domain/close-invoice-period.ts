import { randomUUID } from 'node:crypto';
import { AppError, type CloseInvoicePeriodMessage, ErrorCode, type InvoiceView } from '@tm/contracts';
import { getPrisma } from '../data-access/prisma-client.js';
import { usd } from './charge-view.js';

/**
 * How long after a month ends before it can be closed: usage reaches the ledger within seconds
 * (relay window, consumer batch), so an hour leaves late records no chance to miss their invoice.
 */
const GRACE_MS = 60 * 60_000;

export function periodBounds(period: string): { start: Date; end: Date } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return { start: new Date(Date.UTC(year, month - 1, 1)), end: new Date(Date.UTC(year, month, 1)) };
}

export const invoiceView = (i: {
  id: string;
  periodStart: Date;
  periodEnd: Date;
  chargeCount: number;
  totalMicroUsd: bigint;
  createdBy: string;
  createdAt: Date;
}): InvoiceView => ({
  id: i.id,
  period: i.periodStart.toISOString().slice(0, 7),
  period_start: i.periodStart.toISOString(),
  period_end: i.periodEnd.toISOString(),
  charges: i.chargeCount,
  total_usd: usd(i.totalMicroUsd),
  created_by: i.createdBy,
  created_at: i.createdAt.toISOString(),
});

/**
 * Roll up a closed month: its `recorded` charges become `invoiced` under one invoice with their
 * total (void and unbilled charges stay as they are). Idempotent: closing a month again answers the
 * invoice it already has. A month that has not ended (plus an hour's grace) cannot be closed (409).
 */
export async function closeInvoicePeriod(
  message: CloseInvoicePeriodMessage,
  options: { now?: Date } = {},
  db = getPrisma(),
): Promise<InvoiceView> {
  const { start, end } = periodBounds(message.period);
  if (end.getTime() + GRACE_MS > (options.now ?? new Date()).getTime()) {
    throw new AppError(
      ErrorCode.AlreadyExists,
      'This period has not closed yet; it can be invoiced an hour after it ends',
    );
  }
  const where = { tenantId_periodStart: { tenantId: message.tenant_id, periodStart: start } };
  try {
    return await db.$transaction(async (tx) => {
      const existing = await tx.invoice.findUnique({ where });
      if (existing) return invoiceView(existing);
      // The invoice row first: a concurrent close of the same month waits on its unique key.
      const id = randomUUID();
      await tx.invoice.create({
        data: {
          id,
          tenantId: message.tenant_id,
          periodStart: start,
          periodEnd: end,
          chargeCount: 0,
          totalMicroUsd: 0n,
          createdBy: message.actor_user_id,
        },
      });
      // Only charges still recorded when they are moved: one voided meanwhile stays void.
      const charges = await tx.charge.updateManyAndReturn({
        where: { tenantId: message.tenant_id, state: 'recorded', occurredAt: { gte: start, lt: end } },
        data: { state: 'invoiced', invoiceId: id },
        select: { id: true, amountMicroUsd: true },
      });
      await tx.chargeEvent.createMany({
        data: charges.map((c) => ({
          id: randomUUID(),
          chargeId: c.id,
          fromState: 'recorded' as const,
          toState: 'invoiced' as const,
          actorUserId: message.actor_user_id,
          reason: `invoice ${message.period}`,
        })),
      });
      const invoice = await tx.invoice.update({
        where: { id },
        data: {
          chargeCount: charges.length,
          totalMicroUsd: charges.reduce((sum, c) => sum + c.amountMicroUsd, 0n),
        },
      });
      return invoiceView(invoice);
    });
  } catch (err) {
    // Another close of the same month committed first: answer its invoice.
    if ((err as { code?: string }).code !== 'P2002') throw err;
    const existing = await db.invoice.findUnique({ where });
    if (!existing) throw err;
    return invoiceView(existing);
  }
}

export async function listInvoices(tenantId: string, db = getPrisma()) {
  const rows = await db.invoice.findMany({ where: { tenantId }, orderBy: { periodStart: 'desc' } });
  return { data: rows.map(invoiceView) };
}
