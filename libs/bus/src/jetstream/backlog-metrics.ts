import type { NatsConnection } from '@nats-io/transport-node';
import { readWithin } from '@tm/kit';
import client from 'prom-client';
import { type ConsumerLag, readConsumerLag } from './consumer-lag.js';

type Read = () => Promise<number | undefined>;

const outboxes = new Map<string, Read>();
const consumers = new Map<
  string,
  {
    stream: string;
    durable: string;
    read: () => Promise<ConsumerLag | undefined>;
  }
>();

new client.Gauge({
  name: 'tm_outbox_backlog',
  help: 'Outbox rows committed but not yet published to JetStream, by outbox',
  labelNames: ['outbox'],
  async collect() {
    for (const [outbox, read] of outboxes) {
      const value = await read();
      if (value !== undefined) this.set({ outbox }, value);
    }
  },
});

const pending = new client.Gauge({
  name: 'tm_consumer_pending_messages',
  help: 'Messages of a durable JetStream consumer not yet delivered (lag), by stream and consumer',
  labelNames: ['stream', 'consumer'],
});

new client.Gauge({
  name: 'tm_consumer_ack_pending_messages',
  help: 'Messages of a durable JetStream consumer delivered but not yet acknowledged, by stream and consumer',
  labelNames: ['stream', 'consumer'],
  async collect() {
    for (const { stream, durable, read } of consumers.values()) {
      const info = await read();
      if (!info) continue;
      pending.set({ stream, consumer: durable }, info.pending);
      this.set({ stream, consumer: durable }, info.ack_pending);
    }
  },
});

/** Report this outbox's backlog (a count read at scrape time, within a second) until the returned stop. */
export function watchOutbox(outbox: string, count: () => Promise<number>): () => void {
  outboxes.set(outbox, readWithin(count));
  return () => outboxes.delete(outbox);
}

/** Report a durable consumer's lag (from JetStream's consumer info at scrape time) until the returned stop. */
export function watchConsumer(nc: NatsConnection, stream: string, durable: string): () => void {
  const key = `${stream}/${durable}`;
  consumers.set(key, {
    stream,
    durable,
    read: readWithin(() => readConsumerLag(nc, stream, durable)),
  });
  return () => consumers.delete(key);
}
