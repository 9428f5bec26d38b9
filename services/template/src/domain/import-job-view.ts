import { type ImportEstimate, ImportFileKind, type ImportJob, ImportState } from '@tm/contracts';
import { countImportRows, type ImportJobRecord } from '../data-access/import-repository.js';
import { getPrisma } from '../data-access/prisma-client.js';

const EMPTY_ESTIMATE: ImportEstimate = {
  rows: 0,
  rows_malformed: 0,
  rows_empty_render: 0,
  rows_too_long: 0,
  billable_rows: 0,
  placeholders_without_column: [],
  warnings: [],
  pricing_version: '',
  unit_price_usd: 0,
  estimated_cost_usd: 0,
};

/** A job as callers see it, its progress counted from its rows. */
export async function importJobView(job: ImportJobRecord, db = getPrisma()): Promise<ImportJob> {
  const counts = await countImportRows(db, job.id);
  return {
    id: job.id,
    state: ImportState.parse(job.state),
    file_name: job.fileName,
    file_kind: ImportFileKind.parse(job.fileKind),
    namespace: job.namespace,
    format: job.format,
    template_name: job.templateName,
    marketplace_template_id: job.marketplaceTemplateId,
    total: counts.pending + counts.retained + counts.failed,
    processed: counts.retained + counts.failed,
    retained: counts.retained,
    failed: counts.failed,
    estimate: (job.estimate as ImportEstimate | null) ?? EMPTY_ESTIMATE,
    created_at: job.createdAt.toISOString(),
    started_at: job.startedAt?.toISOString() ?? null,
    completed_at: job.completedAt?.toISOString() ?? null,
  };
}
