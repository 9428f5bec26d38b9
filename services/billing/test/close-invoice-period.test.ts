import { AppError, ErrorCode, statusOf } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { closeInvoicePeriod, periodBounds } from '../src/domain/close-invoice-period.js';
import { invoiceView } from '../src/domain/invoice-view.js';

/** A database the refusals below never reach: closing an open month fails before any read. */
const unreachable = new Proxy(
  {},
  {
    get: () => {
      throw new Error('the database was used');
    },
  },
) as never;

const close = (period: string, now: string) =>
  closeInvoicePeriod(
    { tenant_id: 'tenant-1', period, actor_user_id: 'user-1' },
    { now: new Date(now) },
    unreachable,
  );

describe('periodBounds (an invoice period as a half-open UTC month)', () => {
  it('when a month is named, then it runs from its first instant to the next month’s, across a year end too', () => {
    expect(periodBounds('2026-11')).toEqual({
      start: new Date('2026-11-01T00:00:00.000Z'),
      end: new Date('2026-12-01T00:00:00.000Z'),
    });
    expect(periodBounds('2026-12')).toEqual({
      start: new Date('2026-12-01T00:00:00.000Z'),
      end: new Date('2027-01-01T00:00:00.000Z'),
    });
  });
});

describe('closeInvoicePeriod (a month is closed an hour after it ends)', () => {
  it('when the month is still running, or ended less than an hour ago, then closing is refused with 409 and nothing is read', async () => {
    for (const now of ['2026-11-15T12:00:00.000Z', '2026-12-01T00:59:59.999Z']) {
      const refusal = await close('2026-11', now).catch((err: unknown) => err);

      expect(refusal).toBeInstanceOf(AppError);
      expect(refusal).toMatchObject({
        code: ErrorCode.AlreadyExists,
        message: 'This period has not closed yet; it can be invoiced an hour after it ends',
      });
      expect(statusOf(ErrorCode.AlreadyExists)).toBe(409);
    }
  });

  it('when the hour after the month has passed, then closing goes on to the ledger', async () => {
    await expect(close('2026-11', '2026-12-01T01:00:00.000Z')).rejects.toThrow('the database was used');
  });
});

describe('invoiceView (an invoice as the API answers it)', () => {
  it('when an invoice is shown, then its period is its month, its times ISO and its total in dollars', () => {
    const view = invoiceView({
      id: 'inv-1',
      periodStart: new Date('2026-11-01T00:00:00.000Z'),
      periodEnd: new Date('2026-12-01T00:00:00.000Z'),
      chargeCount: 3,
      totalMicroUsd: 2_500_000n,
      createdBy: 'user-1',
      createdAt: new Date('2026-12-02T08:00:00.000Z'),
    });

    expect(view).toEqual({
      id: 'inv-1',
      period: '2026-11',
      period_start: '2026-11-01T00:00:00.000Z',
      period_end: '2026-12-01T00:00:00.000Z',
      charges: 3,
      total_usd: 2.5,
      created_by: 'user-1',
      created_at: '2026-12-02T08:00:00.000Z',
    });
  });
});
