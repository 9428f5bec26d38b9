import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * What the deployment decides about every stream the services create (the JETSTREAM_* variables,
 * validated in each service's config): copies, and how long and how much a stream keeps.
 */
export interface StreamSettings {
  replicas: number;
  maxAgeHours: number;
  maxMbPerStream: number;
}

export const streamSettingsOf = (c: {
  JETSTREAM_REPLICAS: number;
  JETSTREAM_MAX_AGE_HOURS: number;
  JETSTREAM_MAX_MB_PER_STREAM: number;
}): StreamSettings => ({
  replicas: c.JETSTREAM_REPLICAS,
  maxAgeHours: c.JETSTREAM_MAX_AGE_HOURS,
  maxMbPerStream: c.JETSTREAM_MAX_MB_PER_STREAM,
});

const NS_PER_HOUR = 3_600 * 1_000_000_000;

/**
 * Create the stream if missing, or bring its subjects, replica count and limits up to date; safe to
 * call from every instance. `settings` is required: an update without a replica count would set the
 * stream back to one copy, and one without limits would let it grow forever (GATEWAY_REQUESTS once
 * held 108k messages, every one already consumed). A stream that already has this shape is left
 * alone: on a cluster every update is a round of consensus, and one sent while another instance's
 * create of the same stream was still settling timed out (three local nodes, memory and billing
 * starting together). Settings the code does not own (an operator's `max_msgs`, `max_msg_size`,
 * `discard`) are kept on an update; the age and size limits are the deployment's JETSTREAM_*
 * variables, so a changed value reaches existing streams at the next start, as replicas do.
 */
export async function ensureStream(
  nc: NatsConnection,
  stream: { name: string; subjects: readonly string[] },
  settings: StreamSettings,
): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const owned = {
    subjects: [...stream.subjects],
    num_replicas: settings.replicas,
    // Publishes with the same Nats-Msg-Id inside this window are stored once.
    duplicate_window: 10 * 60 * 1_000_000_000,
    // Messages stay after they are acknowledged (limits retention): these bound what is kept.
    max_age: settings.maxAgeHours * NS_PER_HOUR,
    max_bytes: settings.maxMbPerStream * 1024 * 1024,
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
    current.max_age === owned.max_age &&
    current.max_bytes === owned.max_bytes &&
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
