import { prepared, type SqlRunner } from '@tm/kit';

/**
 * Add to many window counters in one statement and read their new totals and window ends. A window
 * opens with the first request after the previous one ended (`expire`, epoch ms). Rows are taken in
 * key order, so two instances adding to the same counters at once cannot deadlock.
 */
const ADD_TO_COUNTERS = prepared(
  'rate_limit_add',
  `INSERT INTO rate_limit_counter AS c (key, points, expire)
   SELECT key, points, $4::bigint + window_ms
     FROM unnest($1::text[], $2::int[], $3::bigint[]) AS t(key, points, window_ms)
    ORDER BY key
   ON CONFLICT (key) DO UPDATE SET
     points = CASE WHEN c.expire <= $4 THEN EXCLUDED.points ELSE c.points + EXCLUDED.points END,
     expire = CASE WHEN c.expire <= $4 THEN EXCLUDED.expire ELSE c.expire END
   RETURNING key, points, expire`,
);

export interface CounterTotal {
  points: number;
  expiresAtMs: number;
}

export async function addToCounters(
  run: SqlRunner,
  counters: Array<{ key: string; points: number; windowMs: number }>,
  nowMs: number,
): Promise<Map<string, CounterTotal>> {
  const rows = await run<{ key: string; points: number; expire: string }>(ADD_TO_COUNTERS, [
    counters.map((c) => c.key),
    counters.map((c) => c.points),
    counters.map((c) => c.windowMs),
    nowMs,
  ]);
  return new Map(rows.map((r) => [r.key, { points: r.points, expiresAtMs: Number(r.expire) }]));
}

export async function deleteCounter(run: SqlRunner, key: string): Promise<void> {
  await run('DELETE FROM rate_limit_counter WHERE key = $1', [key]);
}

/** Take one back from a window that is still open (never below zero); an ended window is left alone. */
export async function takeOneFromCounter(run: SqlRunner, key: string, nowMs: number): Promise<void> {
  await run('UPDATE rate_limit_counter SET points = GREATEST(points - 1, 0) WHERE key = $1 AND expire > $2', [
    key,
    nowMs,
  ]);
}

/** Windows that ended are never read again; this keeps the table small. */
export async function deleteExpiredCounters(run: SqlRunner, beforeMs: number): Promise<void> {
  await run('DELETE FROM rate_limit_counter WHERE expire < $1', [beforeMs]);
}
