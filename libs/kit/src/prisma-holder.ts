import type pg from 'pg';
import { createPgPool } from './database.js';

/**
 * One connection pool and one Prisma client on it per process, created on start from validated
 * config and closed on shutdown. Each service passes the factory for its own generated client.
 */
export function prismaHolder<C extends { $disconnect(): Promise<void> }>(create: (pool: pg.Pool) => C) {
  let state: { pool: pg.Pool; client: C } | undefined;
  const current = () => {
    if (!state) throw new Error('database used before init');
    return state;
  };
  return {
    init(url: string, poolSize: number): C {
      const pool = createPgPool(url, { poolSize });
      // An idle client losing its connection must not crash the process; the next query reports it.
      pool.on('error', () => {});
      state = { pool, client: create(pool) };
      return state.client;
    },
    get: (): C => current().client,
    pool: (): pg.Pool => current().pool,
    async close(): Promise<void> {
      const closing = state;
      state = undefined;
      await closing?.client.$disconnect();
      await closing?.pool.end();
    },
  };
}
