import { runMain } from '@tm/kit';
import { startTelemetryService } from './app.js';
import { loadTelemetryConfig } from './config.js';

await runMain('telemetry', (logger) => startTelemetryService(loadTelemetryConfig(), logger));
