import { runMain } from '@tm/kit';
import { startBillingService } from './app.js';
import { loadBillingConfig } from './config.js';

await runMain('billing', (logger) => startBillingService(loadBillingConfig(), logger), {
  metrics: () => {
    const config = loadBillingConfig();
    return { port: config.BILLING_METRICS_PORT, host: config.METRICS_HOST };
  },
  drainMs: () => loadBillingConfig().DRAIN_TIMEOUT_MS,
});
