export { type MemoryService, startMemoryService } from './app.js';
export { loadMemoryConfig, type MemoryConfig, MemoryConfigSchema } from './config.js';
/** Run by the service on an interval; exported so tests can prune without waiting for it. */
export { pruneExpiredEntries } from './data-access/idempotency-pruning.js';
