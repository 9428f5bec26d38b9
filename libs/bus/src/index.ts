export type { NatsConnection, Subscription } from '@nats-io/transport-node';
export * from './bus-error.js';
export * from './codec.js';
export * from './connect.js';
export * from './durable-consumer.js';
export * from './jetstream.js';
export * from './outbox-relay.js';
export * from './request.js';
export * from './serve.js';
