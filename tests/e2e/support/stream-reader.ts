import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { stackEnv } from './stack.js';

/**
 * Every message of a JetStream stream, read from the start as raw text (an ordered consumer, so
 * nothing is left behind). Raw, so tests can also check what a message does not contain.
 */
export async function streamMessages(stream: string): Promise<string[]> {
  const nc = await connect({ servers: stackEnv().natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    const { state } = await jsm.streams.info(stream);
    // filter_subjects needs a newer server than 2.9, so the whole stream is read.
    const consumer = await jetstream(nc).consumers.get(stream);
    const messages: string[] = [];
    while (messages.length < state.messages) {
      const batch = await consumer.fetch({ max_messages: 500, expires: 2_000 });
      let got = 0;
      for await (const m of batch) {
        got++;
        messages.push(m.string());
      }
      if (got === 0) break;
    }
    return messages;
  } finally {
    await nc.close();
  }
}
