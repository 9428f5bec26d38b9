import { randomUUID } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ensureStream } from '../src/jetstream.js';

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

describe('ensureStream', () => {
  it('when the stream is missing, then it is created with the replica count given', async () => {
    const stream = ownStream();
    const jsm = await jetstreamManager(nc);
    try {
      await ensureStream(nc, stream, { replicas: 1 });

      const info = await jsm.streams.info(stream.name);
      expect(info.config).toMatchObject({ subjects: stream.subjects, num_replicas: 1 });
    } finally {
      await jsm.streams.delete(stream.name).catch(() => undefined);
    }
  });

  it('when the stream exists with other subjects and a limit an operator set, then the subjects change and the limit stays', async () => {
    const stream = ownStream();
    const jsm = await jetstreamManager(nc);
    const hour = 3_600 * 1_000_000_000;
    await jsm.streams.add({ name: stream.name, subjects: ['ensure.old.>'], max_age: hour });
    try {
      await ensureStream(nc, stream, { replicas: 1 });
      await ensureStream(nc, stream, { replicas: 1 }); // every instance at its start: nothing to change

      const info = await jsm.streams.info(stream.name);
      expect(info.config).toMatchObject({ subjects: stream.subjects, num_replicas: 1, max_age: hour });
    } finally {
      await jsm.streams.delete(stream.name).catch(() => undefined);
    }
  });

  it('when more copies are asked for than the servers can hold, then it fails instead of keeping fewer', async () => {
    // The test server is a single node: three replicas cannot be placed.
    const stream = ownStream();
    const jsm = await jetstreamManager(nc);
    try {
      await expect(ensureStream(nc, stream, { replicas: 3 })).rejects.toThrow();
    } finally {
      await jsm.streams.delete(stream.name).catch(() => undefined);
    }
  });
});
