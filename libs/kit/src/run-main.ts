import { ConfigError, env } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { type MetricsServer, serveMetrics } from './metrics/metrics-server.js';
import { startProcessMetrics } from './metrics/registry.js';
import { closeOnSignals } from './shutdown.js';

/**
 * A service's process entry: start it, serve its Prometheus metrics on their own port (`metrics`, read
 * from validated config), close both on SIGTERM/SIGINT, and exit 1 with a clear line when
 * configuration is bad or start-up fails.
 */
export async function runMain(
  name: string,
  start: (logger: Logger) => Promise<{ stop: () => Promise<void> }>,
  options: { metrics?: () => { port: number; host: string } } = {},
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
    closeOnSignals(logger, [
      { name, close: service.stop },
      ...(metrics ? [{ name: `${name} metrics`, close: metrics.close }] : []),
    ]);
  } catch (err) {
    if (err instanceof ConfigError) logger.fatal(err.message);
    else logger.fatal({ err }, `${name} failed to start`);
    process.exit(1);
  }
}
