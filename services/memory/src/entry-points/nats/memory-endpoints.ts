import { type Service, toBusErrorBody } from '@tm/bus';
import {
  ErrorCode,
  MemoryDeleteMessage,
  MemoryDeletionGetMessage,
  MemoryExportPageMessage,
  MemoryForgetMessage,
  MemoryGetMessage,
  MemoryNamespacesMessage,
  MemoryRecallMessage,
  MemoryTextMessage,
  MemoryWriteBatchMessage,
  type MemoryWriteBatchReply,
  MemoryWriteMessage,
  Subjects,
} from '@tm/contracts';
import type { Logger } from '@tm/kit';
import { cueTerms } from '../../domain/cue-terms.js';
import { deleteNamespace } from '../../domain/delete-namespace.js';
import type { DeletionWorker } from '../../domain/deletion-worker.js';
import { exportPage } from '../../domain/export-page.js';
import { forgetMemory } from '../../domain/forget-memory.js';
import { getDeletion } from '../../domain/get-deletion.js';
import { getMemory } from '../../domain/get-memory.js';
import { getMemoryText } from '../../domain/get-memory-text.js';
import { listNamespaces } from '../../domain/list-namespaces.js';
import type { RecallAdmission } from '../../domain/recall-admission.js';
import { recallMemory } from '../../domain/recall-memory.js';
import { writeMemory } from '../../domain/write-memory.js';
import { writeMemoryBatch } from '../../domain/write-memory-batch.js';

/** The memory service's request/reply endpoints (its ping and discovery are the service's own). */
export function serveMemoryEndpoints(
  service: Service,
  options: {
    pricingVersion: string;
    onCommitted: () => void;
    /** Namespace deletion jobs: started by memory.v1.delete, refusing writes while they run. */
    deletions: DeletionWorker;
    /** How long memory.v1.delete waits for its job before answering with the receipt so far. */
    deleteWaitMs: number;
    /** Recalls run in turn per tenant; what cannot start in time is refused up front. */
    recalls: RecallAdmission;
    /** For a batch item's own unexpected failure, answered as that item's 500. */
    logger: Logger;
  },
): void {
  const deps = {
    pricingVersion: options.pricingVersion,
    onCommitted: options.onCommitted,
    refusesWrites: options.deletions.refusesWrites,
  };
  const write = {
    input: MemoryWriteMessage,
    handler: (m: MemoryWriteMessage) => writeMemory(m, deps),
  };
  service.endpoint({ ...write, subject: Subjects.memory.write });
  // The gateway's concurrent writes, coalesced into one message; each is answered as above.
  service.coalescedEndpoint({ ...write, subject: Subjects.memory.writeCoalesced });
  // A caller's batch to one namespace: each item as above, its error its own answer.
  service.endpoint({
    subject: Subjects.memory.writeItems,
    input: MemoryWriteBatchMessage,
    handler: async (m: MemoryWriteBatchMessage): Promise<MemoryWriteBatchReply> => ({
      version: 'v1',
      results: (await writeMemoryBatch(m, deps)).map((answer) => {
        if (!('error' in answer)) return answer;
        if (answer.error.code === ErrorCode.Internal) {
          options.logger.error(
            { err: answer.error.cause, subject: Subjects.memory.writeItems },
            'batch item failed',
          );
        }
        return { error: toBusErrorBody(answer.error) };
      }),
    }),
  });
  service.endpoint({
    subject: Subjects.memory.recall,
    input: MemoryRecallMessage,
    handler: (m) => {
      const cue = cueTerms(m.body.cue.text);
      return options.recalls.run(m, cue, () => recallMemory(m, deps, cue));
    },
  });
  service.endpoint({
    subject: Subjects.memory.delete,
    input: MemoryDeleteMessage,
    handler: (m) => deleteNamespace(m, options.deletions, options.deleteWaitMs),
  });
  service.endpoint({
    subject: Subjects.memory.getDeletion,
    input: MemoryDeletionGetMessage,
    handler: getDeletion,
  });
  service.endpoint({
    subject: Subjects.memory.get,
    input: MemoryGetMessage,
    handler: (m) => getMemory(m),
  });
  service.endpoint({
    subject: Subjects.memory.forget,
    input: MemoryForgetMessage,
    handler: (m) => forgetMemory(m, { onCommitted: options.onCommitted }),
  });
  service.endpoint({
    subject: Subjects.memory.getText,
    input: MemoryTextMessage,
    handler: (m) => getMemoryText(m),
  });
  service.endpoint({
    subject: Subjects.memory.exportPage,
    input: MemoryExportPageMessage,
    handler: exportPage,
  });
  service.endpoint({
    subject: Subjects.memory.listNamespaces,
    input: MemoryNamespacesMessage,
    handler: listNamespaces,
  });
}
