import type { ExportRecord, ExportRelation } from '@tm/contracts';
import type { SqlRunner } from '@tm/kit';
import { notBeingDeleted } from './namespace-deletion.js';

export interface ExportQuery {
  tenantId: string;
  /** Only these namespaces; null for all of the tenant's. */
  namespaces: string[] | null;
  /** Keyset: the last row of the previous page (namespace, then event id or relation id). */
  after: { namespace: string; key: string } | null;
  limit: number;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * Records in (namespace, event_id) order, on the tenant-namespace-event unique index; none of a
 * namespace being deleted.
 */
export async function exportRecords(
  run: SqlRunner,
  q: ExportQuery,
): Promise<Array<ExportRecord & { key: string }>> {
  const rows = await run<{
    memory_id: string;
    event_id: string;
    namespace: string;
    occurred_at: Date;
    retained_at: Date;
    text: string;
    source: Record<string, unknown> | null;
    superseded_at: Date | null;
  }>(
    `SELECT id::text AS memory_id, event_id, namespace, occurred_at, retained_at, text, source, superseded_at
       FROM memory_record r
      WHERE tenant_id = $1 AND ($2::text[] IS NULL OR namespace = ANY($2))
        AND ($3::text IS NULL OR (namespace, event_id) > ($3, $4)) AND ${notBeingDeleted('r')}
      ORDER BY namespace, event_id LIMIT $5`,
    [q.tenantId, q.namespaces, q.after?.namespace ?? null, q.after?.key ?? null, q.limit],
  );
  return rows.map((r) => ({
    memory_id: r.memory_id,
    event_id: r.event_id,
    namespace: r.namespace,
    occurred_at: r.occurred_at.toISOString(),
    retained_at: r.retained_at.toISOString(),
    text: r.text,
    source: r.source,
    status: r.superseded_at ? 'superseded' : 'current',
    superseded_at: iso(r.superseded_at),
    key: r.event_id,
  }));
}

/** Supersession relations in (namespace, id) order. */
export async function exportRelations(
  run: SqlRunner,
  q: ExportQuery,
): Promise<Array<ExportRelation & { key: string }>> {
  const rows = await run<{
    id: string;
    namespace: string;
    superseding_event_id: string;
    superseding_memory_id: string;
    target_event_id: string;
    target_memory_id: string | null;
    status: 'superseded' | 'unresolved';
    recorded_at: Date;
  }>(
    `SELECT id::text, namespace, superseding_event_id, superseding_memory_id::text, target_event_id,
            target_memory_id::text, status::text, recorded_at
       FROM supersession_relation s
      WHERE tenant_id = $1 AND ($2::text[] IS NULL OR namespace = ANY($2))
        AND ($3::text IS NULL OR (namespace, id) > ($3, $4::uuid)) AND ${notBeingDeleted('s')}
      ORDER BY namespace, id LIMIT $5`,
    [q.tenantId, q.namespaces, q.after?.namespace ?? null, q.after?.key ?? null, q.limit],
  );
  return rows.map(({ id, recorded_at, ...r }) => ({ ...r, recorded_at: recorded_at.toISOString(), key: id }));
}
