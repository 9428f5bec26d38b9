import { describe, expect, it } from 'vitest';
import {
  isStorageUnavailable,
  isTransactionConflict,
  retryOnConflict,
  storageOutage,
} from '../src/database.js';

/** An error as a client library throws it: a message and a code (Prisma's known request errors carry theirs so). */
const failure = (message: string, code: string, cause?: unknown) =>
  Object.assign(new Error(message, { cause }), { code });

describe('isStorageUnavailable', () => {
  it.each([
    ['pg: too many clients (53300)', failure('sorry, too many clients already', '53300')],
    [
      'Prisma over the driver adapter: too many connections (P2037)',
      failure('Too many database connections opened: sorry, too many clients already', 'P2037'),
    ],
    [
      'a refused connection, as a cause',
      new Error('query failed', { cause: failure('connect', 'ECONNREFUSED') }),
    ],
    [
      'pg: a write on a standby being promoted (25006)',
      failure('cannot execute INSERT in a read-only transaction', '25006'),
    ],
    [
      "Prisma's raw query on a standby being promoted (P2010 carrying 25006)",
      failure(
        'Raw query failed. Code: `25006`. Message: `cannot execute SELECT FOR UPDATE in a read-only transaction`',
        'P2010',
      ),
    ],
  ])('when the error is %s, then it is a storage outage (a retryable 503)', (_name, err) => {
    expect(isStorageUnavailable(err)).toBe(true);
  });

  it('when the error is a wrong query (unique violation), then it is not an outage', () => {
    expect(isStorageUnavailable(failure('Unique constraint failed', 'P2002'))).toBe(false);
  });
});

describe('isTransactionConflict', () => {
  it.each([
    ['pg: deadlock detected (40P01)', failure('deadlock detected', '40P01')],
    [
      'pg: serialization failure (40001), as a cause',
      new Error('query failed', { cause: failure('could not serialize access', '40001') }),
    ],
    [
      'Prisma: write conflict or deadlock (P2034)',
      failure('Transaction failed due to a write conflict or a deadlock', 'P2034'),
    ],
  ])('when the error is %s, then it is a conflict to run again', (_name, err) => {
    expect(isTransactionConflict(err)).toBe(true);
    expect(storageOutage('Memory storage')(err)).toMatchObject({ status: 503, retryable: true });
  });

  it('when the error is a unique violation, then it is neither a conflict nor mapped', () => {
    const err = failure('Unique constraint failed', 'P2002');
    expect(isTransactionConflict(err)).toBe(false);
    expect(storageOutage('Memory storage')(err)).toBeUndefined();
  });
});

describe('retryOnConflict', () => {
  it('when the transaction conflicts twice, then the third run answers', async () => {
    let runs = 0;
    const out = await retryOnConflict(async () => {
      if (++runs < 3) throw failure('deadlock detected', '40P01');
      return 'done';
    });
    expect({ out, runs }).toEqual({ out: 'done', runs: 3 });
  });

  it('when it conflicts every time, then the last conflict is thrown after three runs; other errors at once', async () => {
    let runs = 0;
    await expect(
      retryOnConflict(async () => {
        runs++;
        throw failure('deadlock detected', '40P01');
      }),
    ).rejects.toMatchObject({ code: '40P01' });
    expect(runs).toBe(3);
    let once = 0;
    await expect(
      retryOnConflict(async () => {
        once++;
        throw failure('Unique constraint failed', 'P2002');
      }),
    ).rejects.toMatchObject({ code: 'P2002' });
    expect(once).toBe(1);
  });
});
