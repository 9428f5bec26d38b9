import { AppError, ErrorCode, type MemoryRecallMessage } from '@tm/contracts';
import { createFairSlots } from '@tm/kit';

export interface RecallAdmissionSettings {
  /** Recalls one instance runs at once, all tenants together. */
  concurrency: number;
  /** Recalls one tenant runs at once on one instance. */
  perTenant: number;
  /** Recalls one tenant may have waiting on one instance; one more is a 429. */
  perTenantWaiting: number;
  /** Recalls waiting on one instance, all tenants together; one more is a 503. */
  maxWaiting: number;
  /** The longest a recall waits to start; then it is refused, inside the gateway's deadline. */
  maxWaitMs: number;
}

/** The tenant already runs and queues its share: its own excess, retried once its recalls end. */
const tenantBusy = () =>
  new AppError(
    ErrorCode.RateLimited,
    'Too many recalls are running for this tenant right now; retry in a moment',
    { retryAfter: 1 },
  );

/** Every tenant together has filled the instance's queue. */
const recallsBusy = () =>
  new AppError(ErrorCode.ServiceUnavailable, 'Too many recalls are running right now; retry in a moment', {
    retryAfter: 1,
  });

export type RecallAdmission = ReturnType<typeof createRecallAdmission>;

/**
 * Recalls admitted per tenant: each tenant runs at most `perTenant` at once on an instance, a few more
 * wait, and a freed slot goes to the next waiting tenant in turn (libs/kit fair slots), so one tenant's
 * heavy recalls, however many it sends, queue behind each other and not ahead of another tenant's.
 * What cannot start in time is refused up front with a retryable 429 (its own share) or 503 (the
 * instance's), never left to the gateway's 504.
 */
export function createRecallAdmission(settings: RecallAdmissionSettings) {
  const slots = createFairSlots(
    {
      concurrency: settings.concurrency,
      perSourceRunning: settings.perTenant,
      perSourceHeld: settings.perTenant + settings.perTenantWaiting,
      maxWaiting: settings.maxWaiting,
      maxWaitMs: settings.maxWaitMs,
    },
    {
      source: tenantBusy,
      busy: recallsBusy,
      waitedTooLong: (ownShare) => (ownShare ? tenantBusy() : recallsBusy()),
    },
  );
  return {
    run: <T>(msg: MemoryRecallMessage, recall: () => Promise<T>): Promise<T> =>
      slots.run(recall, { source: msg.scope.tenant_id }),
    /** Recalls running and waiting, and the tenants holding any, for tests. */
    get load() {
      return slots.load;
    },
  };
}
