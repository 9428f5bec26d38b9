import { ConfigError, closeOnSignals, createLogger } from '@tm/kit';
import { startGateway } from './app.js';
import { loadGatewayConfig } from './config.js';

const logger = createLogger({ name: 'gateway', level: process.env.LOG_LEVEL });
try {
  const config = loadGatewayConfig();
  const gateway = await startGateway(config, createLogger({ name: 'gateway', level: config.LOG_LEVEL }));
  closeOnSignals(logger, [{ name: 'gateway', close: gateway.stop }]);
} catch (err) {
  if (err instanceof ConfigError) logger.fatal(err.message);
  else logger.fatal({ err }, 'gateway failed to start');
  process.exit(1);
}
