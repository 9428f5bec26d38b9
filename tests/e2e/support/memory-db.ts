import pg from 'pg';
import { stackEnv } from './stack.js';

/**
 * Read-only peeks at the memory service's database, for what the API cannot show:
 * how many records a burst of writes left behind.
 */
export async function memoryDbCount(sql: string, params: unknown[]): Promise<number> {
  const client = new pg.Client({ connectionString: stackEnv().memoryDbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(sql, params);
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

export const recordsWithEvent = (tenantId: string, namespace: string, eventId: string) =>
  memoryDbCount(
    'SELECT count(*) AS n FROM memory_record WHERE tenant_id = $1 AND namespace = $2 AND event_id = $3',
    [tenantId, namespace, eventId],
  );

export const recordsInNamespace = (tenantId: string, namespace: string) =>
  memoryDbCount('SELECT count(*) AS n FROM memory_record WHERE tenant_id = $1 AND namespace = $2', [
    tenantId,
    namespace,
  ]);
