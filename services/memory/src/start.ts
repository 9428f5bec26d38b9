import { runMain } from '@tm/kit';
import { startMemoryService } from './app.js';
import { loadMemoryConfig } from './config.js';

await runMain('memory', (logger) => startMemoryService(loadMemoryConfig(), logger));
