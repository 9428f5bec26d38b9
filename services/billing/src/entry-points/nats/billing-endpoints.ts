import { randomUUID } from 'node:crypto';
import { type NatsConnection, type Subscription, serveEndpoint } from '@tm/bus';
import {
  ChargeListMessage,
  CloseInvoicePeriodMessage,
  ListInvoicesMessage,
  PriceListMessage,
  QueueGroups,
  type ServiceSelfReport,
  Subjects,
  UsageSummaryMessage,
  VoidChargeMessage,
} from '@tm/contracts';
import { type Logger, storageOutage } from '@tm/kit';
import { z } from 'zod';
import { closeInvoicePeriod } from '../../domain/close-invoice-period.js';
import { getPriceList } from '../../domain/get-price-list.js';
import { listTenantCharges } from '../../domain/list-charges.js';
import { listTenantInvoices } from '../../domain/list-invoices.js';
import { summarizeUsage } from '../../domain/summarize-usage.js';
import { voidCharge } from '../../domain/void-charge.js';

const instance = randomUUID();

const mapStorageError = storageOutage('Billing storage');

export function serveBillingEndpoints(
  nc: NatsConnection,
  options: { pricingVersion: string; version: string; health: () => Promise<ServiceSelfReport> },
  logger: Logger,
): Subscription[] {
  const queue = QueueGroups.billing;
  return [
    serveEndpoint(
      nc,
      {
        subject: Subjects.billing.usageSummary,
        queue,
        input: UsageSummaryMessage,
        handler: (m) => summarizeUsage(m, { pricingVersion: options.pricingVersion }),
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.billing.listCharges,
        queue,
        input: ChargeListMessage,
        handler: (m) => listTenantCharges(m),
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.billing.voidCharge,
        queue,
        input: VoidChargeMessage,
        handler: (m) => voidCharge(m),
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.billing.closeInvoicePeriod,
        queue,
        input: CloseInvoicePeriodMessage,
        handler: (m) => closeInvoicePeriod(m),
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.billing.listInvoices,
        queue,
        input: ListInvoicesMessage,
        handler: (m) => listTenantInvoices(m.tenant_id),
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.billing.getPrices,
        queue,
        input: PriceListMessage,
        handler: () => getPriceList(options.pricingVersion),
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.billing.ping,
        queue,
        input: z.unknown(),
        handler: async () => ({
          service: 'billing',
          instance,
          version: options.version,
          ...(await options.health()),
        }),
      },
      logger,
    ),
  ];
}
