import { createGuardedService, type NatsConnection, requestReply } from '@tm/bus';
import {
  type MemoryWriteMessage,
  Subjects,
  MemoryWriteMessage as WriteMessage,
  WriteResponse,
} from '@tm/contracts';
import type { Logger } from '@tm/kit';
import type { z } from 'zod';

export type WriteMemory = (msg: z.input<typeof MemoryWriteMessage>) => Promise<WriteResponse>;

/**
 * memory.v1.write, as the gateway's own writes make it: the memory service applies consent,
 * idempotency and metering exactly as for any write. Behind the breaker the gateway's calls have:
 * while memory is not there, writes fail at once with a retryable 503 (an import's rows stay
 * pending), and memory's answer to a ping closes it again. `stop` ends the breaker's timers.
 */
export function createMemoryWriter(
  nc: NatsConnection,
  options: { timeoutMs: number; breakerResetMs: number; logger: Logger },
): { write: WriteMemory; stop: () => void } {
  const service = 'memory';
  const request = { timeoutMs: options.timeoutMs, service };
  const { breaker, call } = createGuardedService(nc, {
    service,
    pingSubject: Subjects.memory.ping,
    resetMs: options.breakerResetMs,
    pingTimeoutMs: options.timeoutMs,
    logger: options.logger,
  });
  const write: WriteMemory = (msg) =>
    call(() =>
      requestReply(nc, Subjects.memory.write, { input: WriteMessage, output: WriteResponse }, msg, request),
    );
  return { write, stop: () => breaker.shutdown() };
}
