import { ConfigError, env } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { closeOnSignals } from './shutdown.js';

/**
 * A service's process entry: start it, close it on SIGTERM/SIGINT, and exit 1 with a clear line
 * when configuration is bad or start-up fails.
 */
export async function runMain(
  name: string,
  start: (logger: Logger) => Promise<{ stop: () => Promise<void> }>,
) {
  // A bad LOG_LEVEL must not stop us from saying so: log at info until config is validated.
  const logger = createLogger({ name, level: env.logLevel().catch('info').parse(process.env.LOG_LEVEL) });
  try {
    const service = await start(logger);
    closeOnSignals(logger, [{ name, close: service.stop }]);
  } catch (err) {
    if (err instanceof ConfigError) logger.fatal(err.message);
    else logger.fatal({ err }, `${name} failed to start`);
    process.exit(1);
  }
}
