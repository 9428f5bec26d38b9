import { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

export interface NewDelivery {
  id: string;
  tenantId: string;
  endpointId: string;
  messageId: string;
  eventType: string;
  payload: Prisma.InputJsonValue;
}

/** Queue deliveries; one already queued for the same endpoint and message (a redelivered event) is skipped. */
export const queueDeliveries = (db: Db, rows: NewDelivery[]) =>
  db.webhookDelivery.createMany({ data: rows, skipDuplicates: true });

/**
 * Due deliveries of enabled endpoints, at most `perEndpoint` of each, tenants interleaved (each
 * tenant's oldest first, then each one's second, …) so a tenant with thousands due does not fill the
 * list. Read per endpoint through (endpoint_id, next_attempt_at), so the work grows with the
 * endpoints, not with the backlog. Endpoints at their cap and tenants at theirs are left out: their
 * rows could not be picked. Nothing is locked: `claimDeliveries` takes what is picked.
 */
export const findDueDeliveries = (
  db: Db,
  options: {
    perEndpoint: number;
    limit: number;
    skipEndpoints: readonly string[];
    skipTenants: readonly string[];
  },
) =>
  db.$queryRaw<Array<{ id: string; tenantId: string; endpointId: string }>>(Prisma.sql`
    SELECT id, "tenantId", "endpointId" FROM (
      SELECT c.id::text, c.tenant_id::text AS "tenantId", c.endpoint_id::text AS "endpointId",
             c.next_attempt_at,
             row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.next_attempt_at, c.id) AS tenant_turn
        FROM webhook_endpoint e
        CROSS JOIN LATERAL (
          SELECT d.id, d.tenant_id, d.endpoint_id, d.next_attempt_at FROM webhook_delivery d
           WHERE d.endpoint_id = e.id AND d.next_attempt_at <= now() AND d.status = 'pending'
           ORDER BY d.next_attempt_at, d.id LIMIT ${options.perEndpoint}) c
       WHERE e.enabled AND e.id <> ALL(${[...options.skipEndpoints]}::uuid[])
         AND e.tenant_id <> ALL(${[...options.skipTenants]}::uuid[])
    ) due
    ORDER BY tenant_turn, next_attempt_at, id
    LIMIT ${options.limit}`);

export interface ClaimedDelivery {
  id: string;
  tenant_id: string;
  include_text: boolean;
  endpoint_id: string;
  message_id: string;
  payload: unknown;
  schedule_step: number;
  url: string;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
}

/**
 * Lease the picked deliveries that are still due: `next_attempt_at` moves past the attempt's
 * time-out, so another instance skips them now (SKIP LOCKED, and the due check is made again on a
 * row it just leased) and takes them again only if this one never records the attempt (killed
 * between send and record: sent again, same webhook-id).
 */
export const claimDeliveries = (db: Db, ids: readonly string[], leaseMs: number) =>
  db.$queryRaw<ClaimedDelivery[]>(Prisma.sql`
    WITH due AS (
      SELECT d.id FROM webhook_delivery d JOIN webhook_endpoint e ON e.id = d.endpoint_id
       WHERE d.id = ANY(${[...ids]}::uuid[]) AND d.next_attempt_at <= now() AND d.status = 'pending'
         AND e.enabled
         FOR UPDATE OF d SKIP LOCKED
    ), leased AS (
      UPDATE webhook_delivery d SET next_attempt_at = now() + make_interval(secs => ${leaseMs / 1000})
        FROM due WHERE d.id = due.id
      RETURNING d.id, d.tenant_id, d.endpoint_id, d.message_id, d.payload, d.schedule_step
    )
    SELECT l.id::text, l.tenant_id::text, l.endpoint_id::text, l.message_id, l.payload, l.schedule_step,
           e.url, e.include_text,
           e.secret_ciphertext, e.previous_secret_ciphertext, e.previous_secret_expires_at
      FROM leased l JOIN webhook_endpoint e ON e.id = l.endpoint_id`);

/** Give back a leased delivery that was not sent (its endpoint is backed off): due again at `at`, same step. */
export const deferDelivery = (db: Db, id: string, at: Date) =>
  db.webhookDelivery.updateMany({ where: { id, status: 'pending' }, data: { nextAttemptAt: at } });

export const findDelivery = (db: Db, tenantId: string, endpointId: string, id: string) =>
  db.webhookDelivery.findFirst({ where: { tenantId, endpointId, id } });

/** Back to pending with a fresh schedule; its attempts stay in the log. */
/**
 * Put a delivery back to pending; null when it is gone since it was read (pruned, or its endpoint
 * deleted): Prisma's P2025, which would otherwise be a 500.
 */
export async function requeueDelivery(db: Db, id: string) {
  try {
    return await db.webhookDelivery.update({
      where: { id },
      data: { status: 'pending', scheduleStep: 0, nextAttemptAt: new Date(), finishedAt: null },
      include: { attempts: { orderBy: { attemptedAt: 'asc' } } },
    });
  } catch (err) {
    if ((err as { code?: unknown }).code === 'P2025') return null;
    throw err;
  }
}

/** One page of an endpoint's deliveries, newest first, after the cursor's (created_at, id). */
export const listDeliveries = (
  db: Db,
  endpointId: string,
  limit: number,
  after?: { createdAt: Date; id: string },
) =>
  db.webhookDelivery.findMany({
    where: {
      endpointId,
      ...(after && {
        OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }],
      }),
    },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: limit,
    include: { attempts: { orderBy: { attemptedAt: 'asc' } } },
  });

/**
 * Delete up to `limit` deliveries that finished (succeeded or failed) more than `retentionDays` ago,
 * oldest first, with their attempts (ON DELETE CASCADE); returns how many went. A pending delivery is
 * never taken: its `finished_at` is null. The outer conditions are checked again on a row a redeliver
 * changed meanwhile (READ COMMITTED re-reads it), so a delivery put back to pending stays.
 */
export async function pruneFinishedDeliveries(db: Db, retentionDays: number, limit: number): Promise<number> {
  const [row] = await db.$queryRaw<Array<{ n: number }>>(Prisma.sql`
    WITH gone AS (
      DELETE FROM webhook_delivery
       WHERE id IN (
               SELECT id FROM webhook_delivery
                WHERE finished_at < now() - make_interval(days => ${retentionDays})
                ORDER BY finished_at LIMIT ${limit})
         AND status <> 'pending'
         AND finished_at < now() - make_interval(days => ${retentionDays})
      RETURNING 1)
    SELECT count(*)::int AS n FROM gone`);
  return row?.n ?? 0;
}
