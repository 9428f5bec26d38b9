export { startTelemetryService, type TelemetryService } from './app.js';
export { loadTelemetryConfig, type TelemetryConfig, TelemetryConfigSchema } from './config.js';
/** Run by the service hourly; exported so tests can prune without waiting for it. */
export { pruneRecordsBefore } from './data-access/request-record-repository.js';
