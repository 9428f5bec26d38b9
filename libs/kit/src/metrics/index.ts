export * from './metrics-server.js';
export * from './pool-metrics.js';
export * from './registry.js';
