import { createBatchedRequester, type NatsConnection, requestReply } from '@tm/bus';
import {
  DeleteReceipt,
  MemoryDeleteMessage,
  MemoryExportPage,
  MemoryExportPageMessage,
  MemoryGetMessage,
  MemoryRecallMessage,
  MemoryWriteMessage,
  PingReply,
  RecallResponse,
  StoredMemory,
  Subjects,
  WriteResponse,
} from '@tm/contracts';
import type { Logger } from '@tm/kit';
import { z } from 'zod';
import { createBreaker } from './breaker.js';

/** Typed, breaker-wrapped calls to the memory service over NATS request/reply. */
export function createMemoryClient(
  nc: NatsConnection,
  options: { timeoutMs: number; breakerResetMs: number; logger: Logger },
) {
  const { breaker, call } = createBreaker({
    name: 'memory',
    resetMs: options.breakerResetMs,
    logger: options.logger,
  });
  const opts = { timeoutMs: options.timeoutMs, service: 'memory' };
  // Concurrent writes share a message: fewer bus round trips, and memory retains them in one statement.
  const writeBatched = createBatchedRequester(
    nc,
    Subjects.memory.writeBatch,
    { input: MemoryWriteMessage, output: WriteResponse },
    opts,
  );
  return {
    breaker,
    write: (msg: z.input<typeof MemoryWriteMessage>) => call(() => writeBatched(msg)),
    recall: (msg: z.input<typeof MemoryRecallMessage>) =>
      call(() =>
        requestReply(
          nc,
          Subjects.memory.recall,
          { input: MemoryRecallMessage, output: RecallResponse },
          msg,
          opts,
        ),
      ),
    delete: (msg: z.input<typeof MemoryDeleteMessage>) =>
      call(() =>
        requestReply(
          nc,
          Subjects.memory.delete,
          { input: MemoryDeleteMessage, output: DeleteReceipt },
          msg,
          opts,
        ),
      ),
    get: (msg: z.input<typeof MemoryGetMessage>) =>
      call(() =>
        requestReply(nc, Subjects.memory.get, { input: MemoryGetMessage, output: StoredMemory }, msg, opts),
      ),
    exportPage: (msg: z.input<typeof MemoryExportPageMessage>) =>
      call(() =>
        requestReply(
          nc,
          Subjects.memory.exportPage,
          { input: MemoryExportPageMessage, output: MemoryExportPage },
          msg,
          opts,
        ),
      ),
    /** Health probe: bypasses the breaker so an open breaker cannot hide a recovered service. */
    ping: (timeoutMs: number) =>
      requestReply(
        nc,
        Subjects.memory.ping,
        { input: z.object({}), output: PingReply },
        {},
        { timeoutMs, service: 'memory' },
      ),
  };
}
export type MemoryClient = ReturnType<typeof createMemoryClient>;
