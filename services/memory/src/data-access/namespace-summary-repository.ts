import type { NamespaceSummary } from '@tm/contracts';
import type { SqlRunner } from '@tm/kit';

/**
 * A page of the tenant's namespaces with their counts, by name, in one statement: a GroupAggregate
 * over the (tenant_id, namespace, event_id) unique index, which yields the rows already grouped and in
 * order, so LIMIT stops the scan after the page's last namespace and nothing is sorted. `namespace >
 * $2` is an index condition (the first page passes '', below every name), so a later page starts at
 * its cursor rather than reading the pages before it. The counts and the newest retained_at need the
 * heap: the cost is the records of the page's namespaces, not of the tenant.
 * MEASURE
 */
const NAMESPACE_PAGE = `SELECT namespace,
                count(*)::int AS records,
                count(*) FILTER (WHERE superseded_at IS NULL)::int AS current_records,
                count(superseded_at)::int AS superseded_records,
                max(retained_at) AS last_retained_at
           FROM memory_record
          WHERE tenant_id = $1 AND namespace > $2
          GROUP BY namespace
          ORDER BY namespace
          LIMIT $3`;

export async function countRecordsByNamespace(
  run: SqlRunner,
  q: { tenantId: string; after: string | null; limit: number },
): Promise<NamespaceSummary[]> {
  const rows = await run<Omit<NamespaceSummary, 'last_retained_at'> & { last_retained_at: Date }>(
    NAMESPACE_PAGE,
    [q.tenantId, q.after ?? '', q.limit],
  );
  return rows.map((r) => ({ ...r, last_retained_at: r.last_retained_at.toISOString() }));
}
