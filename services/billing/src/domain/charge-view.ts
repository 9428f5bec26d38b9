import type { ChargeView } from '@tm/contracts';
import type { findCharge } from '../data-access/ledger-repository.js';

type ChargeRow = NonNullable<Awaited<ReturnType<typeof findCharge>>>;

export const usd = (micro: bigint | null | undefined) => Number(micro ?? 0n) / 1_000_000;

export const chargeView = (c: ChargeRow): ChargeView => ({
  id: c.id,
  state: c.state,
  operation: c.operation as ChargeView['operation'],
  units: c.units,
  amount_usd: usd(c.amountMicroUsd),
  pricing_version: c.pricingVersion,
  request_id: c.usageRecord.requestId,
  idempotency_key: c.usageRecord.idempotencyKey,
  occurred_at: c.occurredAt.toISOString(),
  recorded_at: c.createdAt.toISOString(),
  history: c.events.map((e) => ({
    from: e.fromState,
    to: e.toState,
    at: e.at.toISOString(),
    actor_user_id: e.actorUserId,
    reason: e.reason,
  })),
});
