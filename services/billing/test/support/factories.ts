import { randomUUID } from 'node:crypto';
import type { UsageRecordedEvent } from '@tm/contracts';
import { getPrisma } from '../../src/data-access/prisma-client.js';
import type { PriceList } from '../../src/domain/price-list.js';
import { recordUsageBatch } from '../../src/domain/record-usage.js';

/** A tenant no other test knows. */
export const uniqueTenant = () => `tenant-${randomUUID()}`;

/**
 * The tests' own price list, in micro-USD: `priced` charges a tenth of a dollar a write and two cents a
 * recall; `free` prices both at zero, so its charges are `unbilled`.
 */
const PRICES: Record<string, bigint> = {
  'priced memory.write': 100_000n,
  'priced memory.recall': 20_000n,
  'free memory.write': 0n,
  'free memory.recall': 0n,
};
const priceList: PriceList = { unitPrice: async (version, operation) => PRICES[`${version} ${operation}`] };

export type Usage = Pick<UsageRecordedEvent, 'operation' | 'occurred_at'> &
  Partial<Pick<UsageRecordedEvent, 'units' | 'pricing_version'>>;

/**
 * Usage of a tenant charged as the usage consumer charges it (recordUsageBatch, one statement); each
 * charge's id and the request it was for, in the order given.
 */
export async function charged(
  tenantId: string,
  usages: Usage[],
): Promise<Array<{ id: string; requestId: string }>> {
  const events = usages.map(
    (u): UsageRecordedEvent => ({
      usage_id: `usage-${randomUUID()}`,
      tenant_id: tenantId,
      user_id: 'user-1',
      key_id: 'key-1',
      request_id: `req-${randomUUID()}`,
      namespace: 'notes',
      units: 1,
      pricing_version: 'priced',
      ...u,
    }),
  );
  const { recorded, refused } = await recordUsageBatch(events, priceList);
  if (recorded !== events.length || refused.length > 0)
    throw new Error('the ledger did not charge every usage');
  const charges = await getPrisma().charge.findMany({
    where: { usageRecordId: { in: events.map((e) => e.usage_id) } },
    select: { id: true, usageRecordId: true },
  });
  const byUsage = new Map(charges.map((c) => [c.usageRecordId, c.id]));
  return events.map((e) => ({ id: byUsage.get(e.usage_id) as string, requestId: e.request_id }));
}
