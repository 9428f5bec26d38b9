export { type MemoryService, startMemoryService } from './app.js';
export { loadMemoryConfig, type MemoryConfig, MemoryConfigSchema } from './config.js';
