import { CONTRACT_VERSION, type UsageResponse, type UsageSummaryMessage } from '@tm/contracts';
import { lastRecordedAt, usageInWindow } from '../data-access/ledger-repository.js';
import { getPrisma } from '../data-access/prisma-client.js';
import { usd } from './charge-view.js';

const BILLED = new Set(['recorded', 'invoiced']);

/**
 * A tenant's usage over the last `window_minutes`, read from the ledger (the source of truth), by
 * the time the operations happened. `no_data` when the window holds no usage record.
 */
export async function summarizeUsage(
  message: UsageSummaryMessage,
  options: { pricingVersion: string; now?: Date },
  db = getPrisma(),
): Promise<UsageResponse> {
  const to = options.now ?? new Date();
  const from = new Date(to.getTime() - message.window_minutes * 60_000);
  const groups = await usageInWindow(db, message.tenant_id, from, to);

  const byOperation = new Map<string, { requests: number; units: number; billed: bigint }>();
  let requests = 0;
  let billed = 0n;
  let voided = 0n;
  for (const g of groups) {
    const op = byOperation.get(g.operation) ?? { requests: 0, units: 0, billed: 0n };
    const amount = g._sum.amountMicroUsd ?? 0n;
    op.requests += g._count._all;
    op.units += g._sum.units ?? 0;
    requests += g._count._all;
    if (BILLED.has(g.state)) {
      op.billed += amount;
      billed += amount;
    }
    if (g.state === 'void') voided += amount;
    byOperation.set(g.operation, op);
  }

  return {
    contract_version: CONTRACT_VERSION,
    state: requests > 0 ? 'measured' : 'no_data',
    window: { minutes: message.window_minutes, from: from.toISOString(), to: to.toISOString() },
    request_volume: requests,
    operations: [...byOperation.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([operation, o]) => ({
        operation: operation as UsageResponse['operations'][number]['operation'],
        requests: o.requests,
        units: o.units,
        recorded_charge_usd: usd(o.billed),
      })),
    recorded_charge_usd: usd(billed),
    void_charge_usd: usd(voided),
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
