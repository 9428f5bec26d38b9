import { randomInt } from 'node:crypto';
import { Subjects } from '@tm/contracts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closePrisma, getSql, initPrisma } from '../src/data-access/prisma-client.js';
import { countUsageDeadLetter } from '../src/domain/count-usage-dead-letter.js';

// The run's shared (migrated) telemetry database; each test has stream sequences of its own.
beforeAll(() => {
  initPrisma(inject('stack').telemetryDbUrl, 2);
});
afterAll(() => closePrisma());

const uniqueSequence = () => randomInt(1_000_000_000, 2 ** 47);

const kept = (streamSequence: number) =>
  getSql()<{ reason: string; dead_lettered_at: Date }>(
    'SELECT reason, dead_lettered_at FROM usage_dead_letter WHERE stream_sequence = $1',
    [streamSequence],
  );

describe('countUsageDeadLetter', () => {
  it('when billing dead-letters a usage record, then its sequence, reason and time are kept, and its redelivery is not counted twice', async () => {
    // Arrange
    const seq = uniqueSequence();
    const letter = {
      stream_sequence: 7,
      subject: Subjects.memory.usageRecorded,
      reason: 'unknown operation',
      payload: '{"usage_id":"u-1"}',
      dead_lettered_at: '2026-11-21T00:00:01.000Z',
    };

    // Act
    await countUsageDeadLetter(seq, letter);
    await countUsageDeadLetter(seq, { ...letter, reason: 'the same letter again' });

    // Assert
    expect(await kept(seq)).toEqual([
      { reason: 'unknown operation', dead_lettered_at: new Date('2026-11-21T00:00:01.000Z') },
    ]);
  });

  it('when a dead letter cannot be read, then it still counts, as unreadable, at the time it is counted', async () => {
    // Arrange
    const seq = uniqueSequence();
    const before = Date.now();

    // Act
    await countUsageDeadLetter(seq, undefined);

    // Assert
    const [row, ...more] = await kept(seq);
    expect(more).toEqual([]);
    expect(row?.reason).toBe('unreadable dead letter');
    expect(row?.dead_lettered_at.getTime()).toBeGreaterThanOrEqual(before);
  });
});
