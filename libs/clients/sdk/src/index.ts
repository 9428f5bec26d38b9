export { TextMemory, type TextMemoryOptions } from './client.js';
export { credentialProblem } from './credentials.js';
export {
  type ClientErrorCode,
  type FieldError,
  TextMemoryError,
  type TextMemoryErrorDetails,
} from './errors.js';
export type { ChatFamily } from './families/chat.js';
export type { ControlFamily } from './families/control.js';
export type {
  DatasetImportInput,
  ImportJob,
  ImportsFamily,
  UploadInput,
  UploadOptions,
  UploadProgress,
  WaitOptions,
} from './families/imports.js';
export type {
  EventsIterationQuery,
  ExportQuery,
  InfrastructureFamily,
  SmokeTestOptions,
} from './families/infrastructure.js';
export type { MarketplaceFamily } from './families/marketplace.js';
export type { CreateMemoryOptions, MemoriesFamily } from './families/memories.js';
export {
  type DeleteOptions,
  type MemoryFamily,
  newEventId,
  type RecallInput,
  type RestoreInput,
  type RestoreOptions,
  type WriteBatchInput,
  type WriteInput,
  type WriteOptions,
  type WriteResult,
} from './families/memory.js';
export type { TemplatesFamily, UpdateTemplateOptions } from './families/templates.js';
export type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookDeliveryQuery,
  WebhookEndpoint,
  WebhookEndpointChange,
  WebhookEndpointCreated,
  WebhookEndpointInput,
  WebhookEventType,
  WebhookSecretRotated,
  WebhooksFamily,
} from './families/webhooks.js';
export type { CallOptions, RetryEvent } from './http.js';
export { LIMITS } from './limits.js';
export { DEFAULT_RETRY_POLICY, type RetryOptions, type RetryPolicy } from './retry.js';
export type * from './types.js';
