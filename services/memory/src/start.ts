import { runMain } from '@tm/kit';
import { startMemoryService } from './app.js';
import { loadMemoryConfig } from './config.js';

await runMain('memory', (logger) => startMemoryService(loadMemoryConfig(), logger), {
  metrics: () => {
    const config = loadMemoryConfig();
    return { port: config.MEMORY_METRICS_PORT, host: config.METRICS_HOST };
  },
  drainMs: () => loadMemoryConfig().DRAIN_TIMEOUT_MS,
});
