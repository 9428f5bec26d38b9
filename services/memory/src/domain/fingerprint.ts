import { createHash } from 'node:crypto';
import type { WriteRequest } from '@tm/contracts';

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

/**
 * What makes two writes "the same logical write": everything but the idempotency key itself.
 * Event times are compared as instants, so "…Z" and "+00:00" spellings of one moment match.
 */
export function fingerprintWrite(body: WriteRequest, eventId: string): string {
  const { idempotency_key: _key, operation: _op, tenant_id: _t, user_id: _u, ...rest } = body;
  const normalized = {
    ...rest,
    event: { ...rest.event, event_id: eventId, occurred_at: new Date(rest.event.occurred_at).toISOString() },
  };
  return createHash('sha256')
    .update(JSON.stringify(canonical(normalized)))
    .digest('hex');
}
