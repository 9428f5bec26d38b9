import { describe, expect, it } from 'vitest';
import { isStorageUnavailable } from '../src/database.js';

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
  ])('when the error is %s, then it is a storage outage (a retryable 503)', (_name, err) => {
    expect(isStorageUnavailable(err)).toBe(true);
  });

  it('when the error is a wrong query (unique violation), then it is not an outage', () => {
    expect(isStorageUnavailable(failure('Unique constraint failed', 'P2002'))).toBe(false);
  });
});
