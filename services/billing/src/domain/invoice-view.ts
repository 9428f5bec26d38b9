import type { InvoiceView } from '@tm/contracts';
import { usd } from './charge-view.js';

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
