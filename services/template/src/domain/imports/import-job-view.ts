import {
  ErrorCodeSchema,
  type ImportEstimate,
  ImportFileKind,
  type ImportJob,
  ImportState,
} from '@tm/contracts';
import type { ImportJobRecord } from '../../data-access/import-repository.js';
import { countImportRows, type RowCounts } from '../../data-access/import-row-counts.js';
import { getPrisma } from '../../data-access/prisma-client.js';

const EMPTY_ESTIMATE: ImportEstimate = {
  rows: 0,
  rows_malformed: 0,
  rows_empty_render: 0,
  rows_too_long: 0,
  rows_missing_value: 0,
  billable_rows: 0,
  placeholders_without_column: [],
  warnings: [],
  pricing_version: '',
  unit_price_usd: 0,
  estimated_cost_usd: 0,
};

/**
 * A job callers may see: not an upload still arriving (`uploading`), nor a dataset import whose hub
 * has not answered yet (`resolving`); until then the job is not one, and its id was never given out.
 */
export function isVisibleJob(job: ImportJobRecord | null): job is ImportJobRecord {
  return job !== null && job.state !== 'uploading' && job.state !== 'resolving';
}

/** A job as callers see it, its progress counted from its rows (a cancelled one's as they stood when it stopped). */
export async function importJobView(job: ImportJobRecord, db = getPrisma()): Promise<ImportJob> {
  const counts = (job.finalCounts as RowCounts | null) ?? (await countImportRows(db, job.id));
  return {
    id: job.id,
    state: ImportState.parse(job.state),
    file_name: job.fileName,
    file_kind: job.fileKind === null ? null : ImportFileKind.parse(job.fileKind),
    dataset: datasetOf(job),
    namespace: job.namespace,
    format: job.format,
    template_name: job.templateName,
    marketplace_template_id: job.marketplaceTemplateId,
    // a dataset's rows are read as the job goes: its total is the split's, from the hub
    total: job.datasetRows ?? counts.pending + counts.retained + counts.failed,
    processed: counts.retained + counts.failed,
    retained: counts.retained,
    failed: counts.failed,
    // over the empty one: an estimate stored before a count existed (rows_missing_value) reads 0 for it
    estimate: { ...EMPTY_ESTIMATE, ...(job.estimate as Partial<ImportEstimate> | null) },
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    completed_at: job.completedAt?.toISOString() ?? null,
    error:
      job.errorCode === null
        ? null
        : { code: ErrorCodeSchema.parse(job.errorCode), message: job.errorMessage ?? '' },
  };
}

function datasetOf(job: ImportJobRecord): ImportJob['dataset'] {
  const { datasetId, datasetConfig, datasetSplit, datasetRevision } = job;
  if (datasetId === null || datasetConfig === null || datasetSplit === null || datasetRevision === null)
    return null;
  return { id: datasetId, config: datasetConfig, split: datasetSplit, revision: datasetRevision };
}
