import { type JetStreamClient, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * Create the stream if missing, or bring its subjects and replica count up to date; safe to call
 * from every instance. `replicas` is required: an update without it would set the stream back to
 * one copy, so every caller passes the deployment's JETSTREAM_REPLICAS.
 */
export async function ensureStream(
  nc: NatsConnection,
  stream: { name: string; subjects: readonly string[] },
  options: { replicas: number },
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config = {
    name: stream.name,
    subjects: [...stream.subjects],
    num_replicas: options.replicas,
    // Publishes with the same Nats-Msg-Id inside this window are stored once.
    duplicate_window: 10 * 60 * 1_000_000_000,
  };
  try {
    await jsm.streams.info(stream.name);
    await jsm.streams.update(stream.name, config);
  } catch {
    await jsm.streams.add(config);
  }
}

export function jetStreamClient(nc: NatsConnection): JetStreamClient {
  return jetstream(nc);
}

/** Publish JSON text durably; `msgId` makes a re-publish of the same record a no-op in the stream. */
export async function publishDurable(js: JetStreamClient, subject: string, json: string, msgId: string) {
  return js.publish(subject, json, { msgID: msgId, timeout: 5_000 });
}
