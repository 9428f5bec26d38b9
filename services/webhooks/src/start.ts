import { runMain } from '@tm/kit';
import { startWebhooksService } from './app.js';
import { loadWebhooksConfig } from './config.js';

await runMain('webhooks', (logger) => startWebhooksService(loadWebhooksConfig(), logger), {
  metrics: () => {
    const config = loadWebhooksConfig();
    return { port: config.WEBHOOKS_METRICS_PORT, host: config.METRICS_HOST };
  },
  drainMs: () => loadWebhooksConfig().DRAIN_TIMEOUT_MS,
});
