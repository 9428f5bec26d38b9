import { randomUUID } from 'node:crypto';
import { type AppError, ErrorCode } from '@tm/contracts';
import { createLogger, poolRunner } from '@tm/kit';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRateLimits } from '../src/domain/operations/rate-limits.js';

// The run's shared gateway database: every bucket here is a fresh tenant's or address's.
const pool = new pg.Pool({ connectionString: inject('stack').gatewayDbUrl, max: 2 });
afterAll(() => pool.end());

const TEXT_BUDGET = 10_000;

/** Rate limits on the real counter store; `paused` lists each pause a refusal asked for. */
function limits() {
  const paused: number[] = [];
  const rateLimits = createRateLimits(
    poolRunner(pool),
    {
      windowSeconds: 1,
      perKey: 1_000,
      perTenant: 1_000,
      textCharsPerTenant: TEXT_BUDGET,
      textWindowSeconds: 60,
      loginAttemptsPer15Minutes: 10,
      loginAttemptsPerAddressPer15Minutes: 2,
      refusalMemoryMs: 60_000,
      refusalPauseMs: 500,
    },
    createLogger({ name: 'refusal-pause-test', level: 'silent' }),
    Date.now,
    async (ms) => {
      paused.push(ms);
    },
  );
  return { rateLimits, paused };
}

const refusalOf = (attempt: Promise<unknown>) =>
  attempt.then(
    () => undefined,
    (err: AppError) => ({ code: err.code, retryAfter: err.retryAfter }),
  );

describe('a refusal repeated from memory', () => {
  it("when a tenant's text budget refused it and it sends long text again, then the refusal repeats after a pause, its Retry-After kept, and the first refusal came at once", async () => {
    const { rateLimits, paused } = limits();
    const tenant = randomUUID();
    const longText = { requests: 0, textChars: TEXT_BUDGET + 1 };

    const first = await refusalOf(rateLimits.consumeWrite(`k:${tenant}`, tenant, longText));
    const pausedAtFirst = paused.length;
    const again = await refusalOf(
      rateLimits.consumeWrite(`k:${tenant}`, tenant, { requests: 0, textChars: 1 }),
    );
    const ordinary = await refusalOf(
      rateLimits.consumeWrite(`k:${tenant}`, tenant, { requests: 5, textChars: 0 }),
    );
    rateLimits.stop();

    expect(first).toMatchObject({ code: ErrorCode.RateLimited, retryAfter: expect.any(Number) });
    expect(pausedAtFirst).toBe(0);
    expect(again).toEqual({ code: ErrorCode.RateLimited, retryAfter: first?.retryAfter });
    expect(paused).toEqual([500]);
    // Writes without long text do not meet the text budget at all.
    expect(ordinary).toBeUndefined();
  });

  it('when an address refused for failed logins comes back, then it is refused after a pause, before its body is read', async () => {
    const { rateLimits, paused } = limits();
    const address = `198.51.100.${Math.floor(Math.random() * 250)}`;
    const attempt = () => ({ account: `email:${randomUUID()}@example.com`, address });
    await rateLimits.takePasswordAttempt(attempt());
    await rateLimits.takePasswordAttempt(attempt());

    const refused = await refusalOf(rateLimits.takePasswordAttempt(attempt()));
    const pausedAtRefusal = paused.length;
    const early = await refusalOf(rateLimits.refuseRememberedAddress(address));
    const elsewhere = await refusalOf(rateLimits.refuseRememberedAddress('198.51.100.251'));
    rateLimits.stop();

    expect(refused).toMatchObject({ code: ErrorCode.RateLimited });
    expect(pausedAtRefusal).toBe(0);
    expect(early).toEqual(refused);
    expect(paused).toEqual([500]);
    expect(elsewhere).toBeUndefined();
  });
});
