import { CONTRACT_VERSION, UsageResponse, type UsageSummaryMessage } from '@tm/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPrisma } from '../src/data-access/prisma-client.js';
import { closeInvoicePeriod } from '../src/domain/close-invoice-period.js';
import { summarizeUsage } from '../src/domain/summarize-usage.js';
import { voidCharge } from '../src/domain/void-charge.js';
import { charged, type Usage, uniqueTenant } from './support/factories.js';
import { ownDatabase } from './support/own-database.js';

const database = ownDatabase('summarize_usage');
beforeAll(() => database.open());
afterAll(() => database.close());

/** A summary as the endpoint asks for it, at a fixed `now` so windows and buckets are known. */
const summary = (
  tenantId: string,
  now: string,
  window: Pick<UsageSummaryMessage, 'window_minutes' | 'bucket_minutes'>,
) =>
  summarizeUsage(
    { tenant_id: tenantId, request_id: 'req-summary', ...window },
    { pricingVersion: 'sandbox-2026-11', now: new Date(now) },
  );

const write = (occurred_at: string, extra: Partial<Usage> = {}): Usage => ({
  operation: 'memory.write',
  occurred_at,
  ...extra,
});
const recall = (occurred_at: string, extra: Partial<Usage> = {}): Usage => ({
  operation: 'memory.recall',
  occurred_at,
  ...extra,
});
const point = (from: string, requests = 0, units = 0, recorded_charge_usd = 0) => ({
  from,
  requests,
  units,
  recorded_charge_usd,
});

const voided = (tenantId: string, chargeId: string) =>
  voidCharge({ tenant_id: tenantId, charge_id: chargeId, actor_user_id: 'user-owner', reason: 'test' });

describe('summarizeUsage (a tenant’s usage over a window, from the ledger)', () => {
  it('when the tenant has no usage at all, then no_data with zeros, no operations, every minute of the window an empty bucket, and no last record', async () => {
    // Arrange
    const tenantId = uniqueTenant();

    // Act
    const usage = await summary(tenantId, '2026-11-25T12:00:00.000Z', { window_minutes: 60 });

    // Assert
    expect(usage).toEqual({
      contract_version: CONTRACT_VERSION,
      state: 'no_data',
      window: { minutes: 60, from: '2026-11-25T11:00:00.000Z', to: '2026-11-25T12:00:00.000Z' },
      request_volume: 0,
      operations: [],
      recorded_charge_usd: 0,
      void_charge_usd: 0,
      bucket_minutes: 1,
      series: Array.from({ length: 60 }, (_, m) =>
        point(new Date(Date.UTC(2026, 10, 25, 11, m)).toISOString()),
      ),
      pricing_version: 'sandbox-2026-11',
      sandbox: true,
      source_of_truth: {
        ledger: 'billing',
        description: expect.stringContaining('billing ledger'),
        last_recorded_at: null,
      },
      request_id: 'req-summary',
    });
    expect(UsageResponse.safeParse(usage).success).toBe(true);
  });

  it('when no bucket size is asked, then the ladder’s for the window: a day in 15-minute buckets, thirty days in 6-hour ones', async () => {
    const tenantId = uniqueTenant();

    const day = await summary(tenantId, '2026-11-25T12:00:00.000Z', { window_minutes: 1_440 });
    const month = await summary(tenantId, '2026-11-25T12:00:00.000Z', { window_minutes: 43_200 });

    expect([day.bucket_minutes, day.series.length, day.series[0]?.from]).toEqual([
      15,
      96,
      '2026-11-24T12:00:00.000Z',
    ]);
    expect([month.bucket_minutes, month.series.length, month.series[0]?.from]).toEqual([
      360,
      120,
      '2026-10-26T12:00:00.000Z',
    ]);
  });

  it('when usage lies on the window’s edges, then its first instant counts and its end does not, and partial buckets at either end hold only what is inside', async () => {
    // Arrange: a window of 11:07-12:07 in 15-minute buckets 11:00, 11:15, … 12:00 (the first and last
    // reach outside it).
    const tenantId = uniqueTenant();
    await charged(tenantId, [
      write('2026-11-25T11:05:00.000Z'), // in the first bucket's span, before the window
      write('2026-11-25T11:06:59.999Z'),
      write('2026-11-25T11:07:00.000Z'),
      write('2026-11-25T11:14:59.999Z'),
      write('2026-11-25T11:15:00.000Z'),
      write('2026-11-25T12:06:59.999Z'),
      write('2026-11-25T12:07:00.000Z'),
      write('2026-11-25T12:10:00.000Z'), // in the last bucket's span, after the window
    ]);

    // Act
    const usage = await summary(tenantId, '2026-11-25T12:07:00.000Z', {
      window_minutes: 60,
      bucket_minutes: 15,
    });

    // Assert
    expect(usage).toMatchObject({
      state: 'billable',
      window: { minutes: 60, from: '2026-11-25T11:07:00.000Z', to: '2026-11-25T12:07:00.000Z' },
      request_volume: 4,
      operations: [{ operation: 'memory.write', requests: 4, units: 4, recorded_charge_usd: 0.4 }],
      recorded_charge_usd: 0.4,
      bucket_minutes: 15,
    });
    expect(usage.series).toEqual([
      point('2026-11-25T11:00:00.000Z', 2, 2, 0.2),
      point('2026-11-25T11:15:00.000Z', 1, 1, 0.1),
      point('2026-11-25T11:30:00.000Z'),
      point('2026-11-25T11:45:00.000Z'),
      point('2026-11-25T12:00:00.000Z', 1, 1, 0.1),
    ]);
  });

  it('when charges are recorded, invoiced, void and unbilled, then operations (by name) and buckets count them all, dollars count recorded and invoiced only, and void dollars stand apart', async () => {
    // Arrange: a window across a month end (23:30-00:30), November's charges invoiced since.
    const tenantId = uniqueTenant();
    const [, , toVoid] = await charged(tenantId, [
      write('2026-11-30T23:40:00.000Z', { units: 2 }), // invoiced, 0.20
      write('2026-12-01T00:05:00.000Z'), // recorded, 0.10
      write('2026-12-01T00:05:00.000Z'), // void, 0.10
      write('2026-12-01T00:20:00.000Z', { pricing_version: 'free' }), // unbilled
      recall('2026-12-01T00:20:00.000Z', { units: 3 }), // recorded, 0.06
      recall('2026-11-30T23:50:00.000Z'), // invoiced, 0.02
    ]);
    await voided(tenantId, toVoid?.id as string);
    await closeInvoicePeriod(
      { tenant_id: tenantId, period: '2026-11', actor_user_id: 'user-owner' },
      { now: new Date('2026-12-02T00:00:00.000Z') },
    );

    // Act
    const usage = await summary(tenantId, '2026-12-01T00:30:00.000Z', {
      window_minutes: 60,
      bucket_minutes: 15,
    });

    // Assert: 0.3 is summed in micro-dollars (0.2 + 0.1 in floating point is 0.30000000000000004).
    expect(usage).toMatchObject({
      state: 'billable',
      request_volume: 6,
      operations: [
        { operation: 'memory.recall', requests: 2, units: 4, recorded_charge_usd: 0.08 },
        { operation: 'memory.write', requests: 4, units: 5, recorded_charge_usd: 0.3 },
      ],
      recorded_charge_usd: 0.38,
      void_charge_usd: 0.1,
    });
    expect(usage.series).toEqual([
      point('2026-11-30T23:30:00.000Z', 1, 2, 0.2),
      point('2026-11-30T23:45:00.000Z', 1, 1, 0.02),
      point('2026-12-01T00:00:00.000Z', 2, 2, 0.1),
      point('2026-12-01T00:15:00.000Z', 2, 4, 0.06),
    ]);
  });

  it('when every charge in the window is void, then void with the voided dollars apart; when one unbilled charge stands beside them, then billable at zero dollars', async () => {
    // Arrange
    const allVoid = uniqueTenant();
    const withUnbilled = uniqueTenant();
    for (const c of await charged(allVoid, [
      write('2026-11-25T11:10:00.000Z'),
      recall('2026-11-25T11:20:00.000Z', { units: 2 }),
    ]))
      await voided(allVoid, c.id);
    const [toVoid] = await charged(withUnbilled, [
      write('2026-11-25T11:10:00.000Z'),
      write('2026-11-25T11:20:00.000Z', { pricing_version: 'free' }),
    ]);
    await voided(withUnbilled, toVoid?.id as string);

    // Act
    const [a, b] = await Promise.all(
      [allVoid, withUnbilled].map((t) => summary(t, '2026-11-25T12:00:00.000Z', { window_minutes: 60 })),
    );

    // Assert
    expect(a).toMatchObject({
      state: 'void',
      request_volume: 2,
      operations: [
        { operation: 'memory.recall', requests: 1, units: 2, recorded_charge_usd: 0 },
        { operation: 'memory.write', requests: 1, units: 1, recorded_charge_usd: 0 },
      ],
      recorded_charge_usd: 0,
      void_charge_usd: 0.14,
    });
    expect(b).toMatchObject({
      state: 'billable',
      request_volume: 2,
      recorded_charge_usd: 0,
      void_charge_usd: 0.1,
    });
  });

  it('when the tenant’s only usage lies before the window, then no_data with zeros, while last_recorded_at still names the ledger’s newest record of it', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    await charged(tenantId, [write('2026-11-25T10:59:59.999Z')]);
    const { recordedAt } = await getPrisma().usageRecord.findFirstOrThrow({ where: { tenantId } });

    // Act
    const usage = await summary(tenantId, '2026-11-25T12:00:00.000Z', { window_minutes: 60 });

    // Assert
    expect(usage).toMatchObject({
      state: 'no_data',
      request_volume: 0,
      operations: [],
      recorded_charge_usd: 0,
      void_charge_usd: 0,
      source_of_truth: { last_recorded_at: recordedAt.toISOString() },
    });
    expect(usage.series.every((p) => p.requests === 0)).toBe(true);
  });

  it('when another tenant has usage in the same minutes, then none of it is counted, and its records are not this tenant’s last record', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const other = uniqueTenant();
    await charged(tenantId, [write('2026-11-25T11:30:00.000Z')]);
    const { recordedAt } = await getPrisma().usageRecord.findFirstOrThrow({ where: { tenantId } });
    await charged(other, [write('2026-11-25T11:30:00.000Z'), recall('2026-11-25T11:30:00.000Z')]);

    // Act
    const usage = await summary(tenantId, '2026-11-25T12:00:00.000Z', { window_minutes: 60 });

    // Assert
    expect(usage).toMatchObject({
      request_volume: 1,
      operations: [{ operation: 'memory.write', requests: 1, units: 1, recorded_charge_usd: 0.1 }],
      source_of_truth: { last_recorded_at: recordedAt.toISOString() },
    });
  });
});
