import type { NatsConnection } from '@tm/bus';
import {
  DeleteReceipt,
  ForgetReceipt,
  MemoryDeleteMessage,
  MemoryDeletionGetMessage,
  MemoryExportPage,
  MemoryExportPageMessage,
  MemoryForgetMessage,
  MemoryGetMessage,
  MemoryNamespacesMessage,
  MemoryRecallMessage,
  MemoryWriteBatchMessage,
  MemoryWriteBatchReply,
  MemoryWriteMessage,
  NamespacesList,
  RecallResponse,
  StoredMemory,
  Subjects,
  WriteResponse,
} from '@tm/contracts';
import { createServiceClient, endpoint, type ServiceClientOptions } from './service-client.js';

const s = Subjects.memory;

/** The memory service's endpoints, as the gateway calls them. */
const MEMORY_SERVICE = {
  service: 'memory',
  ping: s.ping,
  endpoints: {
    // Concurrent writes are coalesced into one message: fewer bus round trips, and memory retains them
    // in shared statements.
    write: endpoint(s.writeCoalesced, MemoryWriteMessage, WriteResponse, { coalesced: true }),
    // A caller's batch is a message of its own: its items are answered together, in order.
    writeItems: endpoint(s.writeItems, MemoryWriteBatchMessage, MemoryWriteBatchReply),
    recall: endpoint(s.recall, MemoryRecallMessage, RecallResponse),
    delete: endpoint(s.delete, MemoryDeleteMessage, DeleteReceipt),
    getDeletion: endpoint(s.getDeletion, MemoryDeletionGetMessage, DeleteReceipt),
    get: endpoint(s.get, MemoryGetMessage, StoredMemory),
    forget: endpoint(s.forget, MemoryForgetMessage, ForgetReceipt),
    exportPage: endpoint(s.exportPage, MemoryExportPageMessage, MemoryExportPage),
    listNamespaces: endpoint(s.listNamespaces, MemoryNamespacesMessage, NamespacesList),
  },
};

/** Typed, breaker-wrapped calls to the memory service over NATS request/reply. */
export const createMemoryClient = (nc: NatsConnection, options: ServiceClientOptions) =>
  createServiceClient(nc, MEMORY_SERVICE, options);
export type MemoryClient = ReturnType<typeof createMemoryClient>;
