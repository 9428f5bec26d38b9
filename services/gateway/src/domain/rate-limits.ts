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
    /** Before checking a password: refuse while this address has used up its failed attempts. */
    async assertLoginAllowed(email: string): Promise<void> {
      const res = await logins.get(email);
      if (res && res.consumedPoints >= settings.loginAttemptsPer15Minutes) {
        throw rateLimited(res.msBeforeNext, 'Too many failed logins for this account; try again later');
      }
    },
    async recordFailedLogin(email: string): Promise<void> {
      await logins.penalty(email, 1);
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
