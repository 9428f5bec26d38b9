import { randomUUID } from 'node:crypto';
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { discoverySubjects, QueueGroups, type ServiceSelfReport, Subjects } from '@tm/contracts';
import type { Logger } from 'pino';
import { z } from 'zod';
import { encodeJson } from '../codec.js';
import { serveCoalescedEndpoint } from './coalescing-endpoint.js';
import { drainEndpoints } from './drain-endpoints.js';
import { EndpointStats } from './endpoint-stats.js';
import { type Endpoint, serveEndpoint } from './serve.js';

export interface ServiceOptions {
  /**
   * The `<name>` of `$SRV.<verb>.<name>` and the `service` of its health ping; its endpoints share
   * queue group QueueGroups[name], and it answers the gateway's health ping on Subjects[name].ping.
   */
  name: keyof typeof QueueGroups;
  /** Semantic version, reported by discovery and by the health ping. */
  version: string;
  /** What the health ping reports beside who answered (checkServiceHealth). */
  health: () => Promise<ServiceSelfReport>;
  /**
   * Every endpoint's error mapping (the health ping's too), unless the endpoint gives its own: e.g.
   * `storageOutage('Memory storage')`, the service's database being away answered as a retryable 503.
   */
  mapError?: Endpoint<z.ZodType>['mapError'];
}

/**
 * An endpoint of a service: its subject, input, handler and, where it differs from the service's,
 * error mapping; the queue is the service's.
 */
export type ServiceEndpoint<I extends z.ZodType> = Omit<Endpoint<I>, 'queue'>;

export interface Service {
  /** This instance's id: `$SRV.<verb>.<name>.<id>`, and the `instance` of its health ping. */
  readonly id: string;
  /** Serve one request/reply endpoint. */
  endpoint<I extends z.ZodType>(endpoint: ServiceEndpoint<I>): void;
  /** Serve one endpoint's handler for a caller's coalesced calls (coalescing-endpoint.ts). */
  coalescedEndpoint<I extends z.ZodType>(endpoint: ServiceEndpoint<I>): void;
  /**
   * Stop taking requests (discovery too), then let those taken be answered within `withinMs`
   * (drainEndpoints); resolves with how many were left unanswered.
   */
  stop(withinMs: number): Promise<number>;
}

const RESPONSE_TYPES = {
  PING: 'io.nats.micro.v1.ping_response',
  INFO: 'io.nats.micro.v1.info_response',
  STATS: 'io.nats.micro.v1.stats_response',
} as const;
type Verb = keyof typeof RESPONSE_TYPES;
const isVerb = (token: string | undefined): token is Verb => !!token && Object.hasOwn(RESPONSE_TYPES, token);

/**
 * A service on the bus as the NATS micro protocol (ADR-32) describes one, so operators' tooling
 * (`nats micro ls|info|stats`) sees it: its endpoints in one queue group, answering errors with the
 * protocol's headers, and `$SRV.PING|INFO|STATS` (for all services, for this name, for this instance)
 * answered by every instance. Served here rather than through `@nats-io/services` (docs/decisions/code-layout.md,
 * "The NATS services protocol"): that package pins a pre-release nats-core and cannot count
 * handlers that answer asynchronously, nor let a stopping service finish them (drain-endpoints.ts).
 */
export function createService(nc: NatsConnection, options: ServiceOptions, logger: Logger): Service {
  const id = randomUUID();
  const queue = QueueGroups[options.name];
  const started = new Date().toISOString();
  const endpoints: EndpointStats[] = [];
  const subscriptions: Subscription[] = [];
  const identity = () => ({ name: options.name, id, version: options.version, metadata: {} });
  // An endpoint's name in discovery: its subject after the service's name, `-` for `.` (names are [-\w]+).
  const statsOf = (subject: string) => {
    const stats = new EndpointStats(
      subject.replace(`${options.name}.`, '').replaceAll('.', '-'),
      subject,
      queue,
    );
    endpoints.push(stats);
    return stats;
  };

  const answers: Record<Verb, () => unknown> = {
    PING: () => ({ type: RESPONSE_TYPES.PING, ...identity() }),
    INFO: () => ({
      type: RESPONSE_TYPES.INFO,
      ...identity(),
      description: '',
      endpoints: endpoints.map(({ name, subject, queue_group }) => ({
        name,
        subject,
        queue_group,
        metadata: {},
      })),
    }),
    STATS: () => ({
      type: RESPONSE_TYPES.STATS,
      ...identity(),
      started,
      endpoints: endpoints.map((e) => e.report()),
    }),
  };
  const discovery = (err: Error | null, msg: Msg) => {
    if (err) {
      logger.error({ err }, 'service discovery subscription error');
      return;
    }
    const verb = msg.subject.split('.')[1];
    if (isVerb(verb)) msg.respond(encodeJson(answers[verb]()));
  };
  // No queue group: an operator's `nats micro ls` hears every instance.
  for (const subject of discoverySubjects(options.name, id)) {
    subscriptions.push(nc.subscribe(subject, { callback: discovery }));
  }

  // The service's queue, and its error mapping where the endpoint gives none.
  const served = <I extends z.ZodType>(endpoint: ServiceEndpoint<I>): Endpoint<I> => ({
    ...endpoint,
    queue,
    mapError: endpoint.mapError ?? options.mapError,
  });
  const service: Service = {
    id,
    endpoint: (endpoint) => {
      subscriptions.push(serveEndpoint(nc, served(endpoint), logger, statsOf(endpoint.subject)));
    },
    coalescedEndpoint: (endpoint) => {
      subscriptions.push(serveCoalescedEndpoint(nc, served(endpoint), logger, statsOf(endpoint.subject)));
    },
    stop: (withinMs) => drainEndpoints(subscriptions, withinMs, logger),
  };
  service.endpoint({
    subject: Subjects[options.name].ping,
    input: z.unknown(),
    handler: async () => ({
      service: options.name,
      instance: id,
      version: options.version,
      ...(await options.health()),
    }),
  });
  return service;
}
