export { startWebhooksService, type WebhooksService } from './app.js';
export { loadWebhooksConfig, type WebhooksConfig, WebhooksConfigSchema } from './config.js';
