import { prepared, type SqlRunner } from '@tm/kit';
import type { RecordDeadLetter } from '../domain/sort-request-records.js';

const INSERT_LETTERS = prepared(
  'telemetry_insert_record_dead_letters',
  `INSERT INTO request_record_dead_letter (letter_id, gateway_instance, record_index, reason, payload)
   SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[])
   ON CONFLICT (letter_id) DO NOTHING
   RETURNING letter_id`,
);

/** Store dead letters; a redelivered one is skipped. Returns the ones stored by this call. */
export async function insertRecordDeadLetters(
  run: SqlRunner,
  letters: RecordDeadLetter[],
): Promise<RecordDeadLetter[]> {
  if (letters.length === 0) return [];
  const rows = await run<{ letter_id: string }>(INSERT_LETTERS, [
    letters.map((l) => l.letterId),
    letters.map((l) => l.gatewayInstance),
    letters.map((l) => l.recordIndex),
    letters.map((l) => l.reason),
    letters.map((l) => l.payload),
  ]);
  const stored = new Set(rows.map((r) => r.letter_id));
  return letters.filter((l) => stored.has(l.letterId));
}
