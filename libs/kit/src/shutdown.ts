import type { Logger } from 'pino';

export interface Closable {
  name: string;
  close: () => Promise<unknown>;
}

/**
 * Close resources in order on SIGTERM/SIGINT (stop taking work first, then drain, then pools),
 * with a hard deadline so a stuck close cannot keep the process alive forever.
 */
export function closeOnSignals(logger: Logger, steps: Closable[], timeoutMs = 10_000): () => Promise<void> {
  let closing: Promise<void> | undefined;
  const closeAll = () => {
    closing ??= (async () => {
      const timer = setTimeout(() => {
        logger.error('shutdown deadline passed; exiting');
        process.exit(1);
      }, timeoutMs);
      timer.unref();
      for (const step of steps) {
        try {
          await step.close();
          logger.info({ step: step.name }, 'closed');
        } catch (err) {
          logger.error({ step: step.name, err }, 'close failed');
        }
      }
      clearTimeout(timer);
    })();
    return closing;
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      logger.info({ signal }, 'shutting down');
      void closeAll().then(() => process.exit(0));
    });
  }
  return closeAll;
}
