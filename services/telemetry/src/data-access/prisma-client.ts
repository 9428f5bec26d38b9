import { createPgAdapter, poolRunner, prismaHolder } from '@tm/kit';
import { type Prisma, PrismaClient } from './generated/client.js';

export type Db = PrismaClient | Prisma.TransactionClient;

const holder = prismaHolder(
  (pool) => new PrismaClient({ adapter: createPgAdapter(pool), errorFormat: 'minimal' }),
);

/**
 * Metrics sort a window's latencies: with PostgreSQL's default 4 MB of sort memory a window of 100k
 * records spills to disk, so this pool's connections start with 32 MB.
 */
export const initPrisma = (url: string, poolSize: number) => holder.init(url, poolSize, { work_mem: '32MB' });
export const getPrisma = holder.get;
export const closePrisma = holder.close;
/** Health: `SELECT 1` on a connection of its own, within half a second. */
export const pingDatabase = holder.ping;
/** The latest migration applied to this database, for release records. */
export const schemaVersion = holder.schemaVersion;
/** The pool itself, for a connection of one's own (the anomaly watch's lock). */
export const getPool = () => holder.pool();
/** Direct statements on the same pool: record inserts and the aggregates. */
export const getSql = () => poolRunner(holder.pool());
