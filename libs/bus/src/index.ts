export type { NatsConnection, Subscription } from '@nats-io/transport-node';
export * from './bus-error.js';
export * from './codec.js';
export * from './connect.js';
export * from './jetstream/backlog-metrics.js';
export * from './jetstream/consumer-lag.js';
export * from './jetstream/durable-consumer.js';
export * from './jetstream/failure-policy.js';
export * from './jetstream/streams.js';
export * from './outbox/outbox-publisher.js';
export * from './outbox/outbox-relay.js';
export * from './outbox/outbox-table.js';
export {
  type CoalescingRequestOptions,
  createCoalescingRequester,
} from './request-reply/coalescing-endpoint.js';
export * from './request-reply/guarded-service.js';
// A service is put on the bus one way, with discovery and statistics: createService (its endpoints,
// coalesced ones, its health ping and its drain). serve.ts, coalescing-endpoint.ts and drain-endpoints.ts
// are its parts and stay inside this package.
export {
  createService,
  type Service,
  type ServiceEndpoint,
  type ServiceOptions,
} from './request-reply/nats-service.js';
export * from './request-reply/request.js';
export * from './request-reply/service-health.js';
export * from './trace-headers.js';
