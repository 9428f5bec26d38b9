export * from './config.js';
export * from './database.js';
export * from './logger.js';
export * from './shutdown.js';
