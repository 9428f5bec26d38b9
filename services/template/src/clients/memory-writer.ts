import { type NatsConnection, requestReply } from '@tm/bus';
import {
  type MemoryWriteMessage,
  Subjects,
  MemoryWriteMessage as WriteMessage,
  WriteResponse,
} from '@tm/contracts';
import type { z } from 'zod';

export type WriteMemory = (msg: z.input<typeof MemoryWriteMessage>) => Promise<WriteResponse>;

/**
 * memory.v1.write, as the gateway's own writes make it: the memory service applies consent,
 * idempotency and metering exactly as for any write.
 */
export function createMemoryWriter(nc: NatsConnection, options: { timeoutMs: number }): WriteMemory {
  return (msg) =>
    requestReply(nc, Subjects.memory.write, { input: WriteMessage, output: WriteResponse }, msg, {
      timeoutMs: options.timeoutMs,
      service: 'memory',
    });
}
