import {
  CONTRACT_VERSION,
  resolveBucketMinutes,
  seriesBucketStarts,
  type UsageResponse,
  type UsageSummaryMessage,
} from '@tm/contracts';
import { lastRecordedAt, usageInWindow } from '../data-access/ledger-repository.js';
import { getPrisma } from '../data-access/prisma-client.js';
import { usd } from './charge-view.js';

const BILLED = new Set(['recorded', 'invoiced']);

type Tally = { requests: number; units: number; billed: bigint };
const tally = (): Tally => ({ requests: 0, units: 0, billed: 0n });

function usageState(requests: number, voidRequests: number): UsageResponse['state'] {
  if (requests === 0) return 'no_data';
  return voidRequests === requests ? 'void' : 'billable';
}

/**
 * A tenant's usage over the last `window_minutes`, read from the ledger (the source of truth), by
 * the time the operations happened, with the window as a series of UTC-aligned buckets (every bucket
 * present, oldest first), in the spec's billing vocabulary: `no_data` when the window holds no usage
 * record, `void` when every charge in it has been voided, else `billable`.
 */
export async function summarizeUsage(
  message: UsageSummaryMessage,
  options: { pricingVersion: string; now?: Date },
  db = getPrisma(),
): Promise<UsageResponse> {
  const to = options.now ?? new Date();
  const from = new Date(to.getTime() - message.window_minutes * 60_000);
  const bucketMinutes = resolveBucketMinutes(message);
  const groups = await usageInWindow(db, message.tenant_id, from, to, bucketMinutes);

  const byOperation = new Map<string, Tally>();
  const bySlot = new Map<number, Tally>();
  const total = tally();
  let voided = 0n;
  let voidRequests = 0;
  for (const g of groups) {
    const op = byOperation.get(g.operation) ?? tally();
    const slot = bySlot.get(g.slot.getTime()) ?? tally();
    for (const t of [op, slot, total]) {
      t.requests += g.requests;
      t.units += g.units;
      if (BILLED.has(g.state)) t.billed += g.amount;
    }
    if (g.state === 'void') {
      voided += g.amount;
      voidRequests += g.requests;
    }
    byOperation.set(g.operation, op);
    bySlot.set(g.slot.getTime(), slot);
  }

  return {
    contract_version: CONTRACT_VERSION,
    state: usageState(total.requests, voidRequests),
    window: { minutes: message.window_minutes, from: from.toISOString(), to: to.toISOString() },
    request_volume: total.requests,
    operations: [...byOperation.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([operation, o]) => ({
        operation: operation as UsageResponse['operations'][number]['operation'],
        requests: o.requests,
        units: o.units,
        recorded_charge_usd: usd(o.billed),
      })),
    recorded_charge_usd: usd(total.billed),
    void_charge_usd: usd(voided),
    bucket_minutes: bucketMinutes,
    series: seriesBucketStarts(from, to, bucketMinutes).map((start) => {
      const s = bySlot.get(start.getTime()) ?? tally();
      return {
        from: start.toISOString(),
        requests: s.requests,
        units: s.units,
        recorded_charge_usd: usd(s.billed),
      };
    }),
    pricing_version: options.pricingVersion,
    sandbox: true,
    source_of_truth: {
      ledger: 'billing',
      description:
        'The billing ledger: one usage record and one charge per billable operation, consumed from the memory service exactly once',
      last_recorded_at: (await lastRecordedAt(db, message.tenant_id))?.toISOString() ?? null,
    },
    request_id: message.request_id,
  };
}
