import { createPgAdapter } from '@tm/kit';
import { type Prisma, PrismaClient } from './generated/client.js';

export type Db = PrismaClient | Prisma.TransactionClient;

let client: PrismaClient | undefined;

/** One client (and pool) per process, created on start from the validated config. */
export function initPrisma(url: string, poolSize: number): PrismaClient {
  // 'minimal' keeps query arguments (memory text) out of error messages and so out of logs.
  client = new PrismaClient({ adapter: createPgAdapter(url, { poolSize }), errorFormat: 'minimal' });
  return client;
}

export function getPrisma(): PrismaClient {
  if (!client) throw new Error('Prisma client used before initPrisma()');
  return client;
}

export async function closePrisma(): Promise<void> {
  await client?.$disconnect();
  client = undefined;
}
