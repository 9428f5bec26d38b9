import { type NatsConnection, requestReply } from '@tm/bus';
import {
  ChargeList,
  ChargeListMessage,
  ChargeView,
  CloseInvoicePeriodMessage,
  InvoiceList,
  InvoiceView,
  ListInvoicesMessage,
  PingReply,
  Subjects,
  UsageResponse,
  UsageSummaryMessage,
  VoidChargeMessage,
} from '@tm/contracts';
import type { Logger } from '@tm/kit';
import { z } from 'zod';
import { createBreaker } from './breaker.js';

/** Typed, breaker-wrapped calls to the billing service (the usage ledger) over NATS request/reply. */
export function createBillingClient(
  nc: NatsConnection,
  options: { timeoutMs: number; breakerResetMs: number; logger: Logger },
) {
  const { breaker, call } = createBreaker({
    name: 'billing',
    resetMs: options.breakerResetMs,
    logger: options.logger,
  });
  const opts = { timeoutMs: options.timeoutMs, service: 'billing' };
  return {
    breaker,
    usage: (msg: z.input<typeof UsageSummaryMessage>) =>
      call(() =>
        requestReply(
          nc,
          Subjects.billing.usageSummary,
          { input: UsageSummaryMessage, output: UsageResponse },
          msg,
          opts,
        ),
      ),
    listCharges: (msg: z.input<typeof ChargeListMessage>) =>
      call(() =>
        requestReply(
          nc,
          Subjects.billing.listCharges,
          { input: ChargeListMessage, output: ChargeList },
          msg,
          opts,
        ),
      ),
    voidCharge: (msg: z.input<typeof VoidChargeMessage>) =>
      call(() =>
        requestReply(
          nc,
          Subjects.billing.voidCharge,
          { input: VoidChargeMessage, output: ChargeView },
          msg,
          opts,
        ),
      ),
    closeInvoicePeriod: (msg: z.input<typeof CloseInvoicePeriodMessage>) =>
      call(() =>
        requestReply(
          nc,
          Subjects.billing.closeInvoicePeriod,
          { input: CloseInvoicePeriodMessage, output: InvoiceView },
          msg,
          opts,
        ),
      ),
    listInvoices: (msg: z.input<typeof ListInvoicesMessage>) =>
      call(() =>
        requestReply(
          nc,
          Subjects.billing.listInvoices,
          { input: ListInvoicesMessage, output: InvoiceList },
          msg,
          opts,
        ),
      ),
    /** Health probe: bypasses the breaker so an open breaker cannot hide a recovered service. */
    ping: (timeoutMs: number) =>
      requestReply(
        nc,
        Subjects.billing.ping,
        { input: z.object({}), output: PingReply },
        {},
        { timeoutMs, service: 'billing' },
      ),
  };
}
export type BillingClient = ReturnType<typeof createBillingClient>;
