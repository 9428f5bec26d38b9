import { runMain } from '@tm/kit';
import { startGateway } from './app.js';
import { loadGatewayConfig } from './config.js';

await runMain('gateway', (logger) => startGateway(loadGatewayConfig(), logger));
