import type { PasswordAttempt, RateLimits } from '../operations/rate-limits.js';

/**
 * Run a password check that was counted up front. When it never ran to an answer (no hashing slot
 * free: a retryable 503), the attempt was no guess, and it is given back before the error goes on.
 */
export async function checkedOrGivenBack(
  attempt: PasswordAttempt,
  rateLimits: RateLimits,
  check: () => Promise<boolean>,
): Promise<boolean> {
  try {
    return await check();
  } catch (err) {
    await rateLimits.passwordAttemptNotMade(attempt);
    throw err;
  }
}
