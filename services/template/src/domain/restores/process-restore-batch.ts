import { createHash } from 'node:crypto';
import { AppError, CONTRACT_VERSION, ErrorCode, RestoreRow, Scope } from '@tm/contracts';
import type { WriteMemory } from '../../clients/memory-writer.js';
import {
  findPendingRows,
  type ImportJobRecord,
  type RowOutcome,
  settleImportRow,
} from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { finishImportJob } from '../imports/finish-import-job.js';

/**
 * The key a restored record is written under: the same for the same record restored into the same
 * namespace, whichever file or job carries it, so a second restore replays rather than stores. The
 * ledger is per tenant, hence the namespace in it; hashed, since a namespace (128) and an event id (256)
 * together would pass the key's 255 characters.
 */
export const restoreIdempotencyKey = (namespace: string, eventId: string) =>
  `restore:${createHash('sha256').update(`${namespace}\n${eventId}`).digest('hex')}`;

type Row = Awaited<ReturnType<typeof findPendingRows>>[number];

/**
 * Writes the next pending records of a restore and settles each. Records are written in the
 * export's order (as they were first retained), since a supersession's outcome depends on what was
 * there when its record was written: a record that supersedes is written alone, after every record
 * before it has settled and before any after it starts; the plain records between two of them go
 * `concurrency` at a time (the memory service shares statements across them).
 * An outage (a retryable error) leaves the record pending and ends the batch; nothing after it starts,
 * so the order holds when the worker tries again. Returns false once nothing is pending (then completed,
 * with its import.completed event of kind `restore`).
 */
export async function processRestoreBatch(
  job: ImportJobRecord,
  deps: { writeMemory: WriteMemory; batchSize: number; concurrency: number; onCommitted?: () => void },
  db = getPrisma(),
): Promise<boolean> {
  const rows = await findPendingRows(db, job.id, deps.batchSize);
  if (rows.length === 0) {
    await finishImportJob(job.id, { state: 'completed' }, deps, db);
    return false;
  }
  const scope = Scope.parse(job.scope);

  async function settle(row: Row): Promise<void> {
    await settleImportRow(db, job.id, row.rowNumber, await outcomeOf(row));
  }

  async function outcomeOf(row: Row): Promise<RowOutcome> {
    const { event } = RestoreRow.parse(row.values);
    const eventId = event.event_id ?? '';
    try {
      const written = await deps.writeMemory({
        scope,
        request_id: job.requestId,
        idempotency_key: restoreIdempotencyKey(job.namespace, eventId),
        body: {
          contract_version: CONTRACT_VERSION,
          operation: 'memory.write',
          namespace: job.namespace,
          event,
        },
      });
      if (written.state !== 'retained') {
        return {
          state: 'failed',
          reason: 'not_retained',
          message: 'Not retained: storage consent is missing',
        };
      }
      // A replay of this job's own write (sent again after an outage) is still this job's record.
      const ours =
        written.idempotency_outcome === 'Accepted' || written.original_request_id === job.requestId;
      return { state: ours ? 'retained' : 'present', memoryId: written.memory_id };
    } catch (err) {
      if (!(err instanceof AppError) || err.retryable) throw err; // an outage: the record stays pending
      // The event id is already retained in the namespace under another key (its original write):
      // the record is there, and is not written twice.
      if (err.code === ErrorCode.DuplicateEvent) return { state: 'present', memoryId: null };
      return { state: 'failed', reason: 'write_refused', message: err.message };
    }
  }

  let plain: Row[] = [];
  for (const row of rows) {
    const supersedes = (row.values as { event?: { supersedes?: unknown[] } } | null)?.event?.supersedes;
    if (!supersedes?.length) {
      plain.push(row);
      continue;
    }
    await inLanes(plain, deps.concurrency, settle);
    plain = [];
    await settle(row);
  }
  await inLanes(plain, deps.concurrency, settle);
  return true;
}

/** `work` over `rows`, `lanes` at a time; after a failure no lane starts another row. */
async function inLanes<T>(rows: T[], lanes: number, work: (row: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failed = false;
  async function lane(): Promise<void> {
    while (!failed && next < rows.length) {
      const row = rows[next++] as T;
      try {
        await work(row);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  }
  const results = await Promise.allSettled(Array.from({ length: Math.min(lanes, rows.length) }, lane));
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) throw failure.reason;
}
