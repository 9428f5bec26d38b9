import { randomUUID } from 'node:crypto';
import type { NatsConnection, Subscription } from '@tm/bus';
import { serveEndpoint } from '@tm/bus';
import {
  AppError,
  ErrorCode,
  MemoryDeleteMessage,
  MemoryRecallMessage,
  MemoryWriteMessage,
  QueueGroups,
  Subjects,
} from '@tm/contracts';
import { isStorageUnavailable, type Logger } from '@tm/kit';
import { z } from 'zod';
import { deleteNamespace } from '../../domain/delete-namespace.js';
import { recallMemory } from '../../domain/recall-memory.js';
import { writeMemory } from '../../domain/write-memory.js';

const instance = randomUUID();

/** A database outage is the caller's cue to retry, not an internal error. */
const mapStorageError = (err: unknown) =>
  isStorageUnavailable(err)
    ? new AppError(ErrorCode.StorageUnavailable, 'Memory storage is unavailable; retry shortly', {
        retryAfter: 2,
        cause: err,
      })
    : undefined;

export function serveMemoryEndpoints(
  nc: NatsConnection,
  options: { pricingVersion: string; onCommitted: () => void; version: string },
  logger: Logger,
): Subscription[] {
  const queue = QueueGroups.memory;
  const deps = { pricingVersion: options.pricingVersion, onCommitted: options.onCommitted };
  return [
    serveEndpoint(
      nc,
      {
        subject: Subjects.memory.write,
        queue,
        input: MemoryWriteMessage,
        handler: (m) => writeMemory(m, deps),
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.memory.recall,
        queue,
        input: MemoryRecallMessage,
        handler: (m) => recallMemory(m, deps),
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.memory.delete,
        queue,
        input: MemoryDeleteMessage,
        handler: (m) => deleteNamespace(m),
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.memory.ping,
        queue,
        input: z.unknown(),
        handler: async () => ({ service: 'memory', instance, version: options.version }),
      },
      logger,
    ),
  ];
}
