export * from './config.js';
export * from './database.js';
export * from './logger.js';
export * from './prisma-cli-config.js';
export * from './prisma-holder.js';
export * from './run-main.js';
export * from './shutdown.js';
export * from './sql-runner.js';
