import { describe, expect, it } from 'vitest';
import { chunkRows, type OutboxRow, outboxBatchId } from '../src/outbox/outbox-relay.js';

const row = (id: string, subject: string, payload = `{"id":"${id}"}`): OutboxRow => ({
  id,
  subject,
  payload,
});
const ids = (chunks: ReturnType<typeof chunkRows>) =>
  chunks.map((c) => ({ subject: c.subject, ids: c.rows.map((r) => r.id) }));

describe('chunkRows (one relay pass into messages)', () => {
  it('when rows of two subjects are interleaved, then each subject gets one message holding its rows in fetch order', () => {
    const rows = [row('a1', 'a'), row('b1', 'b'), row('a2', 'a'), row('b2', 'b'), row('a3', 'a')];
    expect(ids(chunkRows(rows, 1024))).toEqual([
      { subject: 'a', ids: ['a1', 'a2', 'a3'] },
      { subject: 'b', ids: ['b1', 'b2'] },
    ]);
  });

  it('when payloads pass the byte limit, then a new message starts, and a row larger than the limit travels alone', () => {
    const ten = (id: string) => row(id, 's', 'x'.repeat(10));
    const rows = [ten('1'), ten('2'), ten('3'), row('big', 's', 'y'.repeat(50)), ten('4')];
    expect(ids(chunkRows(rows, 25))).toEqual([
      { subject: 's', ids: ['1', '2'] },
      { subject: 's', ids: ['3'] },
      { subject: 's', ids: ['big'] },
      { subject: 's', ids: ['4'] },
    ]);
  });

  it('counts bytes, not characters', () => {
    const rows = [row('1', 's', 'é'.repeat(6)), row('2', 's', 'é'.repeat(6))];
    expect(ids(chunkRows(rows, 20))).toEqual([
      { subject: 's', ids: ['1'] },
      { subject: 's', ids: ['2'] },
    ]);
  });

  it('when nothing is pending, then there is nothing to publish', () => {
    expect(chunkRows([], 1024)).toEqual([]);
  });
});

describe('outboxBatchId', () => {
  it('is the same for the same rows in the same order and differs when the rows differ', () => {
    const a = [row('1', 's'), row('2', 's')];
    expect(outboxBatchId(a)).toBe(outboxBatchId([row('1', 's', 'other'), row('2', 's')]));
    expect(outboxBatchId(a)).not.toBe(outboxBatchId([row('1', 's')]));
    expect(outboxBatchId(a)).not.toBe(outboxBatchId([row('2', 's'), row('1', 's')]));
  });
});
