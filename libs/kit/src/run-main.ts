import { ConfigError, env } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { type MetricsServer, serveMetrics } from './metrics/metrics-server.js';
import { startProcessMetrics } from './metrics/registry.js';
import { closeOnSignals } from './shutdown.js';

/** After the drain, what closing the rest (streams, bus connection, pool) may take before exit 1. */
export const CLOSE_AFTER_DRAIN_MS = 5_000;

/**
 * A service's process entry: start it, serve its Prometheus metrics on their own port (`metrics`, read
 * from validated config), close both on SIGTERM/SIGINT, and exit 1 with a clear line when
 * configuration is bad or start-up fails. `drainMs` (its DRAIN_TIMEOUT_MS) is how long its stop may
 * let held work finish; the whole stop gets that and 5 s more before the process gives up and exits 1.
 */
export async function runMain(
  name: string,
  start: (logger: Logger) => Promise<{ stop: () => Promise<void> }>,
  options: { metrics?: () => { port: number; host: string }; drainMs?: () => number } = {},
) {
  // A bad LOG_LEVEL must not stop us from saying so: log at info until config is validated.
  const logger = createLogger({ name, level: env.logLevel().catch('info').parse(process.env.LOG_LEVEL) });
  try {
    const service = await start(logger);
    let metrics: MetricsServer | undefined;
    if (options.metrics) {
      startProcessMetrics(name);
      metrics = await serveMetrics({ ...options.metrics(), logger });
    }
    closeOnSignals(
      logger,
      [
        { name, close: service.stop },
        ...(metrics ? [{ name: `${name} metrics`, close: metrics.close }] : []),
      ],
      (options.drainMs?.() ?? 5_000) + CLOSE_AFTER_DRAIN_MS,
    );
  } catch (err) {
    if (err instanceof ConfigError) logger.fatal(err.message);
    else logger.fatal({ err }, `${name} failed to start`);
    process.exit(1);
  }
}
