export { startTelemetryService, type TelemetryService } from './app.js';
export { loadTelemetryConfig, type TelemetryConfig, TelemetryConfigSchema } from './config.js';
