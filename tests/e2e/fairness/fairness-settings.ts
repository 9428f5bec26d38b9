import { Streams } from '@tm/contracts';
import type { FaultStackOptions } from '../faults/fault-stack.js';

export interface FairnessSettings {
  /** B's load: the fault suite's (load.ts), SDK clients writing and recalling every n-th call. */
  concurrency: number;
  recallEvery: number;
  thinkMs: number;
  /** How long B's load is measured, quiet and then under A's pressure. */
  windowMs: number;
  /** A's pressure runs this long before B's measured window opens, so B meets it at full strength. */
  leadMs: number;
  /** B's load before the first row, not measured: the processes' first requests are slow (JIT, pools). */
  warmupMs: number;
  /** The SDK's per-attempt time-out: past the gateway's deadline, so a held request is measured. */
  attemptTimeoutMs: number;
  /** How long B's webhooks get to arrive once its load stops. */
  webhooksSettleMs: number;
  /** The rules: B's p95 under pressure within this multiple of its quiet p95 ... */
  maxP95Ratio: number;
  /** ... and the 95th percentile of its webhooks' delivery times (acknowledged → received) within this. */
  deliveryBoundMs: number;
}

const MB_PER_STREAM = 64;

/**
 * The fault suite's stack with the settings a tenant meets in production where they bear on
 * fairness: the gateway's 5 s deadline and 5 s breaker reset, the rate limits per key and tenant, and
 * the webhooks service's 10 s attempt time-out (the fault suite lowers or lifts all four for its own
 * reasons). Streams get 64 MiB each (the fault suite's 16 MiB would fill in seconds with 3.3 MB batches,
 * and the row would measure a full store instead of A's load), the store room for all of them.
 */
export const FAIRNESS_STACK: FaultStackOptions = {
  requestTimeoutMs: 5_000,
  breakerResetMs: 5_000,
  maxFileStore: (Object.keys(Streams).length + 1) * MB_PER_STREAM * 1024 * 1024,
  env: {
    RATE_LIMIT_PER_KEY: undefined,
    RATE_LIMIT_PER_TENANT: undefined,
    WEBHOOKS_ATTEMPT_TIMEOUT_MS: undefined,
    JETSTREAM_MAX_MB_PER_STREAM: String(MB_PER_STREAM),
  },
};

/** `npm run fairness`: six rows of about 45 s each (two 15 s windows, set-up and settling). */
export const FULL: FairnessSettings = {
  concurrency: 6,
  recallEvery: 4,
  thinkMs: 20,
  windowMs: 15_000,
  leadMs: 2_000,
  warmupMs: 5_000,
  attemptTimeoutMs: 10_000,
  webhooksSettleMs: 30_000,
  maxP95Ratio: 2,
  deliveryBoundMs: 2_000,
};

/**
 * The CI form (tests/e2e/fairness/fairness.test.ts): the same rows with a smaller load and shorter
 * windows.
 */
export const CI: FairnessSettings = {
  ...FULL,
  concurrency: 3,
  windowMs: 6_000,
  warmupMs: 3_000,
  webhooksSettleMs: 20_000,
};
