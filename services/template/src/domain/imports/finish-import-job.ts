import { enqueueOutbox } from '@tm/bus';
import { type ImportCompletedEvent, type ImportFailedEvent, Subjects } from '@tm/contracts';
import { prismaRunner, timeOrderedId } from '@tm/kit';
import { markImportCompleted, markImportFailed } from '../../data-access/import-repository.js';
import { countImportRows } from '../../data-access/import-row-counts.js';
import { getPrisma } from '../../data-access/prisma-client.js';

/** How a job in `processing` ends: every row settled, or stopped with why. */
export type ImportEnd =
  | { state: 'completed' }
  | { state: 'failed'; error: { code: string; message: string } };

/**
 * Ends a job (an import or a restore) in `processing`, and commits its import.completed or
 * import.failed event (the webhooks service's) to the outbox in the same transaction: the event
 * exists exactly when the job ended, once (a job no longer processing, e.g. ended by another instance
 * or gone with its namespace, writes nothing). Its counts are its rows as the status route counts
 * them, read in that transaction; never the rows' values, the error's message or the hub token.
 * Returns whether this call ended it.
 */
export async function finishImportJob(
  importId: string,
  end: ImportEnd,
  deps: { onCommitted?: () => void } = {},
  db = getPrisma(),
): Promise<boolean> {
  const at = new Date();
  const ended = await db.$transaction(async (tx) => {
    const job =
      end.state === 'completed'
        ? await markImportCompleted(tx, importId, at)
        : await markImportFailed(tx, importId, end.error, at);
    if (!job) return false;
    const rows = await countImportRows(tx, job.id);
    const eventId = timeOrderedId();
    const finished = {
      version: 'v1' as const,
      event_id: eventId,
      tenant_id: job.tenantId,
      import_id: job.id,
      kind: job.kind === 'restore' ? ('restore' as const) : ('import' as const),
      namespace: job.namespace,
      // a dataset's total is the split's (from the hub), as its status route says
      total: job.datasetRows ?? rows.pending + rows.retained + rows.present + rows.failed,
      retained: rows.retained,
      already_present: rows.present,
      failed: rows.failed,
      request_id: job.requestId,
      occurred_at: at.toISOString(),
    };
    if (end.state === 'completed') {
      await enqueueOutbox(
        prismaRunner(tx),
        Subjects.template.importCompleted,
        { ...finished, state: 'completed' } satisfies ImportCompletedEvent,
        eventId,
      );
    } else {
      await enqueueOutbox(
        prismaRunner(tx),
        Subjects.template.importFailed,
        { ...finished, state: 'failed', error_code: end.error.code } satisfies ImportFailedEvent,
        eventId,
      );
    }
    return true;
  });
  if (ended) deps.onCommitted?.();
  return ended;
}
