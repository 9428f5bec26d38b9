import pg from 'pg';
import { serverUrl } from './baseline-database.js';

/**
 * Refresh planner statistics of the memory tables after seeding. Production PostgreSQL does this by
 * autovacuum; these machines run with autovacuum off, and without statistics the planner scans the
 * whole table instead of using the terms index.
 */
export async function analyzeMemoryTables(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const database = new URL(env.MEMORY_DATABASE_URL || 'postgresql://x/tm_memory').pathname.slice(1);
  const client = new pg.Client({ connectionString: serverUrl(database, env) });
  await client.connect();
  try {
    await client.query('ANALYZE memory_record');
  } finally {
    await client.end();
  }
}
