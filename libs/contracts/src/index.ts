import './zod-setup.js';

export * from './billing.js';
export * from './capabilities.js';
export * from './control.js';
export * from './envelope.js';
export * from './errors.js';
export * from './identity.js';
export * from './infrastructure.js';
export * from './limits.js';
export * from './memory.js';
export * from './openapi.js';
export * from './request-record.js';
export * from './runtime.js';
export * from './scope.js';
export * from './subjects.js';
export * from './telemetry.js';
export * from './validation.js';
