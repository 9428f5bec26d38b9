import type { FaultContext } from './fault-table.js';

/** A duration as the rows' notes give it: seconds, one decimal. */
export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** When the first write the load sent at or after `since` was acknowledged: the failover as a client sees it. */
export function firstWriteNote(ctx: FaultContext, since: number): string {
  const at = ctx.firstWriteAnswered(since);
  return at === undefined
    ? 'no write sent after it answered yet'
    : `first write sent after it answered after ${seconds(at - since)}`;
}
