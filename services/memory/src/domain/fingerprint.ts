import { createHash } from 'node:crypto';
import type { WriteRequest } from '@tm/contracts';

/** Marks a fingerprint kept field by field; an entry without it holds one hash of the whole write. */
const PER_FIELD = 'v2';
const OCCURRED_AT = 'event.occurred_at';

const hashOf = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

/** Stable JSON: object keys sorted, so property order in a client's body does not change the hash. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** What the key protects: everything but the key itself and the caller's scope, times as instants. */
function protectedBody(body: WriteRequest, eventId: string) {
  const { idempotency_key: _key, operation: _op, tenant_id: _t, user_id: _u, ...rest } = body;
  const { occurred_at: occurredAt, ...event } = rest.event;
  return {
    ...rest,
    event: {
      ...event,
      event_id: eventId,
      ...(occurredAt === undefined ? {} : { occurred_at: new Date(occurredAt).toISOString() }),
    },
  };
}

/** Each leaf of the body by its request path (`event.content.text`); arrays are one value. */
function fieldsOf(value: unknown, path = ''): Array<[string, unknown]> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .flatMap(([k, v]) => fieldsOf(v, path ? `${path}.${k}` : k));
  }
  return [[path, value]];
}

/**
 * What makes two writes "the same logical write", kept field by field (`v2;path=hash;…`, sorted) so a
 * conflict can name the fields that differ without keeping or showing any of their values.
 */
export function fingerprintWrite(body: WriteRequest, eventId: string): string {
  const fields = fieldsOf(protectedBody(body, eventId))
    .map(([path, value]) => `${path}=${hashOf(canonical(value)).slice(0, 32)}`)
    .sort();
  return [PER_FIELD, ...fields].join(';');
}

/** The single hash entries held before fields were kept apart: the whole body, time always given. */
function wholeBodyFingerprint(body: WriteRequest, eventId: string): string {
  return hashOf(canonical(protectedBody(body, eventId)));
}

const parse = (stored: string) =>
  new Map(
    stored
      .split(';')
      .slice(1)
      .map((field) => field.split('=') as [string, string]),
  );

/**
 * The request paths where a repeated write differs from the one its key first recorded; none means a
 * replay. An event time the repeat leaves out is not compared: the service chose the first one, so a
 * re-run of an unchanged call that gives no time is the same write. An entry recorded as one hash
 * (before fields were kept apart) can only say whether the whole body matches.
 */
export function differingFields(stored: string, body: WriteRequest, eventId: string): string[] {
  if (!stored.startsWith(`${PER_FIELD};`)) {
    const same = body.event.occurred_at !== undefined && stored === wholeBodyFingerprint(body, eventId);
    return same ? [] : ['event'];
  }
  const before = parse(stored);
  const now = parse(fingerprintWrite(body, eventId));
  if (!now.has(OCCURRED_AT)) before.delete(OCCURRED_AT);
  const paths = new Set([...before.keys(), ...now.keys()]);
  return [...paths].filter((path) => before.get(path) !== now.get(path)).sort();
}
