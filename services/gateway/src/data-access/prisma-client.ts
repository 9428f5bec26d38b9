import { createPgAdapter, poolRunner, prismaHolder } from '@tm/kit';
import { type Prisma, PrismaClient } from './generated/client.js';

export type Db = PrismaClient | Prisma.TransactionClient;

const holder = prismaHolder(
  // 'minimal' keeps query arguments (memory text) out of error messages and so out of logs.
  (pool) => new PrismaClient({ adapter: createPgAdapter(pool), errorFormat: 'minimal' }),
);

export const initPrisma = holder.init;
export const getPrisma = holder.get;
export const closePrisma = holder.close;
/** Health: `SELECT 1` on a connection of its own, within half a second. */
export const pingDatabase = holder.ping;
/** The latest migration applied to this database, for release records. */
export const schemaVersion = holder.schemaVersion;
/** Direct statements on the same pool, for the hot paths. */
export const getSql = () => poolRunner(holder.pool());

/**
 * Run `work` in one transaction. Domain code decides what belongs together; the repository
 * functions it calls inside take the transaction handle as their database.
 */
export const inTransaction = <T>(db: PrismaClient, work: (tx: Prisma.TransactionClient) => Promise<T>) =>
  db.$transaction(work);
