import type { Logger } from '@tm/kit';
import { type DeliverySettings, deliverDue } from '../../domain/deliveries/deliver-due.js';

export interface DeliveryPoller {
  /** Look for due deliveries now (an event was queued, a delivery requeued) instead of at the next tick. */
  wake: () => void;
  /** Stop polling and wait for the attempts in flight to be recorded. */
  stop: () => Promise<void>;
}

/**
 * Every instance polls: the claim takes due rows with SKIP LOCKED and a lease, so instances never send
 * the same delivery at once. One pass at a time per instance; a wake during a pass runs another after it.
 */
export function startDeliveryPoller(
  settings: DeliverySettings & { intervalMs: number; logger: Logger },
): DeliveryPoller {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  const run = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = deliverDue(settings)
      .then(() => undefined)
      .catch((err) => settings.logger.warn({ err }, 'webhook delivery pass failed; trying again'))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const timer = setInterval(run, settings.intervalMs);
  timer.unref();
  run();
  return {
    wake: run,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
