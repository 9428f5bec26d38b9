export { type MemoryService, startMemoryService } from './app.js';
export { type MemoryConfig, loadMemoryConfig, MemoryConfigSchema } from './config.js';
