import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Subjects, type UsageRecordedEvent } from '@tm/contracts';
import { expect } from 'vitest';
import type { Api } from './api.js';
import { type createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from './factories.js';

/** Shared by the billing files (billing-usage, billing-charges, billing-invoices) and the console's. */
export const USAGE = '/api/v1/infrastructure/usage';
export const CHARGES = '/api/v1/control/billing/charges';

export const PRICING_VERSION = 'sandbox-2026-11';
/** The sandbox price list (billing's migration), in micro-USD a unit: 0.0001 and 0.00005 USD. */
export const WRITE_MICRO_USD = 100;
export const RECALL_MICRO_USD = 50;
export const usd = (micro: number) => micro / 1_000_000;

type Tenant = Awaited<ReturnType<typeof createTenant>>;
export interface Charge {
  id: string;
  state: string;
  operation: 'memory.write' | 'memory.recall';
  units: number;
  amount_usd: number;
  request_id: string;
  idempotency_key: string | null;
  occurred_at: string;
  history: Array<Record<string, unknown>>;
}

/**
 * Usage records of past months, one unit each, straight into memory's usage stream on `natsUrl` (the
 * API only makes current ones): what a month to invoice needs.
 */
export async function publishPastUsage(
  natsUrl: string,
  tenant: Pick<Tenant, 'tenant_id' | 'user_id' | 'key_id'>,
  occurredAt: string[],
  operation: UsageRecordedEvent['operation'] = 'memory.write',
): Promise<void> {
  const nc = await connect({ servers: natsUrl });
  try {
    const js = jetstream(nc);
    for (const at of occurredAt) {
      const record: UsageRecordedEvent = {
        usage_id: randomUUID(),
        tenant_id: tenant.tenant_id,
        user_id: tenant.user_id,
        key_id: tenant.key_id,
        request_id: `req-${randomUUID()}`,
        operation,
        namespace: uniqueNamespace(),
        units: 1,
        pricing_version: PRICING_VERSION,
        occurred_at: at,
      };
      await js.publish(Subjects.memory.usageRecorded, JSON.stringify(record), { msgID: record.usage_id });
    }
  } finally {
    await nc.close();
  }
}

/** Billing steps on a file's stack; `t.api` is read at call time, once `beforeAll` has set it. */
export function billingSteps(t: { api: Api }) {
  /** A new member of the owner's tenant with `role`, signed in: their user id and session token. */
  async function memberSession(ownerSession: string, role: 'admin' | 'developer' | 'viewer') {
    const member = {
      email: `${role}-${randomUUID().slice(0, 8)}@example.test`,
      password: `pw-${randomUUID()}`,
    };
    const added = await t.api.post('/api/v1/control/users', {
      key: ownerSession,
      body: { ...member, role },
    });
    if (added.status !== 201)
      throw new Error(`member not added: ${added.status} ${JSON.stringify(added.body)}`);
    return { userId: added.body.id as string, session: await t.api.login(member.email, member.password) };
  }

  const usage = (key: string, windowMinutes?: string, path = USAGE) =>
    t.api.get(path, {
      key,
      ...(windowMinutes === undefined ? {} : { query: { window_minutes: windowMinutes } }),
    });

  const charges = (session: string, query: Record<string, string> = {}) =>
    t.api.get(CHARGES, { key: session, query });

  async function writes(tenant: Tenant, namespace: string, n: number) {
    const sent = [];
    for (let i = 0; i < n; i++) {
      const key = uniqueKey();
      const body = writeBody(namespace, `billing note ${i}`);
      const res = await t.api.write(tenant.api_key, body, key);
      expect(res.status).toBe(200);
      sent.push({ key, body, res });
    }
    return sent;
  }

  async function recalls(tenant: Tenant, namespace: string, m: number) {
    const sent = [];
    for (let i = 0; i < m; i++) {
      const res = await t.api.recall(tenant.api_key, recallBody(namespace, 'billing note'));
      expect(res.status).toBe(200);
      sent.push(res);
    }
    return sent;
  }

  return { memberSession, usage, charges, writes, recalls };
}
