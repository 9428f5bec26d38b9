import { createPgAdapter, prismaHolder } from '@tm/kit';
import { type Prisma, PrismaClient } from './generated/client.js';

export type Db = PrismaClient | Prisma.TransactionClient;

const holder = prismaHolder(
  // 'minimal' keeps query arguments (memory text) out of error messages and so out of logs.
  (url, poolSize) =>
    new PrismaClient({ adapter: createPgAdapter(url, { poolSize }), errorFormat: 'minimal' }),
);

export const initPrisma = holder.init;
export const getPrisma = holder.get;
export const closePrisma = holder.close;
