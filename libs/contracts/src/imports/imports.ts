import { z } from 'zod';
import { Scope } from '../control/scope.js';
import { ErrorCodeSchema } from '../http/envelope.js';
import { queryInteger } from '../http/query-integer.js';
import { Namespace } from '../memory/memory.js';
import { TemplateName } from '../templates/templates.js';

/**
 * Document import: a CSV, XLSX, XLS or JSON upload becomes one memory per row, rendered by a
 * format string. The gateway streams the upload to the template service in chunks; the template
 * service parses it into `import_row`s, estimates, and retains the rows in the background.
 */

export const IMPORT_LIMITS = {
  /** Bytes per upload chunk on the bus (base64 makes it a third larger, well under NATS' 1 MiB). */
  chunkBytes: 256 * 1024,
  failuresPage: { default: 50, max: 500 },
  fileNameMaxChars: 255,
} as const;

/** Imports that name no namespace land here. */
export const DEFAULT_IMPORT_NAMESPACE = 'imports';

export const ImportState = z
  .enum(['estimated', 'processing', 'completed', 'failed', 'expired', 'cancelled'])
  .meta({
    description:
      'estimated → (start) processing → completed; failed if the job cannot go on; expired if it was not ' +
      'started in time (its stored rows and any hub token are gone, and it cannot be started); cancelled ' +
      'when its namespace was deleted before it ended (its counts are those when it stopped, its rows are gone)',
  });
export type ImportState = z.infer<typeof ImportState>;

export const ImportFileKind = z.enum(['csv', 'xlsx', 'xls', 'json']);

/** Why one row was not retained; the other rows go on. */
export const ImportFailureReason = z
  .enum(['malformed_row', 'empty_render', 'missing_value', 'text_too_long', 'not_retained', 'write_refused'])
  .meta({
    description:
      'malformed_row: the reader could not use it; empty_render: its text renders empty; missing_value: a ' +
      'placeholder without a default found its cell empty (the message names the column, never a value; ' +
      'write {col|…} or a section {#col}…{/col} to allow it empty); text_too_long: over the memory text ' +
      'limit; not_retained: no storage consent; write_refused: the memory service refused the write',
  });
export type ImportFailureReason = z.infer<typeof ImportFailureReason>;

export const ImportEstimate = z
  .object({
    rows: z.number().int().meta({ description: 'Data rows read from the file' }),
    rows_malformed: z.number().int().meta({ description: 'Rows the reader could not use' }),
    rows_empty_render: z.number().int().meta({ description: 'Rows whose text would render empty' }),
    rows_missing_value: z
      .number()
      .int()
      .meta({
        description:
          'Rows left out because a placeholder without a default found its cell empty (a sentence cut ' +
          'short); `warnings` names each such column and how many rows. Always 0 for a dataset import, ' +
          'whose rows are read only once started',
      }),
    rows_too_long: z
      .number()
      .int()
      .meta({ description: 'Rows whose text would exceed the memory text limit' }),
    billable_rows: z
      .number()
      .int()
      .meta({ description: 'Rows that would be written, each one memory.write unit' }),
    placeholders_without_column: z.array(z.string()),
    warnings: z
      .array(z.string())
      .meta({ description: 'Plain sentences on what will not be written and why; never a cell’s value' }),
    pricing_version: z.string(),
    unit_price_usd: z.number(),
    estimated_cost_usd: z
      .number()
      .meta({ description: 'billable_rows × unit_price_usd (sandbox; nothing is charged)' }),
  })
  .meta({ id: 'ImportEstimate' });
export type ImportEstimate = z.infer<typeof ImportEstimate>;

/** A dataset import's source as the hub resolved it; every memory it writes carries the same stamp. */
export const ImportDatasetSource = z
  .object({
    id: z.string(),
    config: z.string(),
    split: z.string(),
    revision: z.string().meta({ description: 'The commit sha the hub reported when the import was made' }),
  })
  .meta({ id: 'ImportDatasetSource' });
export type ImportDatasetSource = z.infer<typeof ImportDatasetSource>;

export const ImportJob = z
  .object({
    id: z.uuid(),
    state: ImportState,
    file_name: z
      .string()
      .nullable()
      .meta({ description: 'The uploaded file’s name; null for a dataset import' }),
    file_kind: ImportFileKind.nullable(),
    dataset: ImportDatasetSource.nullable().meta({
      description: 'Where a dataset import reads; null for a file',
    }),
    namespace: z.string(),
    format: z.string(),
    template_name: z.string().nullable(),
    marketplace_template_id: z.string().nullable(),
    total: z.number().int(),
    processed: z.number().int().meta({ description: 'retained + failed' }),
    retained: z.number().int(),
    failed: z.number().int(),
    estimate: ImportEstimate,
    created_at: z.iso.datetime(),
    started_at: z.iso.datetime().nullable(),
    completed_at: z.iso.datetime().nullable(),
    error: z
      .object({ code: ErrorCodeSchema, message: z.string() })
      .nullable()
      .meta({ description: 'Why a `failed` job could not go on (e.g. the dataset changed on the hub)' }),
  })
  .meta({ id: 'ImportJob' });
export type ImportJob = z.infer<typeof ImportJob>;

export const ImportFailure = z
  .object({ row: z.number().int(), reason: ImportFailureReason, message: z.string() })
  .meta({ id: 'ImportFailure' });
export type ImportFailure = z.infer<typeof ImportFailure>;

export const ImportFailurePage = z
  .object({
    import_id: z.uuid(),
    failures: z.array(ImportFailure),
    paging: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() }),
  })
  .meta({ id: 'ImportFailurePage' });
export type ImportFailurePage = z.infer<typeof ImportFailurePage>;

/** How rows become text: a format string, or a template whose format is used; where they go. */
const importMappingShape = {
  // NUL in any of them is refused by parseOrThrow, as in every input.
  format: z.string().min(1).max(4_096).optional(),
  template_name: TemplateName.optional(),
  marketplace_template_id: z.string().min(1).max(128).optional(),
  namespace: Namespace.default(DEFAULT_IMPORT_NAMESPACE),
};
type ImportMapping = {
  format?: string | undefined;
  template_name?: string | undefined;
  marketplace_template_id?: string | undefined;
};
const oneTemplate: [(f: ImportMapping) => boolean, { path: string[]; message: string }] = [
  (f) => !(f.template_name !== undefined && f.marketplace_template_id !== undefined),
  { path: ['template_name'], message: 'name a template or a marketplace template, not both' },
];
const someFormat: [(f: ImportMapping) => boolean, { path: string[]; message: string }] = [
  (f) => f.format !== undefined || f.template_name !== undefined || f.marketplace_template_id !== undefined,
  {
    path: ['format'],
    message: 'send a format, or a template_name or marketplace_template_id whose format is used',
  },
];

/** The form fields of `POST /v1/imports` (all strings, as multipart sends them); `file` comes last. */
export const CreateImportFields = z
  .strictObject(importMappingShape)
  .refine(...oneTemplate)
  .refine(...someFormat);
export type CreateImportFields = z.output<typeof CreateImportFields>;

/**
 * A model-hub dataset: `owner/name` as the hub spells it. Bounded so that the stamp a memory
 * carries (`hub:<dataset>@<sha>:<config>/<split>#<row>`) always fits a source id's 256 characters.
 */
export const HubDatasetId = z
  .string()
  .max(96)
  .regex(
    /^[A-Za-z0-9][\w.-]*\/[A-Za-z0-9][\w.-]*$/,
    'must be owner/name (letters, digits, -, _ and .), as the hub spells it',
  );
const HubName = z
  .string()
  .min(1)
  .max(48)
  .regex(/^[\w.-]+$/, 'may hold letters, digits, -, _ and . only');

/** Where a dataset import reads: dataset, config (the hub's default when there is one), split, revision. */
const hubSourceShape = {
  dataset: HubDatasetId,
  config: HubName.optional(),
  split: HubName,
  revision: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[\w./-]+$/, 'must be a branch, tag or commit sha')
    .optional(),
};

/**
 * `POST /v1/imports` with a JSON body: rows read from a public model-hub dataset instead of a file.
 * `hub_token` is used for this import only (sealed at rest while the job runs, never returned or logged).
 */
export const CreateDatasetImportRequest = z
  .strictObject({
    ...hubSourceShape,
    hub_token: z.string().min(1).max(512).optional(),
    ...importMappingShape,
  })
  .refine(...oneTemplate)
  .refine(...someFormat)
  .meta({ id: 'DatasetImportRequest' });
export type CreateDatasetImportRequest = z.output<typeof CreateDatasetImportRequest>;

export const ImportListQuery = z.strictObject({
  limit: queryInteger('limit', { min: 1, ...IMPORT_LIMITS.failuresPage }),
  offset: queryInteger('offset', { min: 0, max: 1_000_000, default: 0 }),
});

const TenantId = z.string().min(1);
const ImportId = z.string().min(1).max(128);

export const CreateImportMessage = z.object({
  scope: Scope,
  request_id: z.string(),
  file_name: z.string().min(1).max(IMPORT_LIMITS.fileNameMaxChars),
  fields: CreateImportFields,
});
export type CreateImportMessage = z.output<typeof CreateImportMessage>;
export const ImportCreated = z.object({ import_id: z.uuid() });

export const ImportChunkMessage = z.object({
  tenant_id: TenantId,
  import_id: ImportId,
  seq: z.number().int().nonnegative(),
  data: z.base64(),
});
export type ImportChunkMessage = z.infer<typeof ImportChunkMessage>;

export const CreateDatasetImportMessage = z.object({
  scope: Scope,
  request_id: z.string(),
  request: CreateDatasetImportRequest,
});
export type CreateDatasetImportMessage = z.output<typeof CreateDatasetImportMessage>;

export const ImportRefMessage = z.object({ tenant_id: TenantId, import_id: ImportId });
export type ImportRefMessage = z.infer<typeof ImportRefMessage>;

export const StartImportMessage = z.object({ scope: Scope, request_id: z.string(), import_id: ImportId });
export type StartImportMessage = z.infer<typeof StartImportMessage>;

export const ListImportFailuresMessage = ImportRefMessage.extend({
  limit: z.number().int().min(1).max(IMPORT_LIMITS.failuresPage.max),
  offset: z.number().int().min(0),
});
export type ListImportFailuresMessage = z.infer<typeof ListImportFailuresMessage>;

export const ImportAcknowledged = z.object({ ok: z.literal(true) });

/**
 * JetStream, `template.v1.events.import-completed` and `.import-failed`: a job (a document or
 * dataset import, or a restore) left `processing`. Written to the template service's outbox in the
 * transaction that moved the job, relayed in OutboxBatch messages; ids, counts and states only (never
 * a row's values or text, nor a hub token). The counts are the job's rows as its status route counts
 * them: `already_present` is a restore's (records found there), 0 for an import.
 */
const ImportFinishedEvent = z.object({
  version: z.literal('v1'),
  /** The outbox row's id: one per finished job, the same on every re-send. */
  event_id: z.string(),
  tenant_id: z.string(),
  import_id: z.string(),
  kind: z.enum(['import', 'restore']),
  namespace: z.string(),
  total: z.number().int().nonnegative(),
  retained: z.number().int().nonnegative(),
  already_present: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  /** The request that created the job. */
  request_id: z.string(),
  occurred_at: z.string(),
});
export const ImportCompletedEvent = ImportFinishedEvent.extend({ state: z.literal('completed') });
export type ImportCompletedEvent = z.infer<typeof ImportCompletedEvent>;
/** `error_code` says why the job stopped (its status route's `error.code`); the message is not carried. */
export const ImportFailedEvent = ImportFinishedEvent.extend({
  state: z.literal('failed'),
  error_code: z.string(),
});
export type ImportFailedEvent = z.infer<typeof ImportFailedEvent>;
