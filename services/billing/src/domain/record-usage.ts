import type { UsageRecordedEvent } from '@tm/contracts';
import { type NewUsage, recordUsage } from '../data-access/ledger-repository.js';
import { getSql } from '../data-access/prisma-client.js';
import type { PriceList } from './price-list.js';

export interface Refused {
  event: UsageRecordedEvent;
  reason: string;
}

/**
 * Charge a batch of usage records in one statement: each usage id once, at its own pricing
 * version's price. A record whose version or operation has no price, or whose occurred_at is not a
 * time, is refused (the caller dead-letters it) rather than charged at a guess. A zero price makes
 * the charge `unbilled`.
 */
export async function recordUsageBatch(
  events: UsageRecordedEvent[],
  prices: PriceList,
  run = getSql(),
): Promise<{ recorded: number; refused: Refused[] }> {
  const usages: NewUsage[] = [];
  const refused: Refused[] = [];
  for (const event of events) {
    const occurredAt = new Date(event.occurred_at);
    if (Number.isNaN(occurredAt.getTime())) {
      refused.push({ event, reason: `occurred_at is not a timestamp: ${JSON.stringify(event.occurred_at)}` });
      continue;
    }
    const unitPrice = await prices.unitPrice(event.pricing_version, event.operation);
    if (unitPrice === undefined) {
      refused.push({ event, reason: `no price for ${event.operation} in ${event.pricing_version}` });
      continue;
    }
    const amountMicroUsd = unitPrice * BigInt(event.units);
    usages.push({
      id: event.usage_id,
      tenantId: event.tenant_id,
      userId: event.user_id,
      keyId: event.key_id,
      requestId: event.request_id,
      operation: event.operation,
      units: event.units,
      idempotencyKey: event.idempotency_key ?? null,
      pricingVersion: event.pricing_version,
      occurredAt,
      amountMicroUsd,
      chargeState: amountMicroUsd === 0n ? 'unbilled' : 'recorded',
    });
  }
  const recorded = await recordUsage(run, usages);
  return { recorded, refused };
}
