import { randomUUID } from 'node:crypto';
import type { NatsConnection, Subscription } from '@tm/bus';
import { serveBatchedEndpoint, serveEndpoint } from '@tm/bus';
import {
  MemoryDeleteMessage,
  MemoryDeletionGetMessage,
  MemoryExportPageMessage,
  MemoryGetMessage,
  MemoryNamespacesMessage,
  MemoryRecallMessage,
  MemoryWriteMessage,
  QueueGroups,
  type ServiceSelfReport,
  Subjects,
} from '@tm/contracts';
import { type Logger, storageOutage } from '@tm/kit';
import { z } from 'zod';
import { deleteNamespace } from '../../domain/delete-namespace.js';
import type { DeletionWorker } from '../../domain/deletion-worker.js';
import { exportPage } from '../../domain/export-page.js';
import { getDeletion } from '../../domain/get-deletion.js';
import { getMemory } from '../../domain/get-memory.js';
import { listNamespaces } from '../../domain/list-namespaces.js';
import { recallMemory } from '../../domain/recall-memory.js';
import { writeMemory } from '../../domain/write-memory.js';

const instance = randomUUID();

const mapStorageError = storageOutage('Memory storage');

export function serveMemoryEndpoints(
  nc: NatsConnection,
  options: {
    pricingVersion: string;
    onCommitted: () => void;
    /** Namespace deletion jobs: started by memory.v1.delete, refusing writes while they run. */
    deletions: DeletionWorker;
    /** How long memory.v1.delete waits for its job before answering with the receipt so far. */
    deleteWaitMs: number;
    version: string;
    /** The answer to a ping: its database and bus, for the gateway's health. */
    health: () => Promise<ServiceSelfReport>;
  },
  logger: Logger,
): Subscription[] {
  const queue = QueueGroups.memory;
  const deps = {
    pricingVersion: options.pricingVersion,
    onCommitted: options.onCommitted,
    refusesWrites: options.deletions.refusesWrites,
  };
  const write = {
    queue,
    input: MemoryWriteMessage,
    handler: (m: MemoryWriteMessage) => writeMemory(m, deps),
    mapError: mapStorageError,
  };
  return [
    serveEndpoint(nc, { ...write, subject: Subjects.memory.write }, logger),
    // The gateway's concurrent writes, one message for many; each is answered as above.
    serveBatchedEndpoint(nc, { ...write, subject: Subjects.memory.writeBatch }, logger),
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
        handler: (m) => deleteNamespace(m, options.deletions, options.deleteWaitMs),
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.memory.getDeletion,
        queue,
        input: MemoryDeletionGetMessage,
        handler: getDeletion,
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.memory.get,
        queue,
        input: MemoryGetMessage,
        handler: (m) => getMemory(m),
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.memory.exportPage,
        queue,
        input: MemoryExportPageMessage,
        handler: exportPage,
        mapError: mapStorageError,
      },
      logger,
    ),
    serveEndpoint(
      nc,
      {
        subject: Subjects.memory.listNamespaces,
        queue,
        input: MemoryNamespacesMessage,
        handler: listNamespaces,
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
        handler: async () => ({
          service: 'memory',
          instance,
          version: options.version,
          ...(await options.health()),
        }),
      },
      logger,
    ),
  ];
}
