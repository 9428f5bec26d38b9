/**
 * Every error the system can report, in one place. The gateway's error handler is the only code
 * that turns these into HTTP; services carry them over the bus as { code, message, retryable }.
 */
export const ErrorCode = {
  ValidationFailed: 'validation_failed',
  MalformedJson: 'malformed_json',
  MalformedRequest: 'malformed_request',
  HeadersTooLarge: 'headers_too_large',
  UnsupportedMediaType: 'unsupported_media_type',
  PayloadTooLarge: 'payload_too_large',
  MalformedFile: 'malformed_file',
  UnsupportedFileType: 'unsupported_file_type',
  UploadTimeout: 'upload_timeout',
  RequestTimeout: 'request_timeout',
  AuthenticationRequired: 'authentication_required',
  PermissionDenied: 'permission_denied',
  CredentialNotAccepted: 'credential_not_accepted',
  OperatorCapabilityRequired: 'operator_capability_required',
  ConsentRequired: 'consent_required',
  PolicyDenied: 'policy_denied',
  StorageNotAttached: 'storage_not_attached',
  NotFound: 'not_found',
  AlreadyExists: 'already_exists',
  VersionConflict: 'version_conflict',
  PreconditionFailed: 'precondition_failed',
  IdempotencyConflict: 'idempotency_conflict',
  IdempotencyInFlight: 'idempotency_in_flight',
  DuplicateEvent: 'duplicate_event',
  /** A write to a namespace whose deletion is still running: retry once it has finished. */
  NamespaceBeingDeleted: 'namespace_being_deleted',
  RateLimited: 'rate_limited',
  TooManyImports: 'too_many_imports',
  // Importing from a model hub: each way a dataset can be refused, before any row is written.
  RemoteCodeRequired: 'remote_code_required',
  DatasetSplitUnavailable: 'dataset_split_unavailable',
  DatasetGated: 'dataset_gated',
  DatasetRevisionChanged: 'dataset_revision_changed',
  HubUnavailable: 'hub_unavailable',
  HubTimeout: 'hub_timeout',
  ServiceUnavailable: 'service_unavailable',
  UpstreamTimeout: 'upstream_timeout',
  StorageUnavailable: 'storage_unavailable',
  Internal: 'internal_error',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

const httpStatus: Record<ErrorCode, number> = {
  validation_failed: 400,
  malformed_json: 400,
  malformed_request: 400,
  headers_too_large: 431,
  unsupported_media_type: 415,
  payload_too_large: 413,
  malformed_file: 400,
  unsupported_file_type: 415,
  upload_timeout: 408,
  request_timeout: 408,
  authentication_required: 401,
  permission_denied: 403,
  credential_not_accepted: 403,
  operator_capability_required: 403,
  consent_required: 403,
  policy_denied: 403,
  storage_not_attached: 403,
  not_found: 404,
  already_exists: 409,
  version_conflict: 409,
  precondition_failed: 412,
  idempotency_conflict: 409,
  idempotency_in_flight: 409,
  duplicate_event: 409,
  namespace_being_deleted: 409,
  rate_limited: 429,
  too_many_imports: 429,
  remote_code_required: 422,
  dataset_split_unavailable: 422,
  dataset_gated: 403,
  dataset_revision_changed: 409,
  hub_unavailable: 503,
  hub_timeout: 504,
  service_unavailable: 503,
  upstream_timeout: 504,
  storage_unavailable: 503,
  internal_error: 500,
};

/** Codes a client may retry unchanged (with backoff); everything else needs a changed request. */
const retryableCodes = new Set<ErrorCode>([
  'idempotency_in_flight',
  'namespace_being_deleted',
  'rate_limited',
  'too_many_imports',
  'hub_unavailable',
  'hub_timeout',
  'service_unavailable',
  'upstream_timeout',
  'storage_unavailable',
]);

export function statusOf(code: ErrorCode): number {
  return httpStatus[code];
}

export function isRetryable(code: ErrorCode): boolean {
  return retryableCodes.has(code);
}

export interface FieldIssue {
  path: string;
  message: string;
}

export interface AppErrorOptions {
  retryable?: boolean;
  fields?: FieldIssue[];
  /** Seconds a client should wait before retrying (sent as Retry-After). */
  retryAfter?: number;
  cause?: unknown;
}

/** The one error class. `message` is safe to show a caller: no secrets, text or internal ids. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly fields: FieldIssue[] | undefined;
  readonly retryAfter: number | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.retryable = options.retryable ?? isRetryable(code);
    this.fields = options.fields;
    this.retryAfter = options.retryAfter;
  }

  get status(): number {
    return statusOf(this.code);
  }
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && value in reverseCodes;
}
const reverseCodes = Object.fromEntries(Object.values(ErrorCode).map((c) => [c, true]));
