import { Consumers, discoverySubjects, Streams, Subjects } from './subjects.js';

/**
 * What each service may do on NATS, derived from the subject list above so the two cannot drift:
 * infra/nats/service-permissions.conf is rendered from this (infra/dev/nats-permissions.ts) and a
 * test holds the committed file to it. A service answers its own request subjects (and the NATS micro
 * protocol's discovery of itself), calls the ones listed, publishes its own durable subjects, and touches JetStream only for its own streams and
 * consumers (create, update, info, fetch, ack: never delete).
 */
export type BusService = keyof typeof BusRoles;
type Stream = { name: string; subjects: readonly string[] };
type Owner = 'memory' | 'billing' | 'telemetry' | 'template' | 'gateway' | 'webhooks';

/** Does a NATS subject pattern (`*` one token, `>` the rest) cover this subject? */
export function subjectMatches(pattern: string, subject: string): boolean {
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return s.length > i;
    if (i >= s.length || (p[i] !== '*' && p[i] !== s[i])) return false;
  }
  return p.length === s.length;
}

const streams: readonly Stream[] = Object.values(Streams);
const isDurable = (subject: string) =>
  streams.some((s) => s.subjects.some((p) => subjectMatches(p, subject)));

/** The request/reply subjects a service answers: every subject it owns that is not a stream's. */
export const requestSubjects = (owner: Owner): string[] =>
  Object.values(Subjects[owner]).filter(
    (subject) => !isDurable(subject) && subject !== Subjects.gateway.identityChanged,
  );

const consumer = (stream: Stream, durable: string) => ({ stream, durable });

export const BusRoles = {
  gateway: {
    serves: [] as string[],
    /** Every instance publishes and answers it (no queue group): drop a tenant's cached keys. */
    broadcasts: [Subjects.gateway.identityChanged],
    calls: [
      ...requestSubjects('memory'),
      ...requestSubjects('billing'),
      ...requestSubjects('telemetry'),
      ...requestSubjects('template'),
      ...requestSubjects('webhooks'),
    ],
    publishesDurable: [Subjects.gateway.requestRecorded],
    ensuresStreams: [Streams.gatewayRequests],
    consumes: [],
  },
  memory: {
    serves: requestSubjects('memory'),
    broadcasts: [],
    calls: [],
    publishesDurable: [
      Subjects.memory.usageRecorded,
      Subjects.memory.namespaceDeleted,
      Subjects.memory.memoryDeleted,
    ],
    ensuresStreams: [Streams.memoryUsage, Streams.memoryEvents],
    consumes: [],
  },
  billing: {
    serves: requestSubjects('billing'),
    broadcasts: [],
    calls: [],
    publishesDurable: [Subjects.billing.usageDeadLetter, Subjects.billing.chargeVoided],
    ensuresStreams: [Streams.memoryUsage, Streams.billingDeadLetters, Streams.billingEvents],
    consumes: [consumer(Streams.memoryUsage, Consumers.billingUsage)],
  },
  telemetry: {
    serves: requestSubjects('telemetry'),
    broadcasts: [],
    calls: [],
    publishesDurable: [Subjects.telemetry.anomalyRaised],
    ensuresStreams: [Streams.gatewayRequests, Streams.billingDeadLetters, Streams.telemetryEvents],
    consumes: [
      consumer(Streams.gatewayRequests, Consumers.telemetryRequests),
      consumer(Streams.billingDeadLetters, Consumers.telemetryDeadLetters),
    ],
  },
  template: {
    serves: requestSubjects('template'),
    broadcasts: [],
    calls: [Subjects.memory.write, Subjects.memory.ping, Subjects.billing.getPrices],
    publishesDurable: [Subjects.template.importCompleted, Subjects.template.importFailed],
    ensuresStreams: [Streams.templateEvents],
    consumes: [],
  },
  webhooks: {
    serves: requestSubjects('webhooks'),
    broadcasts: [],
    calls: [Subjects.memory.getText],
    publishesDurable: [],
    ensuresStreams: [
      Streams.memoryUsage,
      Streams.memoryEvents,
      Streams.templateEvents,
      Streams.telemetryEvents,
      Streams.billingEvents,
    ],
    consumes: [
      consumer(Streams.memoryUsage, Consumers.webhooksMemoryUsage),
      consumer(Streams.memoryEvents, Consumers.webhooksMemoryEvents),
      consumer(Streams.templateEvents, Consumers.webhooksTemplateEvents),
      consumer(Streams.telemetryEvents, Consumers.webhooksTelemetryEvents),
      consumer(Streams.billingEvents, Consumers.webhooksBillingEvents),
    ],
  },
} satisfies Record<
  Owner,
  {
    serves: string[];
    broadcasts: string[];
    calls: string[];
    publishesDurable: string[];
    ensuresStreams: Stream[];
    consumes: Array<{ stream: Stream; durable: string }>;
  }
>;

/** Replies to requests and JetStream API answers all arrive on the client's inbox. */
export const INBOX = '_INBOX.>';

/**
 * The subjects a service may publish to and subscribe on. Answers go back through the server's
 * `allow_responses` (only to the reply subject of a message the service received), so no service
 * may publish into another's inbox.
 */
export function natsPermissions(service: BusService): { publish: string[]; subscribe: string[] } {
  const role = BusRoles[service];
  const jetStream = [
    ...(role.ensuresStreams.length + role.consumes.length > 0 ? ['$JS.API.INFO'] : []),
    ...role.ensuresStreams.flatMap(({ name }) =>
      ['INFO', 'CREATE', 'UPDATE'].map((verb) => `$JS.API.STREAM.${verb}.${name}`),
    ),
    ...role.consumes.flatMap(({ stream, durable }) => [
      `$JS.API.CONSUMER.CREATE.${stream.name}.${durable}`,
      `$JS.API.CONSUMER.CREATE.${stream.name}.${durable}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${stream.name}.${durable}`,
      `$JS.API.CONSUMER.INFO.${stream.name}.${durable}`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream.name}.${durable}`,
      `$JS.ACK.${stream.name}.${durable}.>`,
    ]),
  ];
  const unique = (subjects: string[]) => [...new Set(subjects)];
  return {
    publish: unique([...role.calls, ...role.broadcasts, ...role.publishesDurable, ...jetStream]),
    subscribe: unique([
      ...role.serves,
      // A service answers the micro protocol's discovery too (it serves, so it is discoverable).
      ...(role.serves.length > 0 ? discoverySubjects(service) : []),
      ...role.broadcasts,
      INBOX,
    ]),
  };
}
