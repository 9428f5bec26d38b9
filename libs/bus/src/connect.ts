import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';

/**
 * Connect once (fail fast at start so a launcher or orchestrator can restart us), then reconnect
 * forever: a NATS restart is an outage of seconds, not a reason to die.
 */
export async function connectBus(options: {
  servers: string;
  name: string;
  logger: Logger;
  /**
   * The service's NATS user and its password (<SERVICE>_NATS_PASSWORD), for a server that gives each
   * service only its own subjects (infra/nats/service-permissions.conf). No password: anonymous.
   */
  user?: string;
  password?: string | undefined;
}): Promise<NatsConnection> {
  const nc = await connect({
    servers: options.servers.split(',').map((s) => s.trim()),
    name: options.name,
    ...(options.password === undefined ? {} : { user: options.user ?? options.name, pass: options.password }),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    timeout: 5_000,
    // A cluster node whose machine dies closes no socket: the client notices only by unanswered pings,
    // two minutes apart twice by default. Every 10 s, three missed: on to another node in about 30 s.
    pingInterval: 10_000,
    maxPingOut: 3,
    // The client would otherwise build an Error (a stack capture) for every request and timer, in case
    // it fails: a twentieth of the gateway's CPU. Failures are turned into typed AppErrors anyway.
    noAsyncTraces: true,
  });
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect' || status.type === 'reconnect' || status.type === 'error') {
        options.logger.warn({ bus: status.type }, 'nats connection status');
      }
    }
  })();
  return nc;
}
