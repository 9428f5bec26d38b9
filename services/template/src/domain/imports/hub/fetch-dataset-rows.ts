import { AppError, ErrorCode } from '@tm/contracts';
import type { HubClient } from '../../../clients/hub/hub-client.js';
import type { Prisma } from '../../../data-access/generated/client.js';
import {
  countAllImportRows,
  countPendingImportRows,
  type ImportJobRecord,
  insertImportRows,
  setDatasetRows,
} from '../../../data-access/import-repository.js';
import { getPrisma } from '../../../data-access/prisma-client.js';
import { finishImportJob } from '../finish-import-job.js';
import { refuseDeepValues } from '../parsing/refuse-deep-values.js';
import { refuseNulValues } from '../parsing/refuse-nul-values.js';
import { whileJobProcessing } from '../while-job-processing.js';
import { hubRefusal } from './hub-refusal.js';
import type { HubTokenBox } from './hub-token-box.js';

/** A page's rows kept in one statement; the hold on the fence lock is that insert's. */
const PAGE_TIMEOUT_MS = 60_000;

export interface DatasetRowDeps {
  hub: HubClient;
  tokens: HubTokenBox;
  /** Rows per /rows page (the viewer serves at most 100). */
  pageRows: number;
  /** Pending rows to have in hand before a batch is written. */
  batchSize: number;
  /** A job failed: its import.failed event is in the outbox (the relay's nudge). */
  onCommitted?: () => void;
}

/**
 * Reads a dataset import's next rows from the hub into `import_row` (pending), a page at a time,
 * until a batch is in hand or the split is read; the job's rows are then written like a file's.
 * Where to go on is the count of rows already read, so a restart resumes at the next page, and rows
 * read twice (two instances) are kept once. The dataset is checked to still be at the job's commit
 * first: a changed dataset, a token no longer accepted or a split gone fail the job (it cannot go on);
 * a hub outage is thrown (retryable) and the worker tries again later. Returns false when the job failed,
 * or was cancelled (its namespace deleted) while a page was read: that page is not kept.
 */
export async function fetchDatasetRows(
  job: ImportJobRecord,
  deps: DatasetRowDeps,
  db = getPrisma(),
): Promise<boolean> {
  const { datasetId: dataset, datasetConfig: config, datasetSplit: split, datasetRevision: sha } = job;
  if (dataset === null || config === null || split === null || sha === null) return true;
  let expected = job.datasetRows ?? 0;
  let read = await countAllImportRows(db, job.id);
  let pending = await countPendingImportRows(db, job.id);
  if (pending >= deps.batchSize || read >= expected) return true;

  const fail = async (error: AppError) => {
    await finishImportJob(
      job.id,
      { state: 'failed', error: { code: error.code, message: error.message } },
      deps,
      db,
    );
    return false;
  };
  let token: string | undefined;
  if (job.hubTokenSealed !== null) {
    token = deps.tokens.open(job.hubTokenSealed, job.id);
    if (token === undefined) {
      return fail(
        new AppError(
          ErrorCode.DatasetGated,
          'The hub token of this import can no longer be read (the service’s key changed); start a new import with the token',
        ),
      );
    }
  }
  const context = { dataset, tokenSent: token !== undefined, restricted: token !== undefined, available: [] };

  const current = await deps.hub.metadata(dataset, undefined, { token });
  if (!current.ok) return fail(hubRefusal(current, context));
  if (current.data.sha !== sha) {
    return fail(
      new AppError(
        ErrorCode.DatasetRevisionChanged,
        `Dataset ${dataset} changed on the hub while it was imported (revision ${sha} is now ${current.data.sha}); ` +
          `the ${read} rows read so far were kept: start a new import for the rest`,
      ),
    );
  }

  while (pending < deps.batchSize && read < expected) {
    const length = Math.min(deps.pageRows, expected - read);
    const page = await deps.hub.rows({ dataset, config, split, offset: read, length }, { token });
    if (!page.ok) return fail(hubRefusal(page, context));
    const rows = page.data.rows.slice(0, length);
    if (rows.length === 0) {
      // the split holds fewer rows than its metadata said: the job ends with what there is
      expected = Math.min(read, page.data.num_rows_total);
      await setDatasetRows(db, job.id, expected);
      break;
    }
    // The hub is read outside the fence, for as long as it takes: the namespace's deletion may have
    // cancelled the job and removed its rows meanwhile, and rows kept after that would outlive it.
    const kept = await whileJobProcessing(
      job,
      db,
      async (tx) => {
        await insertImportRows(
          tx,
          rows.map((entry, i) => importRowOf(job.id, read + i, entry.row, entry.truncated_cells)),
        );
        return true;
      },
      PAGE_TIMEOUT_MS,
    );
    if (!kept) return false;
    read += rows.length;
    pending += rows.length;
  }
  return true;
}

/**
 * One row as the hub served it. A cell the viewer truncated would give an incomplete memory, so the
 * row fails (`malformed_row`), as does a value holding NUL or nested too deep; the others go on.
 */
function importRowOf(
  importId: string,
  rowNumber: number,
  values: Record<string, unknown>,
  truncated: string[],
): Prisma.ImportRowCreateManyInput {
  const checked = refuseNulValues(refuseDeepValues({ ok: true, row: rowNumber, values }));
  const error = !checked.ok
    ? checked.error
    : truncated.length > 0
      ? `Row ${rowNumber}: the hub served truncated cells (${truncated.join(', ')}); its text would be incomplete`
      : undefined;
  return error === undefined
    ? { importId, rowNumber, values: values as Prisma.InputJsonValue, state: 'pending' }
    : { importId, rowNumber, state: 'pending', reason: 'malformed_row', message: error };
}
