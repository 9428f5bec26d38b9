import type { UsageRecordedEvent } from '@tm/contracts';
import type { SqlRunner } from '@tm/kit';
import { describe, expect, it } from 'vitest';
import type { PriceList } from '../src/domain/price-list.js';
import { recordUsageBatch } from '../src/domain/record-usage.js';

const usage = (n: number, extra: Partial<UsageRecordedEvent> = {}): UsageRecordedEvent => ({
  usage_id: `usage-${n}`,
  tenant_id: 'tenant-1',
  user_id: 'user-1',
  key_id: 'key-1',
  request_id: `req-${n}`,
  operation: 'memory.write',
  namespace: 'notes',
  units: 1,
  pricing_version: 'sandbox-2026-11',
  occurred_at: '2026-11-25T01:20:03.112Z',
  ...extra,
});

/** Unit prices in micro-USD by "version operation"; the lookups made, in order. */
function priceList(table: Record<string, bigint>) {
  const lookups: string[] = [];
  const prices: PriceList = {
    unitPrice: async (version, operation) => {
      lookups.push(`${version} ${operation}`);
      return table[`${version} ${operation}`];
    },
  };
  return { prices, lookups };
}

/**
 * The ledger's one statement, as handed over: its columns (ledger-repository.ts's RECORD_USAGE,
 * $1 and $6-$12) read back into the charges it would insert. Every row is new to it.
 */
function ledger() {
  const charges: Array<Record<string, unknown>> = [];
  const run: SqlRunner = async <T>(_sql: unknown, params: unknown[]) => {
    const column = (n: number) => params[n] as unknown[];
    const rows = column(0).map((id, i) => ({
      id,
      operation: column(5)[i],
      units: column(6)[i],
      idempotency_key: column(7)[i],
      pricing_version: column(8)[i],
      occurred_at: (column(9)[i] as Date).toISOString(),
      amount_micro_usd: column(10)[i],
      state: column(11)[i],
    }));
    charges.push(...rows);
    return rows.map((r) => ({ charge_id: r.id })) as T[];
  };
  return { run, charges };
}

describe('recordUsageBatch (the charge of each usage record)', () => {
  it('when records have a price, then each is charged its unit price times its units as recorded, and a zero price is charged as unbilled', async () => {
    const { prices } = priceList({
      'sandbox-2026-11 memory.write': 1_000n,
      'sandbox-2026-11 memory.recall': 0n,
    });
    const { run, charges } = ledger();

    const result = await recordUsageBatch(
      [usage(1, { units: 3, idempotency_key: 'k-1' }), usage(2, { operation: 'memory.recall' })],
      prices,
      run,
    );

    expect(result).toEqual({ recorded: 2, refused: [] });
    expect(charges).toEqual([
      {
        id: 'usage-1',
        operation: 'memory.write',
        units: 3,
        idempotency_key: 'k-1',
        pricing_version: 'sandbox-2026-11',
        occurred_at: '2026-11-25T01:20:03.112Z',
        amount_micro_usd: '3000',
        state: 'recorded',
      },
      {
        id: 'usage-2',
        operation: 'memory.recall',
        units: 1,
        idempotency_key: null,
        pricing_version: 'sandbox-2026-11',
        occurred_at: '2026-11-25T01:20:03.112Z',
        amount_micro_usd: '0',
        state: 'unbilled',
      },
    ]);
  });

  it('when a record names a pricing version without a price for its operation, then it is refused with that reason and the rest are charged', async () => {
    const { prices } = priceList({ 'sandbox-2026-11 memory.write': 1_000n });
    const { run, charges } = ledger();
    const unpriced = usage(2, { pricing_version: 'sandbox-1999-01' });

    const result = await recordUsageBatch([usage(1), unpriced, usage(3)], prices, run);

    expect(result).toEqual({
      recorded: 2,
      refused: [{ event: unpriced, reason: 'no price for memory.write in sandbox-1999-01' }],
    });
    expect(charges.map((c) => c.id)).toEqual(['usage-1', 'usage-3']);
  });

  it('when occurred_at is not a time, then the record is refused with the value quoted, without a price lookup', async () => {
    const { prices, lookups } = priceList({ 'sandbox-2026-11 memory.write': 1_000n });
    const { run, charges } = ledger();
    const undated = usage(1, { occurred_at: 'yesterday' });

    const result = await recordUsageBatch([undated], prices, run);

    expect(result).toEqual({
      recorded: 0,
      refused: [{ event: undated, reason: 'occurred_at is not a timestamp: "yesterday"' }],
    });
    expect(lookups).toEqual([]);
    expect(charges).toEqual([]);
  });

  it('when a batch holds one usage id twice (a redelivery beside its original), then it is charged once', async () => {
    const { prices } = priceList({ 'sandbox-2026-11 memory.write': 1_000n });
    const { run, charges } = ledger();

    const result = await recordUsageBatch([usage(1), usage(2), usage(1)], prices, run);

    expect(result).toEqual({ recorded: 2, refused: [] });
    expect(charges.map((c) => c.id)).toEqual(['usage-1', 'usage-2']);
  });
});
