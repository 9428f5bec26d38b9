import { prepared, type SqlRunner } from '@tm/kit';

const INSERT_LETTERS = prepared(
  'telemetry_insert_record_dead_letters',
  `INSERT INTO request_record_dead_letter (letter_id, gateway_instance, record_index, reason, payload)
   SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[])
   ON CONFLICT (letter_id) DO NOTHING
   RETURNING letter_id`,
);

/** The columns of a request record's dead letter (the domain's RecordDeadLetter has these and more). */
export interface DeadLetterRow {
  letterId: string;
  gatewayInstance: string | null;
  recordIndex: number | null;
  reason: string;
  payload: string;
}

/** Store dead letters; a redelivered one is skipped. Returns the ids of the ones stored by this call. */
export async function insertRecordDeadLetters(
  run: SqlRunner,
  letters: DeadLetterRow[],
): Promise<Set<string>> {
  if (letters.length === 0) return new Set();
  const rows = await run<{ letter_id: string }>(INSERT_LETTERS, [
    letters.map((l) => l.letterId),
    letters.map((l) => l.gatewayInstance),
    letters.map((l) => l.recordIndex),
    letters.map((l) => l.reason),
    letters.map((l) => l.payload),
  ]);
  return new Set(rows.map((r) => r.letter_id));
}
