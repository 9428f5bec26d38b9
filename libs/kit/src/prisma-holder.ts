import type pg from 'pg';
import { createPgPool } from './database.js';
import { createDatabaseProbe, type DatabaseProbe } from './database-probe.js';
import { watchPool } from './metrics/pool-metrics.js';

/**
 * One connection pool and one Prisma client on it per process, created on start from validated
 * config and closed on shutdown. Each service passes the factory for its own generated client.
 * Instances started in one process (tests run two gateways) share it: each `init` is matched by a
 * `close`, and the last close ends the pool.
 */
export function prismaHolder<C extends { $disconnect(): Promise<void> }>(create: (pool: pg.Pool) => C) {
  let state:
    | {
        url: string;
        pool: pg.Pool;
        client: C;
        users: number;
        probe?: DatabaseProbe;
        schemaVersion?: Promise<string | null>;
      }
    | undefined;
  const current = () => {
    if (!state) throw new Error('database used before init');
    return state;
  };
  return {
    init(url: string, poolSize: number, settings?: Record<string, string>): C {
      if (state) {
        if (state.url !== url) throw new Error('database already initialised with another URL');
        state.users++;
        return state.client;
      }
      const pool = createPgPool(url, { poolSize, settings });
      // An idle client losing its connection must not crash the process; the next query reports it.
      pool.on('error', () => {});
      watchPool(pool);
      state = { url, pool, client: create(pool), users: 1 };
      // Read now, so no health check waits on it (it is asked with every ping).
      void readSchemaVersion(state);
      return state.client;
    },
    get: (): C => current().client,
    pool: (): pg.Pool => current().pool,
    /** Health: is the database there (`database-probe.ts`)? Made on first use, closed with the pool. */
    ping() {
      const held = current();
      held.probe ??= createDatabaseProbe(held.url);
      return held.probe.check();
    },
    /**
     * The latest migration applied to this database (`_prisma_migrations`), for release records: read
     * once, since migrations run before a service starts. Null when it cannot be read (asked again).
     */
    schemaVersion: (): Promise<string | null> => readSchemaVersion(current()),
    async close(): Promise<void> {
      if (state && --state.users > 0) return;
      const closing = state;
      state = undefined;
      await closing?.client.$disconnect();
      await Promise.all([closing?.pool.end(), closing?.probe?.close()]);
    },
  };
}

function readSchemaVersion(held: { pool: pg.Pool; schemaVersion?: Promise<string | null> }) {
  held.schemaVersion ??= latestMigration(held.pool).catch(() => {
    held.schemaVersion = undefined; // asked again next time
    return null;
  });
  return held.schemaVersion;
}

async function latestMigration(pool: pg.Pool): Promise<string | null> {
  const { rows } = await pool.query<{ migration_name: string }>(
    `SELECT migration_name FROM _prisma_migrations
      WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL
      ORDER BY migration_name DESC LIMIT 1`,
  );
  return rows[0]?.migration_name ?? null;
}
