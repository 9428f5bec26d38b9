import { AppError, type CloseInvoicePeriodMessage, ErrorCode, type InvoiceView } from '@tm/contracts';
import { rollUpInvoice } from '../data-access/invoice-repository.js';
import { getPrisma } from '../data-access/prisma-client.js';
import { invoiceView } from './invoice-view.js';

/**
 * How long after a month ends before it can be closed: usage reaches the ledger within seconds
 * (relay window, consumer batch), so an hour leaves late records no chance to miss their invoice.
 */
const GRACE_MS = 60 * 60_000;

export function periodBounds(period: string): { start: Date; end: Date } {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return { start: new Date(Date.UTC(year, month - 1, 1)), end: new Date(Date.UTC(year, month, 1)) };
}

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
  const invoice = await rollUpInvoice(db, {
    tenantId: message.tenant_id,
    start,
    end,
    actorUserId: message.actor_user_id,
    reason: `invoice ${message.period}`,
  });
  return invoiceView(invoice);
}
