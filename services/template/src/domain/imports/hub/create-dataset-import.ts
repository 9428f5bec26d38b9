import { randomUUID } from 'node:crypto';
import { AppError, type CreateDatasetImportMessage, ErrorCode, type ImportJob } from '@tm/contracts';
import type { ReadWritePrice } from '../../../clients/billing-prices.js';
import type { HubClient } from '../../../clients/hub/hub-client.js';
import {
  deleteImportJob,
  findImportJob,
  insertImportJobWithinLimit,
  markDatasetJobEstimated,
} from '../../../data-access/import-repository.js';
import { getPrisma } from '../../../data-access/prisma-client.js';
import { parseFormat } from '../format-string.js';
import { withImportErrors } from '../import-error-to-app-error.js';
import { importJobView } from '../import-job-view.js';
import { datasetImportsInFlight } from '../in-flight-imports.js';
import { resolveImportFormat } from '../resolve-import-format.js';
import { estimateFromHubMetadata } from './estimate-from-hub-metadata.js';
import type { HubTokenBox } from './hub-token-box.js';
import { resolveHubDataset } from './resolve-hub-dataset.js';

export interface DatasetImportDeps {
  hub: HubClient;
  tokens: HubTokenBox;
  price: ReadWritePrice;
  maxRows: number;
  /** All of the hub's metadata calls together, retries included, end within this. */
  probeBudgetMs: number;
  /** Dataset imports a tenant may have in flight (in-flight-imports.ts): more is 429. */
  maxInFlightPerTenant: number;
}

/**
 * Opens an import of a model-hub dataset split and answers its estimate, from the hub's metadata
 * alone: no row is read until the job is started. The job takes its place among the tenant's dataset
 * imports in flight first (`resolving`), so parallel requests cannot all ask the hub at once; every
 * refusal (format, template, the hub's remote_code_required / dataset_gated /
 * dataset_split_unavailable, too many rows) deletes it again, so a refused import leaves nothing.
 * The caller's hub token is kept sealed with the job, for the background reads, and only when one
 * was sent.
 */
export async function createDatasetImport(
  msg: CreateDatasetImportMessage,
  deps: DatasetImportDeps,
  db = getPrisma(),
): Promise<ImportJob> {
  const { request, scope } = msg;
  const mapping = await withImportErrors(() => resolveImportFormat(scope.tenant_id, request, db));
  const id = randomUUID();
  const opened = await insertImportJobWithinLimit(
    db,
    {
      id,
      tenantId: scope.tenant_id,
      state: 'resolving',
      namespace: request.namespace,
      ...mapping,
      datasetId: request.dataset,
      requestId: msg.request_id,
    },
    { maxInFlight: deps.maxInFlightPerTenant, inFlight: datasetImportsInFlight() },
  );
  if (!opened) {
    throw new AppError(
      ErrorCode.TooManyImports,
      `This tenant already has ${deps.maxInFlightPerTenant} dataset imports being resolved or read from the hub; retry when one has finished`,
      { retryAfter: 5 },
    );
  }
  try {
    const split = await resolveHubDataset(request, deps.hub, {
      token: request.hub_token,
      deadline: Date.now() + deps.probeBudgetMs,
    });
    if (split.rows > deps.maxRows) {
      throw new AppError(
        ErrorCode.PayloadTooLarge,
        `Split ${split.split} of ${split.dataset} holds ${split.rows} rows; an import takes at most ${deps.maxRows}`,
      );
    }
    const price = await deps.price();
    const estimate = await withImportErrors(async () =>
      estimateFromHubMetadata(parseFormat(mapping.format), split, price),
    );
    await markDatasetJobEstimated(db, id, {
      datasetId: split.dataset,
      datasetConfig: split.config,
      datasetSplit: split.split,
      datasetRevision: split.sha,
      datasetRows: split.rows,
      hubTokenSealed: request.hub_token === undefined ? null : deps.tokens.seal(request.hub_token, id),
      estimate,
    });
  } catch (err) {
    await deleteImportJob(db, id);
    throw err;
  }
  const job = await findImportJob(db, scope.tenant_id, id);
  // gone meanwhile: its namespace was deleted
  if (!job || job.state === 'resolving') throw new AppError(ErrorCode.NotFound, 'No such import');
  return importJobView(job, db);
}
