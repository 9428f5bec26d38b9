import { runMain } from '@tm/kit';
import { startTemplateService } from './app.js';
import { loadTemplateConfig } from './config.js';

await runMain('template', (logger) => startTemplateService(loadTemplateConfig(), logger), {
  metrics: () => {
    const config = loadTemplateConfig();
    return { port: config.TEMPLATE_METRICS_PORT, host: config.METRICS_HOST };
  },
  drainMs: () => loadTemplateConfig().DRAIN_TIMEOUT_MS,
});
