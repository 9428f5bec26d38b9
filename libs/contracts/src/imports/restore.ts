import { z } from 'zod';
import { Scope } from '../control/scope.js';
import { Namespace, WriteEvent } from '../memory/memory.js';
import { CONTRACT_VERSION } from '../runtime.js';
import { ExportRecord, ExportRelation } from '../telemetry/telemetry.js';
import { IMPORT_LIMITS } from './imports.js';

// ---- restore an export ---------------------------------------------------------------------

export const RESTORE_LIMITS = {
  /**
   * The restore route's body bound: an export file as `GET /api/v1/infrastructure/export` wrote it,
   * parsed whole in the gateway (about 10 bytes of heap per byte of JSON, so 160 MB at most per
   * request). Larger exports are restored one namespace at a time (`?namespace=` on the export).
   */
  bodyMaxBytes: 16 * 1024 * 1024,
  /** Records in one restore: a 16 MiB file of short records holds about 50,000. */
  maxRecords: 50_000,
  failuresPage: IMPORT_LIMITS.failuresPage,
} as const;

/** `?namespace=&from_namespace=` of `POST /api/v1/memory/restore`. */
export const RestoreQuery = z
  .strictObject({
    namespace: Namespace.optional().meta({
      description: 'Where the records go; defaults to the namespace they were exported from',
    }),
    from_namespace: Namespace.optional().meta({
      description:
        'Which of the export’s namespaces to restore; required when the export holds more than one',
    }),
  })
  .meta({ id: 'RestoreQuery' });
export type RestoreQuery = z.infer<typeof RestoreQuery>;

/**
 * The body: an export document exactly as the export route writes it, strictly: a field the export
 * does not write (at the top, in `selection`, `counts`, a record or a relation) is refused, named, so
 * nothing a file claims is silently ignored; above all a `tenant_id`, since the tenant is always the
 * API key's. Its history is accepted and not restored (it is the source deployment's redacted request
 * log, not memory, whatever its rows hold).
 */
export const RestoreDocument = z
  .strictObject({
    contract_version: z.literal(CONTRACT_VERSION),
    request_id: z.string(),
    exported_at: z.iso.datetime(),
    selection: z.strictObject({ namespaces: z.array(z.string()).nullable() }),
    records: z.array(ExportRecord).max(RESTORE_LIMITS.maxRecords, {
      error: `an export of at most ${RESTORE_LIMITS.maxRecords} records can be restored at once; export fewer namespaces`,
    }),
    supersession_relations: z.array(ExportRelation),
    history: z.array(z.unknown()),
    counts: z.strictObject({
      records: z.number().int(),
      supersession_relations: z.number().int(),
      history: z.number().int(),
    }),
    complete: z.literal(true, { error: 'complete must be true: the export file is cut short' }),
  })
  .meta({ id: 'RestoreDocument', description: 'An export document as the export route wrote it' });
export type RestoreDocument = z.infer<typeof RestoreDocument>;

/** One record to restore, in the order it is written: `/write`'s event, its supersedes from the relations. */
export const RestoreRow = z.object({ event: WriteEvent });
export type RestoreRow = z.infer<typeof RestoreRow>;

export const RestoreState = z.enum(['processing', 'completed', 'cancelled']).meta({
  description:
    'processing (records being written) → completed (every record written, present or failed); ' +
    'cancelled when its namespace was deleted first (its counts are those when it stopped)',
});

export const RestoreJob = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    id: z.uuid(),
    state: RestoreState,
    namespace: z.string().meta({ description: 'Where the records go' }),
    from_namespace: z.string().meta({ description: 'The export’s namespace they came from' }),
    total: z.number().int().meta({ description: 'Records in the restore' }),
    processed: z.number().int().meta({ description: 'Records settled so far (written, present or failed)' }),
    written: z.number().int().meta({ description: 'Records this restore stored (one write unit each)' }),
    already_present: z
      .number()
      .int()
      .meta({
        description:
          'Records found already there (an earlier restore of the same record, or the event id already ' +
          'retained in the namespace): nothing stored, nothing billed',
      }),
    failed: z.number().int().meta({ description: 'Records refused; see the failures route' }),
    created_at: z.iso.datetime(),
    completed_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'RestoreJob' });
export type RestoreJob = z.infer<typeof RestoreJob>;

export const RestoreFailureReason = z.enum(['not_retained', 'write_refused']);

export const RestoreFailurePage = z
  .object({
    contract_version: z.literal(CONTRACT_VERSION),
    restore_id: z.uuid(),
    failures: z.array(
      z.object({
        event_id: z.string(),
        reason: RestoreFailureReason,
        message: z.string(),
      }),
    ),
    paging: z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int() }),
  })
  .meta({ id: 'RestoreFailurePage' });
export type RestoreFailurePage = z.infer<typeof RestoreFailurePage>;

// ---- bus messages (template service) -----------------------------------------------------------------

const RestoreId = z.string().min(1).max(128);

/** Opens a restore job (not visible until started), before its rows are sent. */
export const CreateRestoreMessage = z.object({
  scope: Scope,
  request_id: z.string(),
  namespace: Namespace,
  from_namespace: Namespace,
  total: z.number().int().min(1).max(RESTORE_LIMITS.maxRecords),
});
export type CreateRestoreMessage = z.infer<typeof CreateRestoreMessage>;

export const RestoreCreated = z.object({ restore_id: z.uuid() });

/** Rows `first_row` … of a job being filled, in write order (a resent message is stored once). */
export const RestoreRowsMessage = z.object({
  tenant_id: z.string().min(1),
  restore_id: RestoreId,
  first_row: z.number().int().min(1),
  rows: z.array(RestoreRow).min(1),
});
export type RestoreRowsMessage = z.infer<typeof RestoreRowsMessage>;

export const StartRestoreMessage = z.object({ scope: Scope, request_id: z.string(), restore_id: RestoreId });
export type StartRestoreMessage = z.infer<typeof StartRestoreMessage>;

export const RestoreRefMessage = z.object({ tenant_id: z.string().min(1), restore_id: RestoreId });
export type RestoreRefMessage = z.infer<typeof RestoreRefMessage>;

export const ListRestoreFailuresMessage = RestoreRefMessage.extend({
  limit: z.number().int().min(1).max(RESTORE_LIMITS.failuresPage.max),
  offset: z.number().int().min(0),
});
export type ListRestoreFailuresMessage = z.infer<typeof ListRestoreFailuresMessage>;
