import { connect } from '@nats-io/transport-node';
import { stackEnv } from './stack.js';

/**
 * A faulty service on the stack's real nats-server, in the real service's queue group: while the
 * service itself is stopped, it is the one that gets the gateway's requests on `subject`. `answer`
 * gives the reply body, or undefined to say nothing (the caller then times out).
 */
export async function standInService(
  subject: string,
  queue: string,
  answer: (request: unknown) => unknown,
): Promise<{ stop: () => Promise<void> }> {
  const nc = await connect({ servers: stackEnv().natsUrl });
  nc.subscribe(subject, {
    queue,
    callback: (_err, msg) => {
      const reply = answer(msg.json());
      if (reply !== undefined) msg.respond(JSON.stringify(reply));
    },
  });
  await nc.flush(); // subscribed on the server before the test goes on
  return { stop: () => nc.close() };
}
