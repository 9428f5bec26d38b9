import type pg from 'pg';
import client from 'prom-client';

const pools = new Set<pg.Pool>();

/** Connections of the service's database pool: in use, idle, and callers waiting for one. */
new client.Gauge({
  name: 'tm_db_pool_connections',
  help: 'Connections of the database pool by state (in_use, idle), and callers waiting for one (waiting)',
  labelNames: ['state'],
  collect() {
    let total = 0;
    let idle = 0;
    let waiting = 0;
    for (const pool of pools) {
      total += pool.totalCount;
      idle += pool.idleCount;
      waiting += pool.waitingCount;
    }
    this.set({ state: 'in_use' }, total - idle);
    this.set({ state: 'idle' }, idle);
    this.set({ state: 'waiting' }, waiting);
  },
});

/** Count this pool in tm_db_pool_connections until it ends. */
export function watchPool(pool: pg.Pool): void {
  pools.add(pool);
  const end = pool.end.bind(pool);
  pool.end = (() => {
    pools.delete(pool);
    return end();
  }) as typeof pool.end;
}
