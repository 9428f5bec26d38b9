import {
  AppError,
  ErrorCode,
  type ExportRecord,
  type FieldIssue,
  parseOrThrow,
  RestoreDocument,
  type RestoreJob,
  type RestoreQuery,
  type RestoreRow,
  type Scope,
  validateInput,
  WriteEvent,
} from '@tm/contracts';
import type { TemplateClient } from '../../clients/template-client.js';

/** An export file checked whole and turned into the writes that restore it, in write order. */
export interface Restore {
  namespace: string;
  fromNamespace: string;
  rows: RestoreRow[];
}

/** Payload bytes of rows per message to the template service (NATS refuses messages over 1 MiB). */
const MESSAGE_MAX_BYTES = 512 * 1024;

const invalid = (message: string, fields: FieldIssue[]) =>
  new AppError(ErrorCode.ValidationFailed, message, { fields });

/** The export's namespace to restore: the one named, or the only one it holds. */
function sourceNamespace(doc: RestoreDocument, named: string | undefined): string {
  const held = new Set([
    ...doc.records.map((r) => r.namespace),
    ...doc.supersession_relations.map((r) => r.namespace),
  ]);
  if (named !== undefined) {
    if (!held.has(named)) {
      throw invalid('Invalid restore: from_namespace', [
        { path: 'from_namespace', message: 'the export holds no record of this namespace' },
      ]);
    }
    return named;
  }
  if (held.size === 1) return [...held][0] as string;
  throw invalid('Invalid restore: from_namespace', [
    {
      path: 'from_namespace',
      message:
        held.size === 0
          ? 'the export holds no record to restore'
          : `the export holds ${held.size} namespaces; name the one to restore`,
    },
  ]);
}

/**
 * Check an export file and turn the records of one of its namespaces into writes: each record's
 * event id, occurred_at, text and source as they are, and its supersedes from the relations it recorded
 * (in their export order, which is the order the write listed them). The records are written in the
 * order they were first retained (retained_at, then the time-ordered memory id), so each supersession
 * meets what its original write met: a target retained before it is superseded again, one that came
 * later (or never) is unresolved again. Anything wrong is one 400 for the file, nothing stored: the
 * document's shape, counts that do not match its parts (a file cut or edited), an event id twice, a
 * relation whose record is missing, a record `/write` would refuse (named `records[i].…`), a field the
 * export does not write (named where it is), a `tenant_id` above all.
 */
export function readRestore(body: unknown, query: RestoreQuery): Restore {
  refuseTenant(body);
  const doc = parseOrThrow(RestoreDocument, body, 'export file');
  const counted = doc.counts;
  if (
    counted.records !== doc.records.length ||
    counted.supersession_relations !== doc.supersession_relations.length ||
    counted.history !== doc.history.length
  ) {
    throw invalid('Invalid export file: counts', [
      { path: 'counts', message: 'do not match the parts the file holds: the file is cut short or edited' },
    ]);
  }
  const fromNamespace = sourceNamespace(doc, query.from_namespace);

  const indexed = doc.records.flatMap((record, index) =>
    record.namespace === fromNamespace ? [{ record, index }] : [],
  );
  const byEvent = new Map<string, { record: ExportRecord; index: number }>();
  for (const entry of indexed) {
    if (byEvent.has(entry.record.event_id)) {
      throw invalid('Invalid export file: records', [
        { path: `records[${entry.index}].event_id`, message: 'appears twice in the namespace' },
      ]);
    }
    byEvent.set(entry.record.event_id, entry);
  }
  const supersedes = new Map<string, string[]>();
  for (const [i, relation] of doc.supersession_relations.entries()) {
    if (relation.namespace !== fromNamespace) continue;
    if (!byEvent.has(relation.superseding_event_id)) {
      throw invalid('Invalid export file: supersession_relations', [
        {
          path: `supersession_relations[${i}].superseding_event_id`,
          message: 'names no record of the export',
        },
      ]);
    }
    const targets = supersedes.get(relation.superseding_event_id) ?? [];
    targets.push(relation.target_event_id);
    supersedes.set(relation.superseding_event_id, targets);
  }

  // code-unit order (not localeCompare, whose collation skips hyphens): ISO instants of one format
  // and time-ordered ids sort as they were made
  const order = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  indexed.sort(
    (a, b) =>
      order(a.record.retained_at, b.record.retained_at) || order(a.record.memory_id, b.record.memory_id),
  );
  const rows = indexed.map(({ record, index }) => {
    const targets = supersedes.get(record.event_id);
    const event = {
      event_id: record.event_id,
      occurred_at: record.occurred_at,
      content: { text: record.text },
      ...(record.source === null ? {} : { source: record.source }),
      ...(targets ? { supersedes: targets } : {}),
    };
    const checked = validateInput(WriteEvent, event);
    if (checked.fields) {
      const fields = checked.fields.map((f) => ({ path: `records[${index}].${f.path}`, message: f.message }));
      throw invalid(`Invalid export file: ${[...new Set(fields.map((f) => f.path))].join(', ')}`, fields);
    }
    return { event: checked.data };
  });
  return { namespace: query.namespace ?? fromNamespace, fromNamespace, rows };
}

/**
 * A file naming a tenant is refused whatever the tenant: records go into the API key's tenant only
 * (never one a file names), and an export carries none, so a tenant_id means an edited or foreign file.
 */
function refuseTenant(body: unknown): void {
  if (body && typeof body === 'object' && !Array.isArray(body) && 'tenant_id' in body) {
    throw invalid('Invalid export file: tenant_id', [
      {
        path: 'tenant_id',
        message: 'is not a field of an export file: records are restored into the API key’s own tenant',
      },
    ]);
  }
}

/** The rows, cut into messages of at most MESSAGE_MAX_BYTES (never an empty one), each with its first row. */
function messagesOf(rows: RestoreRow[]) {
  const messages: Array<{ firstRow: number; rows: RestoreRow[] }> = [];
  let current: RestoreRow[] = [];
  let bytes = 0;
  let firstRow = 1;
  for (const [i, row] of rows.entries()) {
    const size = Buffer.byteLength(JSON.stringify(row));
    if (current.length > 0 && bytes + size > MESSAGE_MAX_BYTES) {
      messages.push({ firstRow, rows: current });
      current = [];
      bytes = 0;
      firstRow = i + 1;
    }
    current.push(row);
    bytes += size;
  }
  if (current.length > 0) messages.push({ firstRow, rows: current });
  return messages;
}

/**
 * Hand a checked restore to the template service's job worker: the job is opened (invisible), its rows
 * sent in messages of 512 kB, one after another, then started, which answers the job. On any failure
 * (the template service away, no answer in time) the half-filled job is discarded, and the caller's
 * retry (a retryable 503/504) starts a new one: nothing of a refused restore is kept, and since every
 * record is written under a key of its own namespace and event id, a restore run twice stores once.
 */
export async function startRestore(
  templates: TemplateClient,
  caller: { scope: Scope; requestId: string },
  restore: Restore,
): Promise<RestoreJob> {
  if (restore.rows.length === 0) {
    throw invalid('Invalid restore: from_namespace', [
      { path: 'from_namespace', message: 'the export holds no record of this namespace to restore' },
    ]);
  }
  const { restore_id } = await templates.createRestore({
    scope: caller.scope,
    request_id: caller.requestId,
    namespace: restore.namespace,
    from_namespace: restore.fromNamespace,
    total: restore.rows.length,
  });
  try {
    for (const message of messagesOf(restore.rows)) {
      await templates.appendRestoreRows({
        tenant_id: caller.scope.tenant_id,
        restore_id,
        first_row: message.firstRow,
        rows: message.rows,
      });
    }
    return await templates.startRestore({ scope: caller.scope, request_id: caller.requestId, restore_id });
  } catch (err) {
    await templates
      .discardImport({ tenant_id: caller.scope.tenant_id, import_id: restore_id })
      .catch(() => undefined); // its job, never visible, then counts against nothing after 15 minutes
    throw err;
  }
}
