import { randomUUID } from 'node:crypto';
import { RequestRecordBatch, Streams } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { createTenant, recallBody, uniqueNamespace } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { streamMessages } from '../support/stream-reader.js';

const t = useStack({ gatewayEnv: { RATE_LIMIT_PER_KEY: '2', RATE_LIMIT_WINDOW_SECONDS: '60' } });

/**
 * The stream's records for these request ids, and the raw messages that carry them, waiting briefly:
 * they are published after the answer. Each message is a batch from one gateway instance.
 */
async function recordsFor(requestIds: string[]) {
  return eventually(async () => {
    const raw = await streamMessages(Streams.gatewayRequests.name).catch(() => []);
    const carrying = raw
      .map((text) => ({ text, batch: RequestRecordBatch.parse(JSON.parse(text)) }))
      .filter(({ batch }) => batch.records.some((r) => requestIds.includes(r.request_id)));
    const records = carrying.flatMap(({ batch }) =>
      batch.records.filter((r) => requestIds.includes(r.request_id)),
    );
    expect(records.length, 'request records arrived').toBeGreaterThanOrEqual(requestIds.length);
    return { records, raw: carrying.map((c) => c.text) };
  });
}

describe('blocked attempts', () => {
  it('when requests are refused for credential, policy or rate, then each is recorded once, redacted', async () => {
    const tenant = await createTenant();
    const session = await t.api.login(tenant.owner.email, tenant.owner.password);
    const cue = `secret cue ${randomUUID()}`;
    const ids = {
      badKey: `rq-${randomUUID()}`,
      session: `rq-${randomUUID()}`,
      limited: `rq-${randomUUID()}`,
    };
    const recall = (key: string, requestId: string) =>
      t.api.post('/api/v1/memory/recall', {
        key,
        body: recallBody(uniqueNamespace(), cue),
        headers: { 'X-Request-Id': requestId },
      });

    const responses = [
      await recall(`tmk_${'x'.repeat(8)}_${'y'.repeat(40)}`, ids.badKey),
      await recall(session, ids.session),
      await recall(tenant.api_key, `rq-${randomUUID()}`),
      await recall(tenant.api_key, `rq-${randomUUID()}`),
      await recall(tenant.api_key, ids.limited),
    ];
    const { records, raw } = await recordsFor(Object.values(ids));

    expect(responses.map((r) => r.status)).toEqual([401, 403, 200, 200, 429]);
    const byId = Object.fromEntries(records.map((r) => [r.request_id, r]));
    expect(records).toHaveLength(3);
    const common = {
      version: 'v1',
      method: 'POST',
      route: '/api/v1/memory/recall',
      operation: 'memory.recall',
    };
    expect(byId[ids.badKey]).toMatchObject({
      ...common,
      status: 401,
      outcome: 'blocked',
      error_code: 'authentication_required',
      tenant_id: null,
    });
    expect(byId[ids.session]).toMatchObject({
      ...common,
      status: 403,
      error_code: 'credential_not_accepted',
      tenant_id: tenant.tenant_id,
    });
    expect(byId[ids.limited]).toMatchObject({
      ...common,
      status: 429,
      error_code: 'rate_limited',
      tenant_id: tenant.tenant_id,
    });
    for (const text of raw) {
      for (const secret of [cue, session, tenant.api_key, tenant.owner.password]) {
        expect(text).not.toContain(secret);
      }
    }
  });
});
