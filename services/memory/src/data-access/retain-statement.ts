import type { Prisma } from './generated/client.js';
import type { NewRecord } from './memory-repository.js';
import type { Db } from './prisma-client.js';

export interface RetainInput {
  record: NewRecord;
  idempotency: { key: string; fingerprint: string; response: Prisma.InputJsonValue };
  usage: { id: string; subject: string; payload: Prisma.InputJsonValue };
}

/**
 * The hot path of a write, in one statement (one round trip): claim the idempotency key, insert the
 * record only if the claim succeeded, enqueue the usage row only if the record went in.
 *
 * - `claimed = false`: the key is taken. A concurrent claim of the same key blocks on the unique
 *   index until the holder's transaction ends, so the caller then reads a committed entry.
 * - `claimed = true, inserted = false`: the event id already exists in the namespace; the caller
 *   must roll back (the claim is in its transaction).
 */
export async function claimAndRetain(
  db: Db,
  input: RetainInput,
): Promise<{ claimed: boolean; inserted: boolean }> {
  const { record: r, idempotency: i, usage: u } = input;
  const [row] = await db.$queryRaw<Array<{ claimed: number; inserted: number }>>`
    WITH claim AS (
      INSERT INTO idempotency_entry (tenant_id, key, namespace, fingerprint, request_id, response)
      VALUES (${r.tenantId}, ${i.key}, ${r.namespace}, ${i.fingerprint}, ${r.requestId}, ${JSON.stringify(i.response)}::jsonb)
      ON CONFLICT (tenant_id, key) DO NOTHING
      RETURNING 1
    ), rec AS (
      INSERT INTO memory_record (id, tenant_id, user_id, namespace, event_id, occurred_at, text, terms, source, request_id)
      SELECT ${r.id}::uuid, ${r.tenantId}, ${r.userId}, ${r.namespace}, ${r.eventId}, ${r.occurredAt}, ${r.text},
             ${r.terms}::text[], ${r.source === null ? null : JSON.stringify(r.source)}::jsonb, ${r.requestId}
       WHERE EXISTS (SELECT 1 FROM claim)
      ON CONFLICT (tenant_id, namespace, event_id) DO NOTHING
      RETURNING 1
    ), usage AS (
      INSERT INTO outbox_message (id, subject, payload)
      SELECT ${u.id}::uuid, ${u.subject}, ${JSON.stringify(u.payload)}::jsonb
       WHERE EXISTS (SELECT 1 FROM rec)
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM claim)::int AS claimed, (SELECT count(*) FROM rec)::int AS inserted`;
  return { claimed: row?.claimed === 1, inserted: row?.inserted === 1 };
}
