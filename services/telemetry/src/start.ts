import { runMain } from '@tm/kit';
import { startTelemetryService } from './app.js';
import { loadTelemetryConfig } from './config.js';

await runMain('telemetry', (logger) => startTelemetryService(loadTelemetryConfig(), logger), {
  metrics: () => {
    const config = loadTelemetryConfig();
    return { port: config.TELEMETRY_METRICS_PORT, host: config.METRICS_HOST };
  },
  drainMs: () => loadTelemetryConfig().DRAIN_TIMEOUT_MS,
});
