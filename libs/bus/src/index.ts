export type { NatsConnection, Subscription } from '@nats-io/transport-node';
export * from './backlog-metrics.js';
export * from './bus-error.js';
export { type CoalescingRequestOptions, createCoalescingRequester } from './coalescing-endpoint.js';
export * from './codec.js';
export * from './connect.js';
export * from './consumer-lag.js';
export * from './durable-consumer.js';
export * from './jetstream.js';
// A service is put on the bus one way, with discovery and statistics: createService (its endpoints,
// batched ones, its health ping and its drain). serve.ts, batched-endpoint.ts and drain-endpoints.ts
// are its parts and stay inside this package.
export { createService, type Service, type ServiceEndpoint, type ServiceOptions } from './nats-service.js';
export * from './outbox-publisher.js';
export * from './outbox-relay.js';
export * from './outbox-table.js';
export * from './request.js';
export * from './service-health.js';
export * from './trace-headers.js';
