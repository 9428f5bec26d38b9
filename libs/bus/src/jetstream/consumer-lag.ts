import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

export interface ConsumerLag {
  /** Messages in the stream not yet delivered to the consumer. */
  pending: number;
  /** Messages delivered but not yet acknowledged. */
  ack_pending: number;
}

/** A durable consumer's lag, from JetStream's consumer info (one API round trip). */
export async function readConsumerLag(
  nc: NatsConnection,
  stream: string,
  durable: string,
): Promise<ConsumerLag> {
  const info = await (await jetstreamManager(nc)).consumers.info(stream, durable);
  return { pending: info.num_pending, ack_pending: info.num_ack_pending };
}
