import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * Create the stream if missing, or bring its subjects and replica count up to date; safe to call
 * from every instance. `replicas` is required: an update without it would set the stream back to
 * one copy, so every caller passes the deployment's JETSTREAM_REPLICAS. A stream that already has
 * this shape is left alone: on a cluster every update is a round of consensus, and one sent while
 * another instance's create of the same stream was still settling timed out (three local nodes,
 * memory and billing starting together). Settings the code does not own (an operator's `max_age`,
 * `max_bytes`) are kept on an update.
 */
export async function ensureStream(
  nc: NatsConnection,
  stream: { name: string; subjects: readonly string[] },
  options: { replicas: number },
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const owned = {
    subjects: [...stream.subjects],
    num_replicas: options.replicas,
    // Publishes with the same Nats-Msg-Id inside this window are stored once.
    duplicate_window: 10 * 60 * 1_000_000_000,
  };
  const current = await jsm.streams.info(stream.name).then(
    (info) => info.config,
    (err: unknown) => {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return undefined;
      throw err;
    },
  );
  if (!current) {
    await jsm.streams.add({ name: stream.name, ...owned });
    return;
  }
  const same =
    current.num_replicas === owned.num_replicas &&
    current.duplicate_window === owned.duplicate_window &&
    [...(current.subjects ?? [])].sort().join(' ') === [...owned.subjects].sort().join(' ');
  if (!same) await jsm.streams.update(stream.name, { ...current, ...owned });
}

export function jetStreamClient(nc: NatsConnection): JetStreamClient {
  return jetstream(nc);
}

/** Publish JSON text durably; `msgId` makes a re-publish of the same record a no-op in the stream. */
export async function publishDurable(js: JetStreamClient, subject: string, json: string, msgId: string) {
  return js.publish(subject, json, { msgID: msgId, timeout: 5_000 });
}
