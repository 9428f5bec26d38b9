import { AppError, ErrorCode } from '@tm/contracts';
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

export interface RateLimitSettings {
  windowSeconds: number;
  perKey: number;
  perTenant: number;
  loginAttemptsPer15Minutes: number;
}

/**
 * Counters every gateway instance shares, in PostgreSQL (an UNLOGGED table: counts need no crash
 * safety). If the counter store fails, each instance falls back to counting in its own memory
 * (rate-limiter-flexible's insurance limiter) rather than refusing or waving through all traffic.
 */
export function createRateLimits(pool: pg.Pool, settings: RateLimitSettings) {
  const limiter = (keyPrefix: string, points: number, duration: number) =>
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: 'rate_limit_counter',
      tableCreated: true,
      keyPrefix,
      points,
      duration,
      insuranceLimiter: new RateLimiterMemory({ keyPrefix, points, duration }),
    });
  const perKey = limiter('key', settings.perKey, settings.windowSeconds);
  const perTenant = limiter('tenant', settings.perTenant, settings.windowSeconds);
  const logins = limiter('login', settings.loginAttemptsPer15Minutes, 15 * 60);

  return {
    /** Count one request against its credential and its tenant; 429 when either is over its limit. */
    async consume(credentialId: string, tenantId: string): Promise<void> {
      const results = await Promise.allSettled([perKey.consume(credentialId), perTenant.consume(tenantId)]);
      const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
      if (refused.length === 0) return;
      const limits = refused.filter((r): r is RateLimiterRes => r instanceof RateLimiterRes);
      if (limits.length < refused.length) throw refused.find((r) => !(r instanceof RateLimiterRes));
      throw rateLimited(Math.max(...limits.map((r) => r.msBeforeNext)), 'Rate limit exceeded');
    },
    /**
     * Before checking a password: count the attempt, and refuse once this address has used up its
     * attempts. Counted up front in one atomic step, so attempts sent all at once cannot each pass a
     * check before any failure is recorded. A successful login gives the attempts back.
     */
    async takeLoginAttempt(email: string): Promise<void> {
      try {
        await logins.consume(email);
      } catch (err) {
        if (!(err instanceof RateLimiterRes)) throw err;
        throw rateLimited(err.msBeforeNext, 'Too many failed logins for this account; try again later');
      }
    },
    async clearFailedLogins(email: string): Promise<void> {
      await logins.delete(email);
    },
  };
}
export type RateLimits = ReturnType<typeof createRateLimits>;

function rateLimited(msBeforeNext: number, message: string): AppError {
  return new AppError(ErrorCode.RateLimited, message, {
    retryAfter: Math.max(1, Math.ceil(msBeforeNext / 1000)),
  });
}
