import { ConfigError, closeOnSignals, createLogger } from '@tm/kit';
import { startMemoryService } from './app.js';
import { loadMemoryConfig } from './config.js';

const logger = createLogger({ name: 'memory', level: process.env.LOG_LEVEL });
try {
  const config = loadMemoryConfig();
  const service = await startMemoryService(config, createLogger({ name: 'memory', level: config.LOG_LEVEL }));
  closeOnSignals(logger, [{ name: 'memory service', close: service.stop }]);
} catch (err) {
  if (err instanceof ConfigError) logger.fatal(err.message);
  else logger.fatal({ err }, 'memory service failed to start');
  process.exit(1);
}
