import { AppError, ErrorCode, type ImportJob, type StartImportMessage } from '@tm/contracts';
import {
  findImportJob,
  markImportProcessing,
  markImportProcessingWithinLimit,
} from '../../data-access/import-repository.js';
import { isBeingDeleted, namespaceBeingDeleted, underFence } from '../../data-access/namespace-fence.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { importJobView, isVisibleJob } from './import-job-view.js';
import { datasetImportsInFlight } from './in-flight-imports.js';

/**
 * estimated → processing. The caller's scope is kept with the job: the background writes carry it,
 * so consent and storage are the starter's. Starting again answers the job as it is. A dataset
 * import reads the hub while it runs, so it starts only while the tenant has fewer than its maximum
 * of dataset imports in flight (429 otherwise). A job that expired unstarted cannot start (409).
 */
export async function startImport(
  msg: StartImportMessage,
  deps: { nudge: () => void; maxInFlightPerTenant: number },
  db = getPrisma(),
): Promise<ImportJob> {
  const job = await findImportJob(db, msg.scope.tenant_id, msg.import_id);
  if (!isVisibleJob(job)) throw new AppError(ErrorCode.NotFound, 'No such import');
  // A namespace being deleted starts no import (409); the fence cancelled this one if it was waiting.
  if (job.state === 'estimated' && (await isBeingDeleted(db, job.tenantId, job.namespace))) {
    throw namespaceBeingDeleted();
  }
  const started =
    job.datasetId === null
      ? await underFence(db, job, (tx) => markImportProcessing(tx, job.id, msg.scope), { timeoutMs: 5_000 })
      : await startDatasetImport(db, job, msg, deps.maxInFlightPerTenant);
  if (started) deps.nudge();
  const current = await findImportJob(db, msg.scope.tenant_id, msg.import_id);
  if (!current) throw new AppError(ErrorCode.NotFound, 'No such import');
  // read after the attempt, so a job the expiry sweep took meanwhile is refused too
  if (current.state === 'expired') {
    throw new AppError(
      ErrorCode.VersionConflict,
      `This import expired at ${current.completedAt?.toISOString()} without being started; create it again`,
    );
  }
  return importJobView(current, db);
}

async function startDatasetImport(
  db: ReturnType<typeof getPrisma>,
  job: { id: string; tenantId: string },
  msg: StartImportMessage,
  maxInFlight: number,
): Promise<boolean> {
  const outcome = await markImportProcessingWithinLimit(db, job, msg.scope, {
    maxInFlight,
    inFlight: datasetImportsInFlight(),
  });
  if (outcome === 'busy') {
    throw new AppError(
      ErrorCode.TooManyImports,
      `This tenant already has ${maxInFlight} dataset imports being resolved or read from the hub; retry when one has finished`,
      { retryAfter: 5 },
    );
  }
  return outcome === 'started';
}
