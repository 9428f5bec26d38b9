import type { UsageDeadLetter } from '@tm/contracts';
import type { SqlRunner } from '@tm/kit';
import { getSql } from '../data-access/prisma-client.js';
import { insertDeadLetter } from '../data-access/request-record-repository.js';

/**
 * Billing's dead letter, counted for the usage-dead-letter anomaly: its stream sequence, reason and
 * time are kept, its payload is not. One that could not be read (`undefined`) still counts, as an
 * unreadable dead letter at the time it is counted. A redelivery is skipped by its stream sequence.
 */
export async function countUsageDeadLetter(
  streamSequence: number,
  letter: UsageDeadLetter | undefined,
  run: SqlRunner = getSql(),
): Promise<void> {
  await insertDeadLetter(run, {
    streamSequence,
    reason: letter?.reason ?? 'unreadable dead letter',
    deadLetteredAt: letter?.dead_lettered_at ?? new Date().toISOString(),
  });
}
