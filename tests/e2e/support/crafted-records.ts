import { randomUUID } from 'node:crypto';
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { RequestRecord, RequestRecordBatch, Subjects } from '@tm/contracts';
import { expect } from 'vitest';
import { EVENTUALLY } from './eventually.js';
import { stackEnv } from './stack.js';
import { telemetryDbRows } from './telemetry.js';

/** Request records made up by a test and published straight to JetStream, as a gateway would. */

export type Crafted = Partial<RequestRecord> & Pick<RequestRecord, 'latency_ms'>;

export function record(tenantId: string, r: Crafted): RequestRecord {
  const status = r.status ?? 200;
  return RequestRecord.parse({
    version: 'v1',
    record_id: randomUUID(),
    request_id: `crafted-${randomUUID()}`,
    tenant_id: tenantId,
    method: 'POST',
    route: '/api/v1/memory/write',
    operation: 'memory.write',
    status,
    outcome: status < 400 ? 'accepted' : [401, 403, 429].includes(status) ? 'blocked' : 'failed',
    state: null,
    error_code: null,
    units: 0,
    billing_state: 'no_data',
    namespace_ref: null,
    deployment_version: 'crafted',
    occurred_at: new Date().toISOString(),
    ...r,
  });
}

/** Publish to JetStream, retrying while the stream is still being created by the services starting up. */
export async function publish(subject: string, payload: unknown, msgID: string = randomUUID()) {
  const nc = await connect({ servers: stackEnv().natsUrl });
  try {
    const js = jetstream(nc);
    for (let attempt = 0; ; attempt++) {
      try {
        return await js.publish(subject, JSON.stringify(payload), { msgID });
      } catch (err) {
        if (attempt >= 50) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    await nc.close();
  }
}

/** Publish records as gateway batches of at most `size` records each. */
export async function publishRecords(records: RequestRecord[], size = 120) {
  for (let i = 0; i < records.length; i += size) {
    const batch = RequestRecordBatch.parse({
      version: 'v1',
      gateway_instance: `crafted-gateway-${randomUUID()}`,
      dropped: 0,
      records: records.slice(i, i + size),
    });
    const ack = await publish(Subjects.gateway.requestRecorded, batch);
    expect(ack.duplicate).toBe(false);
  }
}

/** A fixed permutation (no randomness: a failure must reproduce), so stored order is not sorted order. */
export const interleave = <T>(items: T[]) => items.map((_, i) => items[(i * 37) % items.length] as T);

// ---- reading the stored records ------------------------------------------------------------------

const storedCount = async (tenantId: string) =>
  (
    await telemetryDbRows<{ n: number }>(
      'SELECT count(*)::int AS n FROM request_record WHERE tenant_id = $1',
      [tenantId],
    )
  )[0]?.n;

/** Wait until exactly `n` records of the tenant are stored (records are stored by a consumer, a little later). */
export async function storedRecords(tenantId: string, n: number) {
  await expect.poll(() => storedCount(tenantId), EVENTUALLY).toBe(n);
}
