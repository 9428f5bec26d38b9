import { isTransportFailure, transportError } from '@tm/bus';
import { AppError, ErrorCode } from '@tm/contracts';
import { createBreaker, createLogger } from '@tm/kit';
import { describe, expect, it, onTestFinished } from 'vitest';

const silent = createLogger({ name: 'breaker-test', level: 'silent' });

/** Ten calls through a fresh breaker, each failing with what `fail` makes; its state afterwards. */
async function failTenTimes(fail: () => Error) {
  const { breaker, call } = createBreaker({
    name: 'memory',
    resetMs: 60_000,
    logger: silent,
    isOutage: isTransportFailure,
  });
  onTestFinished(() => breaker.shutdown());
  for (let i = 0; i < 10; i++) {
    await call(() => Promise.reject(fail())).catch(() => undefined);
  }
  return { opened: breaker.opened, closed: breaker.closed };
}

describe('the gateway breaker of a service', () => {
  it('when calls get no answer, then it opens', async () => {
    const breaker = await failTenTimes(() => transportError(new Error('connection closed'), 'memory'));

    expect(breaker.opened).toBe(true);
  });

  it('when the service answers 503 itself (busy, or its database away), then it stays closed', async () => {
    const busy = () =>
      new AppError(ErrorCode.ServiceUnavailable, 'Too many recalls are running right now', { retryAfter: 1 });

    const breaker = await failTenTimes(busy);

    expect(breaker.closed).toBe(true);
  });

  it('when the service answers 504 itself, then it stays closed', async () => {
    const breaker = await failTenTimes(
      () => new AppError(ErrorCode.UpstreamTimeout, 'The import did not finish in time'),
    );

    expect(breaker.closed).toBe(true);
  });
});
