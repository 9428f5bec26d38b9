import { createPgAdapter, poolRunner, prismaHolder } from '@tm/kit';
import { type Prisma, PrismaClient } from './generated/client.js';

export type Db = PrismaClient | Prisma.TransactionClient;

const holder = prismaHolder(
  (pool) => new PrismaClient({ adapter: createPgAdapter(pool), errorFormat: 'minimal' }),
);

export const initPrisma = holder.init;
export const getPrisma = holder.get;
export const closePrisma = holder.close;
/** Health: `SELECT 1` on a connection of its own, within half a second. */
export const pingDatabase = holder.ping;
/** The latest migration applied to this database, for release records. */
export const schemaVersion = holder.schemaVersion;
/** Direct statements on the same pool (the outbox relay's). */
export const getSql = () => poolRunner(holder.pool());
