// The bench's batch-write scenario against its single writes: the same memories, 100 a request,
// and a batch counted only when every item was retained as new.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { batchTable, type Measured } from './bench-targets.js';
import { WRITE_BATCH_SIZE, writeBatchRequests, writeRequests } from './memory-api.js';
import { type LoadResult, runLoad } from './run-load.js';
import { TextCorpus } from './text-corpus.js';

/** The bodies autocannon sends for `amount` requests on one connection, each answered with `answer`. */
async function sentBodies(request: Parameters<typeof runLoad>[0], amount: number, answer = '{}') {
  const bodies: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      bodies.push(JSON.parse(body));
      res.setHeader('content-type', 'application/json');
      res.end(answer);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  try {
    const result = await runLoad(request, { baseUrl: `http://127.0.0.1:${port}`, connections: 1, amount });
    return { bodies, result };
  } finally {
    server.close();
  }
}

type Event = { event_id: string; occurred_at: string; content: { text: string } };

describe('writeBatchRequests', () => {
  it('when two batches are sent, then they carry the events 200 single writes from the same corpus would, each key its own and its event id', async () => {
    // Arrange: two corpora with the same seed, one for each side.
    const batches = writeBatchRequests('tmk_k', 'ns', new TextCorpus(), 'b');
    const singles = writeRequests('tmk_k', 'ns', new TextCorpus(), 'b');

    // Act
    const { bodies } = await sentBodies(batches, 2);
    const single = Array.from(
      { length: 2 * WRITE_BATCH_SIZE },
      () => JSON.parse(singles.next().body) as { event: Event },
    );

    // Assert
    const items = (bodies as { items: { idempotency_key: string; event: Event }[] }[]).flatMap(
      (b) => b.items,
    );
    expect(bodies.map((b) => Object.keys(b as object))).toEqual([
      ['contract_version', 'namespace', 'items'],
      ['contract_version', 'namespace', 'items'],
    ]);
    expect(items).toHaveLength(200);
    expect(new Set(items.map((i) => i.idempotency_key)).size).toBe(200);
    expect(items.every((i) => i.event.event_id === i.idempotency_key)).toBe(true);
    expect(items.map((i) => i.event)).toEqual(single.map((s) => s.event));
  });

  it('when a batch is answered, then it counts only when every item was retained as new', async () => {
    const answer = (accepted: number, state = 'retained') =>
      JSON.stringify({ state, item_counts: { total: WRITE_BATCH_SIZE, accepted } });
    const { accept } = writeBatchRequests('tmk_k', 'ns', new TextCorpus(), 'b');

    expect(accept?.(answer(WRITE_BATCH_SIZE))).toBe(true);
    expect(accept?.(answer(WRITE_BATCH_SIZE - 1))).toBe(false); // one replayed, refused or failed
    expect(accept?.(answer(WRITE_BATCH_SIZE, 'not_retained'))).toBe(false);
    expect(accept?.('not json')).toBe(false);
    const { result } = await sentBodies(
      writeBatchRequests('tmk_k', 'ns', new TextCorpus(), 'b'),
      3,
      answer(99),
    );
    expect([result.ok, result.rejected]).toEqual([0, 3]);
  });
});

describe('batchTable', () => {
  const run = (rps: number): LoadResult => ({
    rps,
    ok: 1,
    rejected: 0,
    non2xx: 0,
    errors: 0,
    statusCodes: { '200': 1 },
    seconds: 1,
    p50: 1,
    p95: 1,
    p99: 1,
    max: 1,
  });
  const measured = (batchWrite?: Measured['batchWrite']): Measured => ({
    baselineRps: 1,
    sameWorkWriteRps: 1,
    writeRps: 1,
    connections: 32,
    recallAt: new Map(),
    telemetry: new Map(),
    batchWrite,
  });

  it('when the comparison ran, then memories a second are requests times events and the ratio is to single writes', () => {
    const table = batchTable(measured({ connections: 4, size: 100, single: run(400), batch: run(25) }));

    expect(table).toContain('| Single `/write`, one event a request | 4 | 400 | 400 | 1.00× |');
    expect(table).toContain('| `/write/batch`, 100 events a request | 4 | 25.0 | 2500 | 6.25× |');
  });

  it('when it did not run, then there is no table', () => {
    expect(batchTable(measured())).toBe('');
  });
});
