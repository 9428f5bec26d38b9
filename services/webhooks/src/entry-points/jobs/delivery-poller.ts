import { createDeliveryDispatcher, type DeliverySettings } from '../../domain/deliveries/deliver-due.js';

export interface DeliveryPoller {
  /** Look for due deliveries now (an event was queued, a delivery requeued) instead of at the next tick. */
  wake: () => void;
  /** Stop polling and wait for the attempts in flight to be recorded. */
  stop: () => Promise<void>;
}

/**
 * Every instance polls: a claim leases the picked rows with SKIP LOCKED, so instances never send the
 * same delivery at once. The tick finds deliveries that became due (retries, expired leases); a new
 * event wakes it early, and each answer refills its slot without waiting for either.
 */
export function startDeliveryPoller(settings: DeliverySettings & { intervalMs: number }): DeliveryPoller {
  const dispatcher = createDeliveryDispatcher(settings);
  const timer = setInterval(dispatcher.fill, settings.intervalMs);
  timer.unref();
  dispatcher.fill();
  return {
    wake: dispatcher.fill,
    stop: async () => {
      clearInterval(timer);
      await dispatcher.stop();
    },
  };
}
