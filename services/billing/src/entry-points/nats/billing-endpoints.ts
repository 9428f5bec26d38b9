import type { Service } from '@tm/bus';
import {
  ChargeListMessage,
  CloseInvoicePeriodMessage,
  ListInvoicesMessage,
  PriceListMessage,
  Subjects,
  UsageSummaryMessage,
  VoidChargeMessage,
} from '@tm/contracts';
import { closeInvoicePeriod } from '../../domain/close-invoice-period.js';
import { getPriceList } from '../../domain/get-price-list.js';
import { listTenantCharges } from '../../domain/list-charges.js';
import { listTenantInvoices } from '../../domain/list-invoices.js';
import { summarizeUsage } from '../../domain/summarize-usage.js';
import { voidCharge } from '../../domain/void-charge.js';

/** The billing service's request/reply endpoints (its ping and discovery are the service's own). */
export function serveBillingEndpoints(
  service: Service,
  options: { pricingVersion: string; onCommitted?: () => void },
): void {
  service.endpoint({
    subject: Subjects.billing.usageSummary,
    input: UsageSummaryMessage,
    handler: (m) => summarizeUsage(m, { pricingVersion: options.pricingVersion }),
  });
  service.endpoint({
    subject: Subjects.billing.listCharges,
    input: ChargeListMessage,
    handler: (m) => listTenantCharges(m),
  });
  service.endpoint({
    subject: Subjects.billing.voidCharge,
    input: VoidChargeMessage,
    handler: (m) => voidCharge(m, { onCommitted: options.onCommitted }),
  });
  service.endpoint({
    subject: Subjects.billing.closeInvoicePeriod,
    input: CloseInvoicePeriodMessage,
    handler: (m) => closeInvoicePeriod(m),
  });
  service.endpoint({
    subject: Subjects.billing.listInvoices,
    input: ListInvoicesMessage,
    handler: (m) => listTenantInvoices(m.tenant_id),
  });
  service.endpoint({
    subject: Subjects.billing.getPrices,
    input: PriceListMessage,
    handler: () => getPriceList(options.pricingVersion),
  });
}
