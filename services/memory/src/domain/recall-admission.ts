import { AppError, ErrorCode, type MemoryRecallMessage } from '@tm/contracts';
import { createFairSlots } from '@tm/kit';
import { MAX_CLASS_TERMS } from '../data-access/rank-by-classes.js';
import type { Cue } from './cue-terms.js';

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

/** Above this many results a recall counts as heavy (the default top_k is 10, the most 100). */
export const HEAVY_TOP_K = 20;
/** What a heavy recall takes: a tenant's whole default share, so its heavy recalls run one at a time. */
export const HEAVY_RECALL_SLOTS = 2;

/**
 * Slots a recall takes, from what is known before it runs. Its results: up to top_k texts of up to
 * 32,768 characters each, read, rendered into context, and sent and checked twice on their way out; a
 * 4,096-character cue of four common words at top_k 100 ranks only two terms, yet two of one tenant's at
 * once raised another tenant's p95 1.84×, against 1.43× one at a time (docs/decisions/fairness.md, "Recalls
 * admitted per tenant"). Its terms: past MAX_CLASS_TERMS content terms the cue is ranked over every
 * posting of each (memory_rank). Either makes it heavy; short questions run two at a time.
 */
export const slotsOf = (cue: Cue, topK: number) =>
  topK > HEAVY_TOP_K || cue.content.length > MAX_CLASS_TERMS ? HEAVY_RECALL_SLOTS : 1;

/**
 * A heavy recall keeps its slots three times as long as it ran, once answered, so a tenant's heavy
 * recalls take at most a quarter of one slot's time. Back to back, one at a time, they still raised
 * another tenant's p95 1.43× and 2.53× (two runs on the shared 2-core machine); held as long again,
 * 1.43-2.36× (one of three runs over the bound); three times as long, 1.03× and 1.47× (decisions).
 * At most 1 s, half the default wait bound: a client's next heavy recall, sent as soon as its last is
 * answered, then starts in time rather than being refused at the end of its wait.
 */
const HEAVY_HOLD_MAX_MS = 1_000;
const heavyHold = (ranMs: number) => Math.min(3 * ranMs, HEAVY_HOLD_MAX_MS);

function admissionOf(cue: Cue, topK: number) {
  const cost = slotsOf(cue, topK);
  return cost === HEAVY_RECALL_SLOTS ? { cost, holdAfter: heavyHold } : { cost };
}

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
    /** Run `recall` of `cue` in its tenant's turn, or refuse it (a rejected AppError). */
    run: <T>(msg: MemoryRecallMessage, cue: Cue, recall: () => Promise<T>): Promise<T> =>
      slots.run(recall, { source: msg.scope.tenant_id, ...admissionOf(cue, msg.body.top_k) }),
    /** Recalls running and waiting, and the tenants holding any, for tests. */
    get load() {
      return slots.load;
    },
  };
}
