import { randomUUID } from 'node:crypto';
import type { OutboxRow } from '@tm/bus';
import type { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

/** Written in the same transaction as the change it describes; the relay publishes it later. */
export async function enqueue(
  db: Db,
  subject: string,
  payload: Prisma.InputJsonValue,
  id: string = randomUUID(),
) {
  await db.outboxMessage.create({ data: { id, subject, payload } });
  return id;
}

export async function fetchPending(db: Db, limit: number): Promise<OutboxRow[]> {
  const rows = await db.outboxMessage.findMany({
    where: { publishedAt: null },
    orderBy: { createdAt: 'asc' },
    take: limit,
    select: { id: true, subject: true, payload: true },
  });
  return rows;
}

export async function markPublished(db: Db, ids: string[]) {
  await db.outboxMessage.updateMany({
    where: { id: { in: ids } },
    data: { publishedAt: new Date(), attempts: { increment: 1 } },
  });
}

/** Published rows are kept for a while (diagnosis), then dropped: JetStream and billing hold them. */
export async function purgePublished(db: Db, olderThan: Date) {
  const { count } = await db.outboxMessage.deleteMany({ where: { publishedAt: { lt: olderThan } } });
  return count;
}
