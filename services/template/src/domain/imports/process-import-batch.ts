import { AppError, CONTRACT_VERSION, Scope } from '@tm/contracts';
import type { WriteMemory } from '../../clients/memory-writer.js';
import {
  findPendingRows,
  type ImportJobRecord,
  settleImportRow,
} from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { finishImportJob } from './finish-import-job.js';
import { parseFormat } from './format-string.js';
import { datasetSourceId, HUB_DATASET_SOURCE_TYPE } from './hub/dataset-source-stamp.js';
import { renderImportRow } from './render-import-row.js';

type Outcome = { state: 'retained'; memoryId: string } | { state: 'failed'; reason: string; message: string };

/** The key that makes a row one write however often it is sent: a resumed job replays, never duplicates. */
export const importRowIdempotencyKey = (importId: string, row: number) => `import:${importId}:${row}`;

/**
 * Writes the next pending rows of a job, `concurrency` at a time, and settles each. A row that cannot
 * become a memory fails with its reason and the rest go on. An outage of the memory service (a
 * retryable error) leaves the row pending and ends the batch: the worker tries again later. Returns
 * false when the job had no pending rows left (and is now completed, its import.completed event with it).
 */
export async function processImportBatch(
  job: ImportJobRecord,
  deps: { writeMemory: WriteMemory; batchSize: number; concurrency: number; onCommitted?: () => void },
  db = getPrisma(),
): Promise<boolean> {
  const rows = await findPendingRows(db, job.id, deps.batchSize);
  if (rows.length === 0) {
    await finishImportJob(job.id, { state: 'completed' }, deps, db);
    return false;
  }
  const parsed = parseFormat(job.format);
  const scope = Scope.parse(job.scope);
  // every write of a job carries its start time, so a re-sent row is the very same write (a replay)
  const occurredAt = (job.startedAt ?? job.createdAt).toISOString();

  async function outcomeOf(row: (typeof rows)[number]): Promise<Outcome> {
    if (row.values === null) {
      return {
        state: 'failed',
        reason: row.reason ?? 'malformed_row',
        message: row.message ?? 'Unreadable row',
      };
    }
    const rendered = renderImportRow(parsed, row.values as Record<string, unknown>);
    if (!rendered.ok) return { state: 'failed', reason: rendered.reason, message: rendered.message };
    try {
      const written = await deps.writeMemory({
        scope,
        request_id: job.requestId,
        idempotency_key: importRowIdempotencyKey(job.id, row.rowNumber),
        body: {
          contract_version: CONTRACT_VERSION,
          operation: 'memory.write',
          namespace: job.namespace,
          event: {
            occurred_at: occurredAt,
            content: { text: rendered.text },
            source: sourceOf(job, row.rowNumber),
          },
        },
      });
      if (written.state === 'retained' && written.memory_id !== null) {
        return { state: 'retained', memoryId: written.memory_id };
      }
      return { state: 'failed', reason: 'not_retained', message: 'Not retained: storage consent is missing' };
    } catch (err) {
      if (err instanceof AppError && !err.retryable) {
        return { state: 'failed', reason: 'write_refused', message: err.message };
      }
      throw err; // an outage: the row stays pending
    }
  }

  let next = 0;
  async function lane(): Promise<void> {
    while (next < rows.length) {
      const row = rows[next++];
      if (!row) return;
      await settleImportRow(db, job.id, row.rowNumber, await outcomeOf(row));
    }
  }
  await Promise.all(Array.from({ length: Math.min(deps.concurrency, rows.length) }, lane));
  return true;
}

/** A file's row names its job and row; a dataset's, the dataset, commit, config, split and row it came from. */
function sourceOf(job: ImportJobRecord, row: number): { type: string; id: string } {
  const { datasetId, datasetConfig, datasetSplit, datasetRevision } = job;
  if (datasetId !== null && datasetConfig !== null && datasetSplit !== null && datasetRevision !== null) {
    return {
      type: HUB_DATASET_SOURCE_TYPE,
      id: datasetSourceId({
        dataset: datasetId,
        revision: datasetRevision,
        config: datasetConfig,
        split: datasetSplit,
        row,
      }),
    };
  }
  return { type: 'import', id: `import:${job.id}:${row}` };
}
