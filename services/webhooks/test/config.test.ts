import { describe, expect, it } from 'vitest';
import { STANDARD_RETRY_SCHEDULE_MS, WebhooksConfigSchema } from '../src/config.js';
import { describePeriod, nextAfterFailure } from '../src/domain/deliveries/retry-schedule.js';

const secret = { WEBHOOKS_SECRET_KEY: 'k'.repeat(40) };

describe('webhooks settings', () => {
  it('when nothing is set but the key, then the Standard Webhooks schedule: eight attempts over 27 h 35 min 5 s', () => {
    const config = WebhooksConfigSchema.parse(secret);

    expect(config.WEBHOOKS_RETRY_SCHEDULE_MS).toEqual(STANDARD_RETRY_SCHEDULE_MS);
    expect(config.WEBHOOKS_RETRY_SCHEDULE_MS).toHaveLength(7);
    expect(describePeriod(config.WEBHOOKS_RETRY_SCHEDULE_MS)).toBe('27 h 35 min 5 s');
    expect(config).toMatchObject({
      WEBHOOKS_ALLOW_LOOPBACK: false,
      WEBHOOKS_ATTEMPT_TIMEOUT_MS: 10_000,
      WEBHOOKS_DELIVERY_RETENTION_DAYS: 30,
      WEBHOOKS_CONCURRENCY: 64,
      WEBHOOKS_TENANT_CONCURRENCY: 16,
      WEBHOOKS_ENDPOINT_CONCURRENCY: 16,
      WEBHOOKS_BREAKER_RESET_MS: 60_000,
      WEBHOOKS_BREAKER_VOLUME: 4,
    });
  });

  it.each([
    ['no secret key', {}],
    ['a short secret key', { WEBHOOKS_SECRET_KEY: 'short' }],
    ['a schedule that is not numbers', { ...secret, WEBHOOKS_RETRY_SCHEDULE_MS: '5s,5m' }],
    ['a delay over a day', { ...secret, WEBHOOKS_RETRY_SCHEDULE_MS: '86400001' }],
    ['more than 20 retries', { ...secret, WEBHOOKS_RETRY_SCHEDULE_MS: Array(21).fill('1').join(',') }],
    ['a time-out over 30 s', { ...secret, WEBHOOKS_ATTEMPT_TIMEOUT_MS: '30001' }],
    ['loopback allowed as yes', { ...secret, WEBHOOKS_ALLOW_LOOPBACK: 'yes' }],
    ['a retention of 0 days', { ...secret, WEBHOOKS_DELIVERY_RETENTION_DAYS: '0' }],
    ['no slots for a tenant', { ...secret, WEBHOOKS_TENANT_CONCURRENCY: '0' }],
    ['part of a slot per endpoint', { ...secret, WEBHOOKS_ENDPOINT_CONCURRENCY: '1.5' }],
    ['a breaker reset under 1 s', { ...secret, WEBHOOKS_BREAKER_RESET_MS: '999' }],
    ['a breaker reset over an hour', { ...secret, WEBHOOKS_BREAKER_RESET_MS: '3600001' }],
    ['a breaker volume of 0', { ...secret, WEBHOOKS_BREAKER_VOLUME: '0' }],
    ['a retention in part days', { ...secret, WEBHOOKS_DELIVERY_RETENTION_DAYS: '1.5' }],
    ['a retention over 10 years', { ...secret, WEBHOOKS_DELIVERY_RETENTION_DAYS: '3651' }],
    ['a retention that is not a number', { ...secret, WEBHOOKS_DELIVERY_RETENTION_DAYS: '30d' }],
  ])('when the settings have %s, then the service refuses to start', (_, env) => {
    expect(WebhooksConfigSchema.safeParse(env).success).toBe(false);
  });

  it('when a delivery fails at each step, then the next attempt follows the schedule until it ends', () => {
    const now = Date.parse('2026-11-27T00:00:00Z');
    const schedule = [5_000, 300_000];

    expect(nextAfterFailure(schedule, 0, now)?.toISOString()).toBe('2026-11-27T00:00:05.000Z');
    expect(nextAfterFailure(schedule, 1, now)?.toISOString()).toBe('2026-11-27T00:05:00.000Z');
    expect(nextAfterFailure(schedule, 2, now)).toBeNull();
  });
});
