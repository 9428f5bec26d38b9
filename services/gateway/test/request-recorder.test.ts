import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectBus, jetStreamClient, type NatsConnection } from '@tm/bus';
import { type RequestRecord, RequestRecordBatch, Streams, Subjects } from '@tm/contracts';
import { createLogger, type Logger } from '@tm/kit';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { type SpawnedNatsServer, spawnNatsServer } from '../../../infra/dev/nats-server.js';
import { freePort } from '../../../infra/dev/tcp-probe.js';
import { createRequestRecorder } from '../src/clients/request-recorder.js';

const silent = createLogger({ name: 'request-recorder-test', level: 'silent' });

/**
 * Poll until `check` holds (vitest's `vi.waitFor`, as the e2e files' `eventually`; a unit test does
 * not import from tests/e2e); the deadline only bounds the wait, it is not what the test asserts.
 */
const until = (check: () => boolean, what: string) =>
  vi.waitFor(() => expect(check(), `waiting until ${what}`).toBe(true), { timeout: 20_000, interval: 25 });

/**
 * A nats-server of this test's own, with JetStream, that can be stopped and started again on the
 * same port and store directory (the shared test server of the e2e setup must not go down).
 */
async function startOwnNats() {
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'tm-recorder-nats-'));
  let running: SpawnedNatsServer | undefined;

  const server = {
    url: `nats://127.0.0.1:${port}`,
    get running() {
      return running !== undefined;
    },
    async start() {
      running = await spawnNatsServer({ port, storeDir });
    },
    async stop() {
      const stopping = running;
      running = undefined;
      await stopping?.stop();
    },
    async remove() {
      await server.stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

/** The bus connection the gateway would use (reconnects forever), and the status events it has seen. */
async function busConnection(url: string, logger: Logger = silent) {
  const nc = await connectBus({ servers: url, name: 'request-recorder-test', logger });
  const seen: string[] = [];
  void (async () => {
    for await (const status of nc.status()) seen.push(status.type);
  })();
  return { nc, seen };
}

/** A NATS server, a connection to it and a recorder on that connection, all gone when the test ends. */
async function recorderOnOwnNats(options: { maxBuffered: number; retryMs: number; logger?: Logger }) {
  const nats = await startOwnNats();
  const { nc, seen } = await busConnection(nats.url, options.logger);
  const recorder = createRequestRecorder(nc, options.logger ?? silent, {
    ...options,
    streamSettings: { replicas: 1, maxAgeHours: 1, maxMbPerStream: 16 },
  });
  onTestFinished(async () => {
    await recorder.stop(500);
    if (nats.running) await nc.drain();
    else await nc.close();
    await nats.remove();
  });
  return { nats, nc, seen, recorder };
}

let requestCounter = 0;
function requestRecord(): RequestRecord {
  requestCounter++;
  return {
    version: 'v1',
    record_id: randomUUID(),
    request_id: `request-recorder-test-${requestCounter}`,
    tenant_id: null,
    key_id: null,
    user_id: null,
    method: 'GET',
    route: '/api/v1/infrastructure/health',
    operation: null,
    status: 200,
    outcome: 'accepted',
    state: null,
    error_code: null,
    latency_ms: 1.5,
    units: 0,
    billing_state: 'no_data',
    namespace_ref: null,
    deployment_version: 'test',
    occurred_at: new Date().toISOString(),
  };
}

interface StoredBatch {
  seq: number;
  msgId: string | undefined;
  data: Uint8Array;
  batch: RequestRecordBatch;
}

/** Every message of GATEWAY_REQUESTS in stream order, read with an ordered consumer on its own connection. */
async function storedBatches(url: string): Promise<StoredBatch[]> {
  const nc = await connectBus({ servers: url, name: 'request-recorder-test-reader', logger: silent });
  try {
    const js = jetStreamClient(nc);
    const jsm = await js.jetstreamManager();
    const { state } = await jsm.streams.info(Streams.gatewayRequests.name);
    const consumer = await js.consumers.get(Streams.gatewayRequests.name);
    const stored: StoredBatch[] = [];
    while (stored.length < state.messages) {
      const fetched = await consumer.fetch({ max_messages: 500, expires: 2_000 });
      let got = 0;
      for await (const m of fetched) {
        got++;
        expect(m.subject).toBe(Subjects.gateway.requestRecorded);
        stored.push({
          seq: m.seq,
          msgId: m.headers?.get('Nats-Msg-Id') || undefined,
          data: m.data,
          batch: RequestRecordBatch.parse(m.json()),
        });
      }
      if (got === 0) break;
    }
    expect(stored).toHaveLength(state.messages);
    return stored;
  } finally {
    await nc.close();
  }
}

async function streamMessageCount(nc: NatsConnection): Promise<number> {
  const jsm = await jetStreamClient(nc).jetstreamManager();
  return (await jsm.streams.info(Streams.gatewayRequests.name)).state.messages;
}

const recordIds = (batches: StoredBatch[]) => batches.flatMap((s) => s.batch.records.map((r) => r.record_id));
const sorted = (ids: string[]) => [...ids].sort();

/** Stop the server and wait until the recorder's connection has noticed. */
async function outage(nats: { stop(): Promise<void> }, seen: string[]) {
  const before = seen.filter((s) => s === 'disconnect').length;
  await nats.stop();
  await until(
    () => seen.filter((s) => s === 'disconnect').length > before,
    'the connection saw the disconnect',
  );
}

describe('request recorder on a real nats-server', () => {
  it('when 1,000 records are recorded at once while NATS is up, then each is stored exactly once, many to a message', async () => {
    const { nats, recorder } = await recorderOnOwnNats({ maxBuffered: 10_000, retryMs: 50 });
    const records = Array.from({ length: 1_000 }, requestRecord);

    for (const record of records) recorder.record(record);
    await until(() => recorder.queued === 0, 'everything recorded was published');

    const stored = await storedBatches(nats.url);
    expect(sorted(recordIds(stored))).toEqual(sorted(records.map((r) => r.record_id)));
    expect(stored.length).toBeLessThan(records.length);
    expect(new Set(stored.map((s) => s.batch.gateway_instance)).size).toBe(1);
    expect(stored.map((s) => s.batch.dropped)).toEqual(stored.map(() => 0));
    expect(recorder.dropped).toBe(0);
  });

  it('when NATS is down, then the newest maxBuffered records are kept, the oldest dropped and counted, and the count rides on the first batch after it is back', async () => {
    const maxBuffered = 100;
    const K = 30;
    const { nats, seen, recorder } = await recorderOnOwnNats({ maxBuffered, retryMs: 50 });
    const before = Array.from({ length: 5 }, requestRecord);
    for (const record of before) recorder.record(record);
    await until(() => recorder.queued === 0, 'the records before the outage were published');
    const storedBefore = await storedBatches(nats.url);
    expect(sorted(recordIds(storedBefore))).toEqual(sorted(before.map((r) => r.record_id)));

    await outage(nats, seen);
    const during = Array.from({ length: maxBuffered + K }, requestRecord);
    const queuedAfterEach: number[] = [];
    for (const record of during) {
      recorder.record(record);
      queuedAfterEach.push(recorder.queued);
    }

    // The batch being tried (the first record of the outage) is held on top of the buffer until its
    // publish fails; then it is back in line as the oldest, and goes.
    expect(Math.max(...queuedAfterEach)).toBeLessThanOrEqual(maxBuffered + 1);
    await until(() => recorder.dropped === K, 'the failed batch was dropped as the oldest');
    expect(recorder.queued).toBe(maxBuffered);

    await nats.start();
    await until(() => recorder.queued === 0, 'the records kept through the outage were published');
    const after = requestRecord();
    recorder.record(after);
    await until(() => recorder.queued === 0, 'the record after the outage was published');

    const stored = await storedBatches(nats.url);
    const outageBatches = stored.slice(storedBefore.length, -1);
    const last = stored.at(-1);
    // Records named by their place in the outage (0 = recorded first), so a failure reads as positions.
    const position = new Map(during.map((r, i) => [r.record_id, i]));
    const positions = (batches: StoredBatch[]) =>
      recordIds(batches)
        .map((id) => position.get(id) ?? -1)
        .sort((a, b) => a - b);
    // Soft: each property of the recovery is reported on its own.
    expect.soft(positions(outageBatches)).toEqual(during.slice(K).map((_, i) => K + i));
    const ids = recordIds(stored);
    expect.soft(ids.length - new Set(ids).size, 'records stored more than once').toBe(0);
    expect.soft(ids.length).toBe(before.length + maxBuffered + 1);
    expect.soft(outageBatches[0]?.batch.dropped).toBe(K);
    expect.soft(outageBatches.map((s) => s.batch.dropped).reduce((a, b) => a + b, 0)).toBe(K);
    expect.soft(last?.batch.records.map((r) => r.record_id)).toEqual([after.record_id]);
    expect.soft(last?.batch.dropped).toBe(0);
    expect.soft(recorder.dropped).toBe(K);
    expect.soft(recorder.queued).toBe(0);
  });

  it('when a publish fails during an outage and is retried, then each batch is stored once and a re-publish of a stored batch is a duplicate', async () => {
    // The recorder's warnings are how the test knows a publish attempt failed (and will be retried);
    // they go to memory, not to the console.
    const warnings: string[] = [];
    const logger = createLogger({
      name: 'request-recorder-test',
      level: 'warn',
      destination: { write: (line: string) => void warnings.push(line) },
    });
    const { nats, nc, seen, recorder } = await recorderOnOwnNats({ maxBuffered: 1_000, retryMs: 50, logger });
    const warm = requestRecord();
    recorder.record(warm);
    await until(() => recorder.queued === 0, 'the stream exists and the recorder is idle');

    await outage(nats, seen);
    const failedBefore = warnings.filter((w) => w.includes('request records not published')).length;
    const during = Array.from({ length: 50 }, requestRecord);
    for (const record of during) recorder.record(record);
    await until(
      () => warnings.filter((w) => w.includes('request records not published')).length > failedBefore,
      'a publish attempt failed while NATS was down',
    );
    await nats.start();
    await until(() => recorder.queued === 0, 'the records kept through the outage were published');

    const stored = await storedBatches(nats.url);
    const msgIds = stored.map((s) => s.msgId);
    expect(msgIds.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(msgIds).size).toBe(stored.length);
    expect(new Set(stored.map((s) => JSON.stringify(s.batch))).size).toBe(stored.length);
    expect(sorted(recordIds(stored))).toEqual(sorted([warm, ...during].map((r) => r.record_id)));

    // Publishing a stored batch again under its message id, as a retry after a lost ack does, stores nothing.
    const js = jetStreamClient(nc);
    const acks = [];
    for (const s of stored) {
      acks.push(await js.publish(Subjects.gateway.requestRecorded, s.data, { msgID: s.msgId }));
    }
    expect(acks.map((a) => ({ duplicate: a.duplicate, seq: a.seq }))).toEqual(
      stored.map((s) => ({ duplicate: true, seq: s.seq })),
    );
    expect(await streamMessageCount(nc)).toBe(stored.length);
  });
});
