export { type BillingService, startBillingService } from './app.js';
export { type BillingConfig, BillingConfigSchema, loadBillingConfig } from './config.js';
