import type { InvoiceView } from '@tm/contracts';
import { listInvoices } from '../data-access/invoice-repository.js';
import { getPrisma } from '../data-access/prisma-client.js';
import { invoiceView } from './invoice-view.js';

/** A tenant's invoices, newest month first. */
export async function listTenantInvoices(
  tenantId: string,
  db = getPrisma(),
): Promise<{ data: InvoiceView[] }> {
  const rows = await listInvoices(db, tenantId);
  return { data: rows.map(invoiceView) };
}
