import {
  BUS_MESSAGE_MAX_DEPTH,
  fitRoute,
  jsonNestsDeeperThan,
  type RequestRecord,
  RequestRecordEnvelope,
  RequestRecord as RequestRecordSchema,
  ROUTE_MAX,
  validateInput,
} from '@tm/contracts';

/** Why a record was dead-lettered, as the metric's label (a bounded set). */
export type DeadLetterKind = 'not_a_batch' | 'invalid_record' | 'refused_by_database';

/** A record (or a whole message) that cannot be stored, kept for an operator with its reason. */
export interface RecordDeadLetter {
  /** `<message id>#<index>` for a record, the message id for a whole message: stored once. */
  letterId: string;
  kind: DeadLetterKind;
  gatewayInstance: string | null;
  recordIndex: number | null;
  reason: string;
  payload: string;
}

/** One JetStream message's content, sorted: the records to store, and what is dead-lettered. */
export interface SortedBatch {
  messageId: string;
  gatewayInstance: string | null;
  dropped: number;
  /** The records to store, each with its place in the message. */
  records: Array<{ index: number; record: RequestRecord }>;
  letters: RecordDeadLetter[];
}

/** Enough of a record or message for an operator to see what it was; it holds no memory text. */
const PAYLOAD_MAX = 2_000;
const REASON_MAX = 500;
/** PostgreSQL text cannot hold NUL: written out as JSON would. */
const storable = (text: string, max: number) => text.slice(0, max).replaceAll('\u0000', '\\u0000');

/**
 * A record from an older gateway, as today's gateways write it: a route too long to keep is cut, and
 * `not_metered` (outside the spec's billing vocabulary until a later release) is `no_data`.
 */
function asCurrentRecord(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const { route, billing_state } = value as { route?: unknown; billing_state?: unknown };
  const fitted = typeof route === 'string' && route.length > ROUTE_MAX ? { route: fitRoute(route) } : {};
  const billing = billing_state === 'not_metered' ? { billing_state: 'no_data' } : {};
  return { ...value, ...fitted, ...billing };
}

/**
 * A batch message's records, each checked on its own: a record that fails its schema is
 * dead-lettered alone and the others are stored. A message that is not a batch at all is one dead
 * letter.
 */
export function sortBatch(messageId: string, text: string): SortedBatch {
  if (jsonNestsDeeperThan(text, BUS_MESSAGE_MAX_DEPTH)) {
    return wholeMessageLetter(messageId, text, 'nested too deep');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return wholeMessageLetter(messageId, text, 'not JSON');
  }
  const envelope = validateInput(RequestRecordEnvelope, body);
  if (envelope.fields) {
    const issues = envelope.fields.map((f) => `${f.path}: ${f.message}`).join('; ');
    return wholeMessageLetter(messageId, text, `not a request record batch (${issues})`);
  }
  const { gateway_instance, dropped } = envelope.data;
  const sorted: SortedBatch = {
    messageId,
    gatewayInstance: gateway_instance,
    dropped,
    records: [],
    letters: [],
  };
  for (const [index, value] of envelope.data.records.entries()) {
    const parsed = validateInput(RequestRecordSchema, asCurrentRecord(value));
    if (!parsed.fields) sorted.records.push({ index, record: parsed.data });
    else {
      sorted.letters.push({
        letterId: `${messageId}#${index}`,
        kind: 'invalid_record',
        gatewayInstance: gateway_instance,
        recordIndex: index,
        reason: storable(parsed.fields.map((f) => `${f.path}: ${f.message}`).join('; '), REASON_MAX),
        payload: storable(JSON.stringify(value) ?? String(value), PAYLOAD_MAX),
      });
    }
  }
  return sorted;
}

/** A record the database refused on its own (its batch stored without it). */
export function refusedRecordLetter(
  batch: SortedBatch,
  { index, record }: { index: number; record: RequestRecord },
  reason: string,
): RecordDeadLetter {
  return {
    letterId: `${batch.messageId}#${index}`,
    kind: 'refused_by_database',
    gatewayInstance: batch.gatewayInstance,
    recordIndex: index,
    reason: storable(`the database refused the record: ${reason}`, REASON_MAX),
    payload: storable(JSON.stringify(record), PAYLOAD_MAX),
  };
}

function wholeMessageLetter(messageId: string, text: string, reason: string): SortedBatch {
  return {
    messageId,
    gatewayInstance: null,
    dropped: 0,
    records: [],
    letters: [
      {
        letterId: messageId,
        kind: 'not_a_batch',
        gatewayInstance: null,
        recordIndex: null,
        reason: storable(reason, REASON_MAX),
        payload: storable(text, PAYLOAD_MAX),
      },
    ],
  };
}
