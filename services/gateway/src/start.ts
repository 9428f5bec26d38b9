import { runMain } from '@tm/kit';
import { startGateway } from './app.js';
import { loadGatewayConfig } from './config.js';

await runMain('gateway', (logger) => startGateway(loadGatewayConfig(), logger), {
  metrics: () => {
    const config = loadGatewayConfig();
    return { port: config.GATEWAY_METRICS_PORT, host: config.METRICS_HOST };
  },
  drainMs: () => loadGatewayConfig().DRAIN_TIMEOUT_MS,
});
