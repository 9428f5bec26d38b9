import { z } from 'zod';
import { USAGE_WINDOW_MINUTES, WindowMinutes } from '../billing/billing.js';
import { optionalQueryInteger, queryInteger } from '../http/query-integer.js';
import { WriteBatchItemCounts } from '../memory/memory.js';
import { CONTRACT_VERSION } from '../runtime.js';
import { RecordBillingState, RequestOutcome } from './request-record.js';
import {
  BucketMinutes,
  BucketMinutesField,
  refineSeriesPoints,
  SeriesBucketStart,
} from './series-buckets.js';

/**
 * Telemetry: the redacted request history the gateway publishes, and what is derived from it
 * (events, metrics, anomalies, monitoring). The telemetry service answers over request/reply.
 */

export const EVENTS_PAGE = { default: 100, max: 500 } as const;

/** An operation as request records name it (`memory.recall`, `template.memory.create`). */
const OPERATION_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$/;
/** The longest operation name a record holds (request-record.ts). */
export const OPERATION_MAX = 100;

/** The events route's filters, as the telemetry service applies them (null: not filtered). */
export const EventsFilter = z.object({
  operation: z.string().max(OPERATION_MAX).nullable().default(null),
  outcome: RequestOutcome.nullable().default(null),
  status: z.number().int().min(100).max(599).nullable().default(null),
  /** Inclusive. */
  from: z.iso.datetime({ offset: true }).nullable().default(null),
  /** Exclusive. */
  to: z.iso.datetime({ offset: true }).nullable().default(null),
});
export type EventsFilter = z.infer<typeof EventsFilter>;

/** The instants a time filter may name: PostgreSQL refuses year 0 and offsets past ±15:59 (a 500 otherwise). */
const EVENTS_TIME_RANGE = {
  min: Date.parse('1970-01-01T00:00:00Z'),
  max: Date.parse('9999-12-31T00:00:00Z'),
};

/** A time filter: an ISO 8601 date-time with an offset, within EVENTS_TIME_RANGE. */
const eventsTime = (name: string) =>
  z.iso.datetime({ offset: true, message: `${name} must be an ISO 8601 date-time` }).refine((value) => {
    const at = Date.parse(value);
    return at >= EVENTS_TIME_RANGE.min && at <= EVENTS_TIME_RANGE.max;
  }, `${name} must be between 1970-01-01 and 9999-12-31`);

/** A time filter as the telemetry service receives it: the same instant in UTC, to the millisecond. */
export const utcInstant = (value: string) => new Date(value).toISOString();

/**
 * `?limit=&offset=&cursor=` of the events route, and its filters. Each filter narrows the listing on
 * the server, so paging (by offset or by cursor) walks the matching records only.
 */
export const EventsQuery = z
  .strictObject({
    limit: queryInteger('limit', { min: 1, ...EVENTS_PAGE }),
    offset: queryInteger('offset', { min: 0, max: 10_000_000, default: 0 }),
    cursor: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,200}$/, 'cursor must be a next_cursor this route returned')
      .optional()
      .meta({
        description: "A page's `next_cursor`: the page after it, by keyset (cost independent of depth)",
      }),
    operation: z
      .string()
      .max(OPERATION_MAX, `operation must be at most ${OPERATION_MAX} characters`)
      .regex(OPERATION_NAME, 'operation must be an operation name such as memory.recall')
      .optional()
      .meta({ description: 'Only records of this operation (`memory.write`, `memory.recall`…)' }),
    outcome: RequestOutcome.optional().meta({ description: 'Only records with this outcome' }),
    status: optionalQueryInteger('status', { min: 100, max: 599 }).meta({
      description: 'Only records answered with this HTTP status',
    }),
    from: eventsTime('from')
      .optional()
      .meta({ description: 'Only records at or after this time (ISO 8601)' }),
    to: eventsTime('to')
      .optional()
      .meta({ description: 'Only records before this time (ISO 8601, exclusive)' }),
  })
  .superRefine((q, ctx) => {
    if (q.from !== undefined && q.to !== undefined && Date.parse(q.to) <= Date.parse(q.from))
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must be later than from' });
  });

/** Where a keyset page of events starts: just older than this record. */
export interface EventsCursor {
  occurred_at: string;
  record_id: string;
}

/** next_cursor: the last record of a page, opaque to clients. */
export const encodeEventsCursor = (c: EventsCursor) =>
  Buffer.from(`${c.occurred_at}|${c.record_id}`).toString('base64url');

const CURSOR_TEXT =
  /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z)\|([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** The cursor a client sent back, or null when it is not one this route made. */
export function decodeEventsCursor(cursor: string): EventsCursor | null {
  const match = CURSOR_TEXT.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || Number.isNaN(Date.parse(match[1] as string))) return null;
  return { occurred_at: match[1] as string, record_id: match[2] as string };
}

/** `?window_minutes=` of metrics and anomalies (default 60, as for usage). */
export const WindowQuery = z.strictObject({
  window_minutes: WindowMinutes,
});

/** `?window_minutes=&bucket_minutes=` of metrics: the window, and the bucket size of its series. */
export const MetricsQuery = WindowQuery.extend({ bucket_minutes: BucketMinutes }).superRefine(
  refineSeriesPoints,
);

/** One request as a tenant sees it in its history: what happened, never what was sent. */
export const RequestEvent = z
  .object({
    request_id: z.string(),
    occurred_at: z.iso.datetime(),
    key_id: z.string().nullable().meta({ description: 'The API key used (its id), if any' }),
    user_id: z.string().nullable().meta({ description: "The key's user, or the session's" }),
    method: z.string(),
    route: z.string(),
    operation: z.string().nullable(),
    status: z.number().int(),
    outcome: RequestOutcome,
    state: z.string().nullable(),
    error_code: z.string().nullable(),
    latency_ms: z.number(),
    units: z.number().int(),
    billing_state: RecordBillingState,
    deployment_version: z.string(),
    item_counts: WriteBatchItemCounts.optional().meta({
      description: 'A batch write’s items by how each was answered; only on batch writes',
    }),
  })
  .meta({ id: 'RequestEvent' });
export type RequestEvent = z.infer<typeof RequestEvent>;

export const EventsPage = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    data: z.array(RequestEvent).meta({ description: 'Newest first' }),
    paging: z.object({
      limit: z.number().int(),
      offset: z.number().int(),
      returned: z.number().int(),
      total: z
        .number()
        .int()
        .meta({ description: 'Records in the history now, whatever the filters (not the matching ones)' }),
      has_more: z.boolean(),
      next_offset: z.number().int().nullable().meta({ description: 'Null when paging by cursor' }),
      next_cursor: z
        .string()
        .nullable()
        .meta({ description: 'Send as `cursor` for the next (older) page; null when this page is the last' }),
    }),
  })
  .meta({ id: 'EventsPage' });
export type EventsPage = z.infer<typeof EventsPage>;

const Window = z.object({ minutes: z.number().int(), from: z.iso.datetime(), to: z.iso.datetime() });

export const OperationLatency = z.object({
  operation: z.string().meta({ description: 'memory.write etc., or "METHOD /route" for other routes' }),
  requests: z.number().int(),
  p50_ms: z.number(),
  p95_ms: z.number(),
  p99_ms: z.number(),
  max_ms: z.number(),
});

/** One bucket of the metrics series: every request answered in it, whatever its operation. */
export const MetricsSeriesPoint = z.object({
  from: SeriesBucketStart,
  requests: z.number().int(),
  errors: z.number().int().meta({ description: 'As in `quality`: failed requests' }),
  blocked: z.number().int().meta({ description: 'As in `quality`: 401, 403 and 429' }),
  p50_ms: z
    .number()
    .nullable()
    .meta({ description: 'Null when the bucket holds no request; computed as `percentiles` says' }),
  p95_ms: z.number().nullable(),
});

/** Body of the metrics route (the telemetry service's part; the gateway adds the deployment block). */
export const MetricsSummary = z.object({
  state: z.enum(['measured', 'no_data']),
  window: Window,
  latency: z.array(OperationLatency).meta({
    description:
      'Per operation. Percentiles are continuous (linear interpolation) when `percentiles` is `exact`, else from a latency histogram',
  }),
  percentiles: z.enum(['exact', 'histogram']).meta({
    description:
      '`exact` while the window holds at most 10,000 requests (by default): computed from every request. Above, `histogram`: within 1 % of a latency measured at the nearest rank, read from per-minute rollups',
  }),
  quality: z.object({
    requests: z.number().int(),
    accepted: z.number().int(),
    errors: z.number().int().meta({ description: 'Failed requests: 4xx other than blocked, and 5xx' }),
    server_errors: z.number().int(),
    timeouts: z.number().int().meta({ description: 'upstream_timeout (504)' }),
    blocked: z.number().int().meta({ description: '401, 403 and 429' }),
    error_rate: z.number(),
    timeout_rate: z.number(),
    blocked_rate: z.number(),
  }),
  operation_mix: z.array(z.object({ operation: z.string(), requests: z.number().int(), share: z.number() })),
  deployment_versions: z.array(z.object({ deployment_version: z.string(), requests: z.number().int() })),
  bucket_minutes: z.number().int().meta({ description: 'Size of each bucket of `series`' }),
  series: z.array(MetricsSeriesPoint).meta({
    description:
      'The window in UTC-aligned buckets, oldest first, empty ones included (zeros, null percentiles); their counts add up to `quality`',
  }),
});
export type MetricsSummary = z.infer<typeof MetricsSummary>;

export const MetricsResponse = MetricsSummary.extend({
  contract_version: z.literal(CONTRACT_VERSION),
  deployment: z.object({
    deployment_version: z.string(),
    environment: z.string(),
    execution_mode: z.literal('mock'),
    provider: z.string(),
    model_version: z.string(),
  }),
  request_id: z.string(),
}).meta({ id: 'MetricsResponse' });

export const ANOMALY_NAMES = [
  'error_rate',
  'p95_latency',
  'blocked_rate',
  'usage_dead_letters',
  'dropped_request_records',
  'request_record_dead_letters',
] as const;
export const AnomalyName = z.enum(ANOMALY_NAMES);
export type AnomalyName = z.infer<typeof AnomalyName>;

export const Threshold = z.object({
  warning: z.number(),
  critical: z.number(),
  unit: z.enum(['ratio', 'ms', 'count']),
  scope: z.enum(['tenant', 'deployment']),
});
export type Threshold = z.infer<typeof Threshold>;

export const Anomaly = z.object({
  name: AnomalyName,
  severity: z.enum(['warning', 'critical']),
  observed: z.number(),
  threshold: z.number().meta({ description: 'The threshold crossed: warning or critical' }),
  unit: Threshold.shape.unit,
  scope: Threshold.shape.scope,
  window_minutes: z.number().int(),
  message: z.string(),
});
export type Anomaly = z.infer<typeof Anomaly>;

/**
 * JetStream, `telemetry.v1.events.anomaly-raised`: the telemetry service's anomaly watch found
 * a tenant-scope anomaly that was not open (or an open warning that became critical). Written to
 * telemetry's outbox in the statement that opened (or escalated) it, relayed in OutboxBatch messages.
 * `anomaly_id` names the episode: an escalation carries the same id.
 */
export const AnomalyRaisedEvent = z.object({
  version: z.literal('v1'),
  /** The outbox row's id: one per raise or escalation, the same on every re-send. */
  event_id: z.string(),
  tenant_id: z.string(),
  anomaly_id: z.string(),
  name: AnomalyName,
  severity: Anomaly.shape.severity,
  observed: z.number(),
  threshold: z.number(),
  unit: Threshold.shape.unit,
  window_minutes: z.number().int(),
  occurred_at: z.string(),
});
export type AnomalyRaisedEvent = z.infer<typeof AnomalyRaisedEvent>;

export const AnomalyReport = z.object({
  state: z.enum(['measured', 'no_data']),
  window: Window,
  anomaly_count: z.number().int(),
  anomalies: z.array(Anomaly),
  // An object with one property per anomaly, not a record over the enum: the document then names the
  // properties it requires (a record's `required` listed keys its schema did not define; Redocly lint).
  thresholds: z.object(
    Object.fromEntries(ANOMALY_NAMES.map((name) => [name, Threshold])) as Record<
      AnomalyName,
      typeof Threshold
    >,
  ),
  min_requests: z
    .number()
    .int()
    .meta({ description: 'Rates and p95 are judged only over this many requests' }),
});
export type AnomalyReport = z.infer<typeof AnomalyReport>;

export const AnomaliesResponse = AnomalyReport.extend({
  contract_version: z.literal(CONTRACT_VERSION),
  request_id: z.string(),
}).meta({ id: 'AnomaliesResponse' });

// ---- export --------------------------------------------------------------------------------------

/** `?namespace=` (repeat it for several); absent means every namespace of the tenant. */
export const EXPORT_NAMESPACES_MAX = 100;

// Strict: the export writes exactly these fields, and a restore refuses a file with any other (named).
export const ExportRecord = z
  .strictObject({
    memory_id: z.string(),
    event_id: z.string(),
    namespace: z.string(),
    occurred_at: z.iso.datetime(),
    retained_at: z.iso.datetime(),
    text: z.string(),
    source: z.record(z.string(), z.unknown()).nullable(),
    status: z.enum(['current', 'superseded']),
    superseded_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ExportRecord' });
export type ExportRecord = z.infer<typeof ExportRecord>;

export const ExportRelation = z
  .strictObject({
    namespace: z.string(),
    superseding_event_id: z.string(),
    superseding_memory_id: z.string(),
    target_event_id: z.string(),
    target_memory_id: z.string().nullable(),
    status: z.enum(['superseded', 'unresolved']),
    recorded_at: z.iso.datetime(),
  })
  .meta({ id: 'ExportRelation' });
export type ExportRelation = z.infer<typeof ExportRelation>;

/** The export's shape, for documentation: the gateway writes it as a stream, part by part. */
export const ExportDocument = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    request_id: z.string(),
    exported_at: z.iso.datetime(),
    selection: z.object({ namespaces: z.array(z.string()).nullable() }),
    records: z.array(ExportRecord),
    supersession_relations: z.array(ExportRelation),
    history: z.array(RequestEvent),
    counts: z.object({
      records: z.number().int(),
      supersession_relations: z.number().int(),
      history: z.number().int(),
    }),
    complete: z.literal(true).meta({
      description:
        'Always true. An export that cannot be read whole is a retryable 503/504 before any byte; one that fails after its 200 (more than 1,000 rows in a part) is broken off without the final chunk, never ended as if whole',
    }),
  })
  .meta({ id: 'ExportDocument' });

export const EXPORT_PAGE_SIZE = 1_000;

// ---- bus messages ---------------------------------------------------------------------------------

export const EventsListMessage = z.object({
  tenant_id: z.string().min(1),
  limit: z.number().int().min(1).max(EVENTS_PAGE.max),
  offset: z.number().int().min(0),
  /** Keyset paging: records strictly older than this one (offset is then 0). */
  before: z.object({ occurred_at: z.iso.datetime(), record_id: z.uuid() }).nullable().default(null),
  /** Left out (an older gateway): nothing filtered. */
  filter: EventsFilter.default(EventsFilter.parse({})),
});
export type EventsListMessage = z.infer<typeof EventsListMessage>;

export const EventsList = EventsPage.omit({ contract_version: true });
export type EventsList = z.infer<typeof EventsList>;

export const TelemetryWindowMessage = z.object({
  tenant_id: z.string().min(1),
  window_minutes: z.number().int().min(USAGE_WINDOW_MINUTES.min).max(USAGE_WINDOW_MINUTES.max),
});
export type TelemetryWindowMessage = z.infer<typeof TelemetryWindowMessage>;

/** The metrics request: a window and, optionally, the bucket size of its series. */
export const MetricsMessage = TelemetryWindowMessage.extend({
  /** Left out (an older gateway): the ladder's size for the window. */
  bucket_minutes: BucketMinutesField,
}).superRefine(refineSeriesPoints);
export type MetricsMessage = z.infer<typeof MetricsMessage>;

const HistoryCursor = z.object({ occurred_at: z.iso.datetime(), record_id: z.uuid() });

export const HistoryPageMessage = z.object({
  tenant_id: z.string().min(1),
  /** Namespace digests to keep; null keeps the whole history. */
  namespace_refs: z.array(z.string()).nullable(),
  after: HistoryCursor.nullable(),
  limit: z.number().int().min(1).max(EXPORT_PAGE_SIZE),
});
export type HistoryPageMessage = z.infer<typeof HistoryPageMessage>;

export const HistoryPage = z.object({ data: z.array(RequestEvent), next: HistoryCursor.nullable() });
export type HistoryPage = z.infer<typeof HistoryPage>;

const ExportCursor = z.object({ namespace: z.string(), key: z.string() });

export const MemoryExportPageMessage = z.object({
  tenant_id: z.string().min(1),
  request_id: z.string(),
  namespaces: z.array(z.string()).nullable(),
  part: z.enum(['records', 'supersession_relations']),
  after: ExportCursor.nullable(),
  limit: z.number().int().min(1).max(EXPORT_PAGE_SIZE),
});
export type MemoryExportPageMessage = z.infer<typeof MemoryExportPageMessage>;

export const MemoryExportPage = z.object({
  records: z.array(ExportRecord),
  supersession_relations: z.array(ExportRelation),
  next: ExportCursor.nullable(),
});
export type MemoryExportPage = z.infer<typeof MemoryExportPage>;
