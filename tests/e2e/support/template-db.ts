import pg from 'pg';
import { stackEnv } from './stack.js';

/** Read-only peeks at the template service's database, for what the API cannot show. */
export async function templateDbCount(sql: string, params: unknown[]): Promise<number> {
  const client = new pg.Client({ connectionString: stackEnv().templateDbUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(sql, params);
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

/** Import jobs the template service holds for a tenant, whatever their state (the API lists none). */
export const importJobsOf = (tenantId: string) =>
  templateDbCount('SELECT count(*) AS n FROM import_job WHERE tenant_id = $1', [tenantId]);
