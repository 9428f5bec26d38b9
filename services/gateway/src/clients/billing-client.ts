import type { NatsConnection } from '@tm/bus';
import {
  ChargeList,
  ChargeListMessage,
  ChargeView,
  CloseInvoicePeriodMessage,
  InvoiceList,
  InvoiceView,
  ListInvoicesMessage,
  Subjects,
  UsageResponse,
  UsageSummaryMessage,
  VoidChargeMessage,
} from '@tm/contracts';
import { createServiceClient, endpoint, type ServiceClientOptions } from './service-client.js';

const s = Subjects.billing;

/** The billing service's endpoints (the usage ledger), as the gateway calls them. */
const BILLING_SERVICE = {
  service: 'billing',
  ping: s.ping,
  endpoints: {
    usage: endpoint(s.usageSummary, UsageSummaryMessage, UsageResponse),
    listCharges: endpoint(s.listCharges, ChargeListMessage, ChargeList),
    voidCharge: endpoint(s.voidCharge, VoidChargeMessage, ChargeView),
    closeInvoicePeriod: endpoint(s.closeInvoicePeriod, CloseInvoicePeriodMessage, InvoiceView),
    listInvoices: endpoint(s.listInvoices, ListInvoicesMessage, InvoiceList),
  },
};

/** Typed, breaker-wrapped calls to the billing service over NATS request/reply. */
export const createBillingClient = (nc: NatsConnection, options: ServiceClientOptions) =>
  createServiceClient(nc, BILLING_SERVICE, options);
export type BillingClient = ReturnType<typeof createBillingClient>;
