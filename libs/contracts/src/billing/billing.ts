import { z } from 'zod';
import { queryInteger } from '../http/query-integer.js';
import { BillingState, CONTRACT_VERSION } from '../runtime.js';
import {
  BucketMinutes,
  BucketMinutesField,
  refineSeriesPoints,
  SeriesBucketStart,
} from '../telemetry/series-buckets.js';

/**
 * Billing: the ledger of usage records and charges (sandbox only). The billing service consumes
 * memory's usage records from JetStream and answers the gateway over request/reply.
 */

export const CHARGE_STATES = ['recorded', 'invoiced', 'unbilled', 'void'] as const;
export const ChargeState = z.enum(CHARGE_STATES);
export type ChargeState = z.infer<typeof ChargeState>;

export const BillableOperation = z.enum(['memory.write', 'memory.recall']);

/** Lookback windows for usage, in minutes: one minute to thirty days. */
export const USAGE_WINDOW_MINUTES = { min: 1, max: 43_200, default: 60 } as const;

export const WindowMinutes = queryInteger('window_minutes', USAGE_WINDOW_MINUTES);

/** Query of the usage routes: `?window_minutes=` (default 60) and `?bucket_minutes=` of the series. */
export const UsageQuery = z
  .strictObject({ window_minutes: WindowMinutes, bucket_minutes: BucketMinutes })
  .superRefine(refineSeriesPoints);

// ---- bus messages ---------------------------------------------------------------------------------

export const UsageSummaryMessage = z
  .object({
    tenant_id: z.string().min(1),
    request_id: z.string().min(1),
    window_minutes: z.number().int().min(USAGE_WINDOW_MINUTES.min).max(USAGE_WINDOW_MINUTES.max),
    /** Left out (an older gateway): the ladder's size for the window. */
    bucket_minutes: BucketMinutesField,
  })
  .superRefine(refineSeriesPoints);
export type UsageSummaryMessage = z.infer<typeof UsageSummaryMessage>;

const Money = z.number().meta({ description: 'US dollars (sandbox; nothing is charged)' });

export const OperationUsage = z.object({
  operation: BillableOperation,
  requests: z.number().int(),
  units: z.number().int(),
  recorded_charge_usd: Money,
});

/** One bucket of the usage series: operations that happened in it, and their charges. */
export const UsageSeriesPoint = z.object({
  from: SeriesBucketStart,
  requests: z.number().int().meta({ description: 'Billable operations (usage records)' }),
  units: z.number().int(),
  recorded_charge_usd: Money.meta({ description: 'Charges in state recorded or invoiced' }),
});

/** GET /api/v1/infrastructure/usage */
export const UsageResponse = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    state: BillingState.meta({
      description:
        "The spec's billing vocabulary: no_data: no usage record in the window; void: every charge in it was voided; billable: otherwise",
    }),
    window: z.object({ minutes: z.number().int(), from: z.iso.datetime(), to: z.iso.datetime() }),
    request_volume: z.number().int().meta({ description: 'Billable operations recorded in the window' }),
    operations: z.array(OperationUsage),
    recorded_charge_usd: Money.meta({
      description: 'Charges in state recorded or invoiced; void and unbilled excluded',
    }),
    void_charge_usd: Money,
    bucket_minutes: z.number().int().meta({ description: 'Size of each bucket of `series`' }),
    series: z.array(UsageSeriesPoint).meta({
      description:
        'The window in UTC-aligned buckets, oldest first, empty ones included (zeros); they add up to the totals above',
    }),
    pricing_version: z.string().meta({ description: 'The price list in force now' }),
    sandbox: z.literal(true),
    source_of_truth: z.object({
      ledger: z.literal('billing'),
      description: z.string(),
      last_recorded_at: z.iso
        .datetime()
        .nullable()
        .meta({ description: 'Newest usage record the ledger holds' }),
    }),
    request_id: z.string(),
  })
  .meta({ id: 'UsageResponse' });
export type UsageResponse = z.infer<typeof UsageResponse>;

export const ChargeView = z
  .object({
    id: z.string(),
    state: ChargeState,
    operation: BillableOperation,
    units: z.number().int(),
    amount_usd: Money,
    pricing_version: z.string(),
    request_id: z.string(),
    idempotency_key: z.string().nullable(),
    occurred_at: z.iso.datetime(),
    recorded_at: z.iso.datetime(),
    history: z.array(
      z.object({
        from: ChargeState.nullable(),
        to: ChargeState,
        at: z.iso.datetime(),
        actor_user_id: z.string().nullable(),
        reason: z.string().nullable(),
      }),
    ),
  })
  .meta({ id: 'Charge' });
export type ChargeView = z.infer<typeof ChargeView>;

export const CHARGE_PAGE = { default: 50, max: 200 } as const;

export const ChargeListQuery = z.strictObject({
  state: ChargeState.optional(),
  operation: BillableOperation.optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  limit: queryInteger('limit', { min: 1, ...CHARGE_PAGE }),
  offset: queryInteger('offset', { min: 0, max: 1_000_000, default: 0 }),
});
export type ChargeListQuery = z.infer<typeof ChargeListQuery>;

export const ChargeListMessage = ChargeListQuery.extend({ tenant_id: z.string().min(1) });

export const ChargeList = z
  .object({
    data: z.array(ChargeView),
    paging: z.object({ limit: z.number().int(), offset: z.number().int(), total: z.number().int() }),
  })
  .meta({ id: 'ChargeList' });
export type ChargeList = z.infer<typeof ChargeList>;

export const VoidChargeRequest = z
  .strictObject({ reason: z.string().trim().min(1).max(500) })
  .meta({ id: 'VoidChargeRequest' });

export const VoidChargeMessage = z.object({
  tenant_id: z.string().min(1),
  charge_id: z.string().min(1),
  actor_user_id: z.string().min(1),
  reason: z.string().min(1).max(500),
});
export type VoidChargeMessage = z.infer<typeof VoidChargeMessage>;

/**
 * `billing.v1.prices.get`: the price list in force. Billing owns prices; a service that quotes one
 * (the template service's import estimate) asks here rather than keeping a copy.
 */
export const PriceListMessage = z.object({});
export type PriceListMessage = z.infer<typeof PriceListMessage>;

export const PriceListReply = z.object({
  pricing_version: z.string().min(1),
  /** Unit prices in micro-USD (integers, as the ledger keeps them). Operations are strings: a new one must not break old callers. */
  prices: z.array(
    z.object({ operation: z.string().min(1), unit_price_micro_usd: z.number().int().nonnegative() }),
  ),
});
export type PriceListReply = z.infer<typeof PriceListReply>;

/** Published when a usage record cannot be processed; nothing is dropped silently. */
export const UsageDeadLetter = z.object({
  stream_sequence: z.number().int(),
  /** The record's place in a batch message; absent when the whole message is dead-lettered. */
  record_index: z.number().int().nonnegative().optional(),
  subject: z.string(),
  reason: z.string(),
  payload: z.string().meta({
    description:
      'The message as received, or the one record of a batch (a usage record holds no memory text)',
  }),
  dead_lettered_at: z.iso.datetime(),
});
export type UsageDeadLetter = z.infer<typeof UsageDeadLetter>;

// ---- invoices -------------------------------------------------------------------------------------

/** A calendar month in UTC, `YYYY-MM`. */
export const InvoicePeriod = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'period must be a calendar month, YYYY-MM (UTC)');

export const InvoiceCreateRequest = z
  .strictObject({ period: InvoicePeriod })
  .meta({ id: 'InvoiceCreateRequest' });

export const InvoiceView = z
  .object({
    id: z.string(),
    period: z.string(),
    period_start: z.iso.datetime(),
    period_end: z.iso.datetime(),
    charges: z.number().int().meta({ description: 'Charges rolled up (now invoiced)' }),
    total_usd: Money,
    created_by: z.string(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'Invoice' });
export type InvoiceView = z.infer<typeof InvoiceView>;

export const InvoiceList = z.object({ data: z.array(InvoiceView) }).meta({ id: 'InvoiceList' });

export const CloseInvoicePeriodMessage = z.object({
  tenant_id: z.string().min(1),
  period: InvoicePeriod,
  actor_user_id: z.string().min(1),
});
export type CloseInvoicePeriodMessage = z.infer<typeof CloseInvoicePeriodMessage>;

export const ListInvoicesMessage = z.object({ tenant_id: z.string().min(1) });

/**
 * JetStream, `billing.v1.events.charge-voided`: a charge was voided. Written to billing's
 * outbox in the transaction that voided it (never for a void answered again), relayed in OutboxBatch
 * messages. The reason is the one the owner or admin gave; no usage payload beyond the charge's own
 * fields.
 */
export const ChargeVoidedEvent = z.object({
  version: z.literal('v1'),
  /** The outbox row's id: one per void, the same on every re-send. */
  event_id: z.string(),
  tenant_id: z.string(),
  charge_id: z.string(),
  operation: z.string(),
  units: z.number().int(),
  amount_usd: z.number(),
  /** What the charge was before: `recorded` or `unbilled`. */
  previous_state: ChargeState,
  reason: z.string(),
  actor_user_id: z.string(),
  /** The request the charge was for. */
  request_id: z.string(),
  occurred_at: z.string(),
});
export type ChargeVoidedEvent = z.infer<typeof ChargeVoidedEvent>;
