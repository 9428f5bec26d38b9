import { createPerTurnCoalescer } from '@tm/kit';
import { Prisma } from './generated/client.js';
import type { Db } from './prisma-client.js';

/** One answered attempt and where it leaves its delivery. */
export interface AttemptRecord {
  id: string;
  deliveryId: string;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** pending: due again at `nextAttemptAt`; succeeded or failed: finished now. */
  status: 'pending' | 'succeeded' | 'failed';
  scheduleStep: number;
  nextAttemptAt: Date | null;
}

/** Attempts recorded in one statement, at most. */
const MAX_BATCH = 128;

/**
 * Record attempts and settle their deliveries in one statement: insert each attempt, move its
 * delivery to its new state. A delivery gone meanwhile (its endpoint deleted while the attempt was in
 * flight) records nothing and is no error.
 */
export const recordAttempts = (db: Db, rows: readonly AttemptRecord[]) =>
  db.$executeRaw(Prisma.sql`
    WITH input AS (
      SELECT * FROM unnest(
        ${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.deliveryId)}::uuid[],
        ${rows.map((r) => r.attemptedAt.toISOString())}::timestamptz[], ${rows.map((r) => r.statusCode)}::int[],
        ${rows.map((r) => r.latencyMs)}::int[], ${rows.map((r) => r.error)}::text[],
        ${rows.map((r) => r.status)}::text[], ${rows.map((r) => r.scheduleStep)}::int[],
        ${rows.map((r) => r.nextAttemptAt?.toISOString() ?? null)}::timestamptz[]
      ) AS i(id, delivery_id, attempted_at, status_code, latency_ms, error, status, schedule_step, next_attempt_at)
    ), settled AS (
      UPDATE webhook_delivery d
         SET status = i.status::"DeliveryStatus", schedule_step = i.schedule_step,
             next_attempt_at = i.next_attempt_at,
             finished_at = CASE WHEN i.status = 'pending' THEN NULL ELSE now() END
        FROM input i WHERE d.id = i.delivery_id
      RETURNING d.id
    )
    INSERT INTO webhook_attempt (id, delivery_id, attempted_at, status_code, latency_ms, error)
    SELECT i.id, i.delivery_id, i.attempted_at, i.status_code, i.latency_ms, i.error
      FROM input i JOIN settled s ON s.id = i.delivery_id`);

/**
 * `recordAttempts`, gathered per turn of the event loop: an instance answered dozens of attempts a
 * second, each two statements of its own (most of the webhooks service's CPU under load). If a batch
 * fails, each attempt is recorded on its own, so one cannot fail the others.
 */
export type AttemptRecorder = (row: AttemptRecord) => Promise<void>;

export function createAttemptRecorder(db: Db): AttemptRecorder {
  interface Pending {
    row: AttemptRecord;
    resolve: () => void;
    reject: (err: unknown) => void;
  }
  const alone = (p: Pending) => recordAttempts(db, [p.row]).then(() => p.resolve(), p.reject);
  const add = createPerTurnCoalescer<Pending>({
    maxItems: MAX_BATCH,
    flush: (batch) =>
      void recordAttempts(
        db,
        batch.map((p) => p.row),
      ).then(
        () => {
          for (const p of batch) p.resolve();
        },
        (err: unknown) => {
          if (batch.length === 1) batch[0]?.reject(err);
          else void Promise.all(batch.map(alone));
        },
      ),
  });
  return (row: AttemptRecord) => new Promise<void>((resolve, reject) => add({ row, resolve, reject }));
}
