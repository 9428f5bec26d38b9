import type { DependencyHealth } from '@tm/contracts';
import pg from 'pg';
import { pgFieldsFromUrl } from './database.js';

/** Past this a database counts as unavailable: the health check that asks it waits 1 s in all. */
export const DATABASE_PROBE_TIMEOUT_MS = 500;

/**
 * `SELECT 1` on a connection of its own, never the service's pool: under load that pool's callers
 * queue for a connection, and a busy database is not a missing one. One connection per process,
 * opened on the first check and closed after 10 s idle, so checks every few seconds reuse it.
 */
export function createDatabaseProbe(url: string, timeoutMs = DATABASE_PROBE_TIMEOUT_MS) {
  const pool = new pg.Pool({
    ...pgFieldsFromUrl(url),
    max: 1,
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    idleTimeoutMillis: 10_000,
  });
  // A dropped idle connection must not crash the process; the next check reports it.
  pool.on('error', () => {});
  return {
    async check(): Promise<DependencyHealth> {
      const started = performance.now();
      try {
        await pool.query('SELECT 1');
        return { available: true, latency_ms: Math.round(performance.now() - started) };
      } catch {
        return { available: false };
      }
    },
    close: () => pool.end(),
  };
}
export type DatabaseProbe = ReturnType<typeof createDatabaseProbe>;
