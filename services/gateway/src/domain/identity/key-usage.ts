import type { Logger } from '@tm/kit';
import { touchKey } from '../../data-access/api-key-repository.js';
import { getSql } from '../../data-access/prisma-client.js';

const INTERVAL_MS = 60_000;
const MAX_TRACKED = 10_000;

/**
 * Keeps `last_used_at` to within a minute without a write per request: each instance writes a key's
 * time at most once a minute, off the request's path (a failed write is logged, not the caller's problem).
 */
export function createKeyUsage(logger: Logger, now = Date.now) {
  const lastWritten = new Map<string, number>();
  return {
    noteUsed(keyId: string): void {
      const t = now();
      if (t - (lastWritten.get(keyId) ?? 0) < INTERVAL_MS) return;
      if (lastWritten.size >= MAX_TRACKED) lastWritten.clear();
      lastWritten.set(keyId, t);
      touchKey(getSql(), keyId).catch((err) => logger.warn({ err }, 'could not record key use'));
    },
  };
}
export type KeyUsage = ReturnType<typeof createKeyUsage>;
