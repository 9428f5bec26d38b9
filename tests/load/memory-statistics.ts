import pg from 'pg';
import { memoryDatabaseUrl } from './baseline-database.js';

/**
 * Vacuum and analyze the memory tables after seeding, as autovacuum does in production (its insert
 * threshold fires on exactly this kind of bulk load). These machines run with autovacuum off: without
 * statistics the planner misjudges the postings, and without a vacuum the visibility map is empty, so
 * recall's index-only scan of the postings would visit the heap for every one.
 */
export async function vacuumMemoryTables(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const client = new pg.Client({ connectionString: memoryDatabaseUrl(env) });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE) memory_record, memory_term');
  } finally {
    await client.end();
  }
}
