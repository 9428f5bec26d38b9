import { randomUUID } from 'node:crypto';
import type { UsageRecordedEvent } from '@tm/contracts';
import { bootstrapTenant } from '@tm/gateway';
import { recordSecrets } from './log-capture.js';

const suffix = () => randomUUID().slice(0, 8);

/**
 * A fresh tenant with its own key and an owner who can log in; each test makes its own so tests never
 * share state.
 */
export async function createTenant(options: { consent?: boolean; storage?: boolean } = {}) {
  const owner = { email: `owner-${suffix()}@example.test`, password: `pw-${randomUUID()}` };
  const tenant = await bootstrapTenant({ name: `test-${suffix()}`, ...owner, ...options });
  recordSecrets([tenant.api_key, owner.password]); // for the run's log leak check
  return { ...tenant, owner };
}

export const uniqueNamespace = (label = 'ns') => `${label}-${suffix()}`;
export const uniqueKey = (label = 'key') => `${label}-${randomUUID()}`;

export function writeBody(
  namespace: string,
  text: string,
  event: {
    event_id?: string;
    occurred_at?: string;
    supersedes?: string[];
    source?: { type: string; id?: string };
  } = {},
) {
  return {
    contract_version: 'v1',
    operation: 'memory.write',
    namespace,
    event: {
      event_id: event.event_id ?? `evt-${suffix()}`,
      occurred_at: event.occurred_at ?? '2026-11-22T09:00:00Z',
      content: { text },
      ...(event.source ? { source: event.source } : {}),
      ...(event.supersedes ? { supersedes: event.supersedes } : {}),
    },
  };
}

export function recallBody(
  namespace: string,
  cue: string,
  extra: { top_k?: unknown; as_of?: string; explain?: unknown } = {},
) {
  return { contract_version: 'v1', operation: 'memory.recall', namespace, cue: { text: cue }, ...extra };
}

/** The texts of a recall answer, in its order. */
export const relatedTexts = (res: { body: { related: Array<{ text: string }> } }) =>
  res.body.related.map((r) => r.text);

/** A usage record as memory would relay it, for a real tenant so its charges can be read back. */
export const usageRecordFor = (
  tenant: { tenant_id: string; user_id: string; key_id: string },
  overrides: Partial<UsageRecordedEvent> = {},
): UsageRecordedEvent => ({
  usage_id: randomUUID(),
  tenant_id: tenant.tenant_id,
  user_id: tenant.user_id,
  key_id: tenant.key_id,
  request_id: `req-${randomUUID()}`,
  operation: 'memory.write',
  namespace: uniqueNamespace(),
  units: 1,
  idempotency_key: uniqueKey('hand-made'),
  pricing_version: 'sandbox-2026-11',
  occurred_at: new Date().toISOString(),
  ...overrides,
});
