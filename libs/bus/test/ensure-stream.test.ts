import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureStream, type StreamSettings } from '../src/jetstream/streams.js';

let nc: NatsConnection;
beforeAll(async () => {
  nc = await connect({ servers: inject('stack').natsUrl });
});
afterAll(() => nc.close());

/** A stream of this test's own, removed when the test ends. */
function ownStream() {
  const id = randomUUID().slice(0, 8);
  return { name: `ENSURE_${id}`, subjects: [`ensure.${id}.>`] };
}

const HOUR_NS = 3_600 * 1_000_000_000;
const MIB = 1024 * 1024;
/** The defaults of JETSTREAM_MAX_AGE_HOURS and JETSTREAM_MAX_MB_PER_STREAM, one copy. */
const settings: StreamSettings = { replicas: 1, maxAgeHours: 168, maxMbPerStream: 1024 };

describe('ensureStream', () => {
  it('when the stream is missing, then it is created with the replica count, age and size limits given', async () => {
    const stream = ownStream();
    const jsm = await jetstreamManager(nc);
    try {
      await ensureStream(nc, stream, settings);

      const info = await jsm.streams.info(stream.name);
      expect(info.config).toMatchObject({
        subjects: stream.subjects,
        num_replicas: 1,
        max_age: 168 * HOUR_NS,
        max_bytes: 1024 * MIB,
        duplicate_window: 10 * 60 * 1_000_000_000,
        discard: 'old',
      });
    } finally {
      await jsm.streams.delete(stream.name).catch(() => undefined);
    }
  });

  it('when the stream exists without limits and with a setting an operator made, then it gets the limits and keeps the setting', async () => {
    // A stream as every start of an older release left it: no age or size limit; max_msgs is the operator's.
    const stream = ownStream();
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: stream.name, subjects: ['ensure.old.>'], max_msgs: 50_000 });
    try {
      await ensureStream(nc, stream, settings);
      await ensureStream(nc, stream, settings); // every instance at its start: nothing to change

      const info = await jsm.streams.info(stream.name);
      expect(info.config).toMatchObject({
        subjects: stream.subjects,
        num_replicas: 1,
        max_msgs: 50_000,
        max_age: 168 * HOUR_NS,
        max_bytes: 1024 * MIB,
      });
    } finally {
      await jsm.streams.delete(stream.name).catch(() => undefined);
    }
  });

  it('when the deployment changes its limits, then the existing stream takes the new ones at the next start', async () => {
    const stream = ownStream();
    const jsm = await jetstreamManager(nc);
    try {
      await ensureStream(nc, stream, settings);
      await ensureStream(nc, stream, { replicas: 1, maxAgeHours: 24, maxMbPerStream: 64 });

      const info = await jsm.streams.info(stream.name);
      expect(info.config).toMatchObject({ max_age: 24 * HOUR_NS, max_bytes: 64 * MIB });
    } finally {
      await jsm.streams.delete(stream.name).catch(() => undefined);
    }
  });

  it('when more copies are asked for than the servers can hold, then it fails instead of keeping fewer', async () => {
    // The test server is a single node: three replicas cannot be placed.
    const stream = ownStream();
    const jsm = await jetstreamManager(nc);
    try {
      await expect(ensureStream(nc, stream, { ...settings, replicas: 3 })).rejects.toThrow();
    } finally {
      await jsm.streams.delete(stream.name).catch(() => undefined);
    }
  });
});
