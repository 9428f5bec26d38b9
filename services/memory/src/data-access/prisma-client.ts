import { createPgAdapter, poolRunner, prismaHolder } from '@tm/kit';
import type pg from 'pg';
import { type Prisma, PrismaClient } from './generated/client.js';
import { createRetainBatcher } from './retain-batch.js';
import type { RetainInput } from './retain-statement.js';

export type Db = PrismaClient | Prisma.TransactionClient;

const holder = prismaHolder(
  // 'minimal' keeps query arguments (memory text) out of error messages and so out of logs.
  (pool) => new PrismaClient({ adapter: createPgAdapter(pool), errorFormat: 'minimal' }),
);

export const initPrisma = holder.init;
export const getPrisma = holder.get;
export const closePrisma = holder.close;
/** Direct statements on the same pool, for the hot paths. */
export const getSql = () => poolRunner(holder.pool());

const batchers = new WeakMap<pg.Pool, ReturnType<typeof createRetainBatcher>>();
/** The write path's claim-and-retain, batched on the current pool (see retain-batch.ts). */
export function retainBatched(input: RetainInput) {
  const pool = holder.pool();
  let batcher = batchers.get(pool);
  if (!batcher) {
    batcher = createRetainBatcher(poolRunner(pool));
    batchers.set(pool, batcher);
  }
  return batcher(input);
}
