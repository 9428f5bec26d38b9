import { createPgAdapter, poolRunner, prismaHolder } from '@tm/kit';
import { type Prisma, PrismaClient } from './generated/client.js';
import { MEMORY_SESSION_SETTINGS } from './session-settings.js';

export type Db = PrismaClient | Prisma.TransactionClient;

const holder = prismaHolder(
  // 'minimal' keeps query arguments (memory text) out of error messages and so out of logs.
  (pool) => new PrismaClient({ adapter: createPgAdapter(pool), errorFormat: 'minimal' }),
);

export const initPrisma = (url: string, poolSize: number) =>
  holder.init(url, poolSize, MEMORY_SESSION_SETTINGS);
export const getPrisma = holder.get;
export const closePrisma = holder.close;
/** Health: `SELECT 1` on a connection of its own, within half a second. */
export const pingDatabase = holder.ping;
/** The latest migration applied to this database, for release records. */
export const schemaVersion = holder.schemaVersion;
/** The pool itself, for what keeps state per pool (the shared write statements). */
export const getPool = holder.pool;
/** Direct statements on the same pool, for the hot paths. */
export const getSql = () => poolRunner(holder.pool());
