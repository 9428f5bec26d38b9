import type pg from 'pg';

/** Where a keyset walk of a namespace's postings stopped: the last (term, event time, record) removed. */
export interface PostingCursor {
  term: string | null;
  occurred_at: string | null;
  memory_id: string | null;
}

/**
 * Removes up to `limit` of a namespace's postings under one scope key (`memory_scope_key` for the
 * index before stemming, `memory_scope_key_v2` for the stemmed one), in key order after the cursor:
 * each batch starts where the last ended, not at the dead index entries its predecessors left. Used
 * by a namespace's deletion and by its re-index's cleaning. Returns how many went and the new cursor
 * (all null when none did).
 */
export async function removePostingsAfter(
  client: pg.PoolClient,
  key: 'memory_scope_key' | 'memory_scope_key_v2',
  scope: [tenantId: string, namespace: string],
  cursor: PostingCursor,
  limit: number,
): Promise<{ removed: number; last: PostingCursor }> {
  const { rows } = await client.query<{ n: number; term: string; occurred_at: string; memory_id: string }>(
    `WITH batch AS (
       SELECT ctid, term, occurred_at, memory_id FROM memory_term
        WHERE scope_key = ${key}($1, $2)
          AND (term, occurred_at, memory_id) > ($3, $4::timestamptz, $5::uuid)
        ORDER BY term, occurred_at, memory_id LIMIT $6),
     gone AS (DELETE FROM memory_term WHERE ctid = ANY (ARRAY(SELECT ctid FROM batch)) RETURNING 1)
     SELECT (SELECT count(*) FROM gone)::int AS n, l.term, l.occurred_at::text AS occurred_at,
            l.memory_id::text AS memory_id
       FROM (SELECT 1) AS one LEFT JOIN LATERAL (
         SELECT term, occurred_at, memory_id FROM batch
          ORDER BY term DESC, occurred_at DESC, memory_id DESC LIMIT 1) AS l ON true`,
    [
      ...scope,
      cursor.term ?? '',
      cursor.occurred_at ?? '-infinity',
      cursor.memory_id ?? '00000000-0000-0000-0000-000000000000',
      limit,
    ],
  );
  const row = rows[0];
  return {
    removed: row?.n ?? 0,
    last: {
      term: row?.term ?? null,
      occurred_at: row?.occurred_at ?? null,
      memory_id: row?.memory_id ?? null,
    },
  };
}
