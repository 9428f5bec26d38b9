/**
 * Gather what arrives in one turn of the event loop and hand it on together: the queue is flushed on
 * `setImmediate` (after the turn's I/O callbacks, so every call made in that turn is in it, and no
 * timer adds a fixed delay), or at once when it is full. Used on both sides of a write: the gateway's
 * coalescing requester (many calls, one bus message) and the memory service's shared statements (many
 * writes, one statement); docs/architecture.md says why a write passes both.
 */
export interface PerTurnCoalescerOptions<T> {
  /** Most items in one batch; the one that fills it flushes at once. */
  maxItems: number;
  /** Most total size in one batch (with `sizeOf`): an item that would pass it flushes the queue first. */
  maxSize?: number;
  sizeOf?: (item: T) => number;
  /** Hand one batch on. Called synchronously from `add` or `setImmediate`; it must settle its items. */
  flush: (batch: T[]) => void;
}

export function createPerTurnCoalescer<T>(options: PerTurnCoalescerOptions<T>): (item: T) => void {
  const { maxItems, maxSize = Number.POSITIVE_INFINITY, sizeOf = () => 0 } = options;
  let queue: T[] = [];
  let queuedSize = 0;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    queuedSize = 0;
    if (batch.length) options.flush(batch);
  };

  return (item) => {
    const size = sizeOf(item);
    if (queue.length > 0 && queuedSize + size > maxSize) flush();
    queue.push(item);
    queuedSize += size;
    if (queue.length >= maxItems) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
}
