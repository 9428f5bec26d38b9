import { randomUUID } from 'node:crypto';
import { AppError, type CreateRestoreMessage, ErrorCode } from '@tm/contracts';
import { insertImportJobWithinLimit } from '../../data-access/import-repository.js';
import { getPrisma } from '../../data-access/prisma-client.js';
import { uploadsInFlight } from '../imports/in-flight-imports.js';

/** What the worker and the job's view know a restore by: no template, no file. */
export const RESTORE_FORMAT = '(restore)';

/**
 * Opens a restore as an import job of kind `restore`, `uploading` (invisible) until its rows
 * have all arrived and it is started. It counts against the tenant's uploads in flight, as a document
 * upload does while it is received (429 over the limit), so a tenant cannot open restores without end.
 */
export async function createRestore(
  msg: CreateRestoreMessage,
  deps: { maxInFlightPerTenant: number },
  db = getPrisma(),
): Promise<{ restore_id: string }> {
  const id = randomUUID();
  const opened = await insertImportJobWithinLimit(
    db,
    {
      id,
      kind: 'restore',
      tenantId: msg.scope.tenant_id,
      state: 'uploading',
      namespace: msg.namespace,
      fromNamespace: msg.from_namespace,
      format: RESTORE_FORMAT,
      restoreRows: msg.total,
      requestId: msg.request_id,
    },
    { maxInFlight: deps.maxInFlightPerTenant, inFlight: uploadsInFlight() },
  );
  if (!opened) {
    throw new AppError(
      ErrorCode.TooManyImports,
      `This tenant already has ${deps.maxInFlightPerTenant} uploads being received or read; retry when one has finished`,
      { retryAfter: 5 },
    );
  }
  return { restore_id: id };
}
