/**
 * How many uploads this instance reads at once. Reading is CPU- and memory-bound (a workbook's shared
 * strings are held while its sheet streams), so past the limit an upload is refused (429, retryable)
 * rather than queued behind the others towards the gateway's parse deadline.
 */
export interface ReadSlots {
  /** A release function, or undefined when every slot is taken. Releasing twice frees one slot. */
  tryAcquire(): (() => void) | undefined;
}

export function createReadSlots(max: number): ReadSlots {
  let inUse = 0;
  return {
    tryAcquire() {
      if (inUse >= max) return undefined;
      inUse += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        inUse -= 1;
      };
    },
  };
}
