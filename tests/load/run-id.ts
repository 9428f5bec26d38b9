import { randomBytes } from 'node:crypto';

/** A suffix unique to one bench run, for its namespaces and idempotency keys: runs never meet. */
export function newRunId(): string {
  return `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}
