import { randomUUID } from 'node:crypto';
import { RequestRecord } from '@tm/contracts';
import { expect } from 'vitest';
import { storeBatches } from '../../src/domain/store-request-records.js';

/** A tenant no other test knows. */
export const uniqueTenant = () => `tenant-${randomUUID()}`;

/** A request record as a gateway makes it; the outcome follows the status as the gateway decides it. */
export function record(
  tenantId: string,
  r: Partial<RequestRecord> & Pick<RequestRecord, 'latency_ms' | 'occurred_at'>,
): RequestRecord {
  const status = r.status ?? 200;
  return RequestRecord.parse({
    version: 'v1',
    record_id: randomUUID(),
    request_id: `unit-${randomUUID()}`,
    tenant_id: tenantId,
    key_id: null,
    user_id: null,
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
    deployment_version: 'unit',
    ...r,
  });
}

/** Stored as the consumer stores a batch: records, their rollups and listed counts in one statement. */
export async function store(records: RequestRecord[]) {
  await storeBatches([
    {
      messageId: `unit-${randomUUID()}`,
      gatewayInstance: 'unit-gateway',
      dropped: 0,
      records: records.map((r, index) => ({ index, record: r })),
      letters: [],
    },
  ]);
}

/** PostgreSQL's percentile_cont: rank p·(n−1) of the sorted values, linear between neighbours. */
export function percentileCont(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = p * (sorted.length - 1);
  const lo = Math.floor(rank);
  const below = sorted[lo] as number;
  const above = sorted[Math.ceil(rank)] as number;
  return below + (rank - lo) * (above - below);
}

/** The latency at nearest rank ⌈q·n⌉: what the rollups' histogram answers, to within 1 %. */
export function nearestRank(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1] as number;
}

/** Within 1 % of a measured latency, for toEqual (closeTo's precision is half of 10^-digits). */
export const within1Percent = (measured: number) => expect.closeTo(measured, -Math.log10(measured * 0.02));
