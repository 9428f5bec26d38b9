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
        /** The latest applied migration once read (null: the table has none); undefined until then. */
        schemaVersion?: string | null;
        /** The read in flight, so pings never start a second one. */
        schemaRead?: Promise<void>;
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
      // Read now, so the first health check already has it.
      refreshSchemaVersion(state);
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
     * The latest migration applied to this database (`_prisma_migrations`), for release records and
     * health: what is known now, never a wait. It is read once in the background (migrations run
     * before a service starts); until a read succeeds this is null and each call starts one more
     * read if none is in flight. A health check must not wait on it: during an outage the pool waits
     * for a connection longer than the gateway waits for a ping.
     */
    schemaVersion(): string | null {
      const held = current();
      if (held.schemaVersion === undefined) refreshSchemaVersion(held);
      return held.schemaVersion ?? null;
    },
    async close(): Promise<void> {
      if (state && --state.users > 0) return;
      const closing = state;
      state = undefined;
      await closing?.client.$disconnect();
      await Promise.all([closing?.pool.end(), closing?.probe?.close()]);
    },
  };
}

function refreshSchemaVersion(held: {
  pool: pg.Pool;
  schemaVersion?: string | null;
  schemaRead?: Promise<void>;
}): void {
  held.schemaRead ??= latestMigration(held.pool)
    .then(
      (version) => {
        held.schemaVersion = version;
      },
      () => {}, // unknown still: the next call reads again
    )
    .finally(() => {
      held.schemaRead = undefined;
    });
}

async function latestMigration(pool: pg.Pool): Promise<string | null> {
  const { rows } = await pool.query<{ migration_name: string }>(
    `SELECT migration_name FROM _prisma_migrations
      WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL
      ORDER BY migration_name DESC LIMIT 1`,
  );
  return rows[0]?.migration_name ?? null;
}
