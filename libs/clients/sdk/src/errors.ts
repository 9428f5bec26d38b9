/** A field at fault, with the server's dotted path (`event.content.text`). */
export interface FieldError {
  path: string;
  message: string;
}

export interface TextMemoryErrorDetails {
  code: string;
  request_id?: string;
  fields?: FieldError[];
  [name: string]: unknown;
}

/**
 * Codes the SDK itself gives, beside the server's (`details.code`): a request that never got an
 * answer, or one refused before sending.
 */
export type ClientErrorCode =
  | 'validation_failed'
  | 'connection_failed'
  | 'timeout'
  | 'aborted'
  | 'invalid_response';

export interface TextMemoryErrorInit {
  status: number;
  error: string;
  code: string;
  retryable: boolean;
  details?: TextMemoryErrorDetails;
  request_id?: string;
  idempotency_outcome?: 'Conflict' | 'Retryable';
  attempts?: number;
  cause?: unknown;
}

/**
 * The SDK's one error: every failed call, whether the server answered with its envelope, the
 * connection failed, or the input was refused before sending (status 0 when no answer came).
 * Messages never hold the credential: they are built from the server's `error` or from ours.
 */
export class TextMemoryError extends Error {
  override readonly name = 'TextMemoryError';
  /** HTTP status; 0 when there was no answer (connection failure, timeout, abort, client-side check). */
  readonly status: number;
  /** The envelope's `error` (also the message). */
  readonly error: string;
  /** `details.code` from the server, or a ClientErrorCode. */
  readonly code: string;
  readonly details: TextMemoryErrorDetails | undefined;
  readonly request_id: string | undefined;
  readonly retryable: boolean;
  /** On a failed write: Conflict (reconcile, do not retry) or Retryable (retry with the same key). */
  readonly idempotency_outcome: 'Conflict' | 'Retryable' | undefined;
  /** Attempts made, retries included. */
  attempts: number;

  constructor(init: TextMemoryErrorInit) {
    super(init.error, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.error = init.error;
    this.code = init.code;
    this.details = init.details;
    this.request_id = init.request_id ?? init.details?.request_id;
    this.retryable = init.retryable;
    this.idempotency_outcome = init.idempotency_outcome;
    this.attempts = init.attempts ?? 0;
  }

  /** A refusal before sending, shaped like the server's 400 `validation_failed`. */
  static validation(fields: FieldError[]): TextMemoryError {
    return new TextMemoryError({
      status: 0,
      error: `Invalid request: ${fields.map((f) => `${f.path}: ${f.message}`).join('; ')}`,
      code: 'validation_failed',
      retryable: false,
      details: { code: 'validation_failed', fields },
    });
  }
}

type Envelope = {
  error?: unknown;
  retryable?: unknown;
  request_id?: unknown;
  idempotency_outcome?: unknown;
  details?: unknown;
};

/** The server's answer as an error: our envelope, or the OpenAI-compatible one of the chat routes. */
export function errorFromResponse(
  status: number,
  body: unknown,
  headerRequestId: string | null,
): TextMemoryError {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as Envelope;
  const details =
    typeof envelope.details === 'object' && envelope.details !== null
      ? (envelope.details as TextMemoryErrorDetails)
      : undefined;
  // The chat routes answer `{ error: { message, type, code } }`.
  const openAi =
    typeof envelope.error === 'object' && envelope.error !== null
      ? (envelope.error as { message?: unknown; code?: unknown; type?: unknown })
      : undefined;
  const message =
    typeof envelope.error === 'string'
      ? envelope.error
      : typeof openAi?.message === 'string'
        ? openAi.message
        : `HTTP ${status}`;
  const code =
    details?.code ??
    (typeof openAi?.code === 'string'
      ? openAi.code
      : typeof openAi?.type === 'string'
        ? openAi.type
        : `http_${status}`);
  const retryable = typeof envelope.retryable === 'boolean' ? envelope.retryable : isRetryableStatus(status);
  const outcome = envelope.idempotency_outcome;
  return new TextMemoryError({
    status,
    error: message,
    code,
    retryable,
    details,
    request_id:
      (typeof envelope.request_id === 'string' ? envelope.request_id : undefined) ??
      details?.request_id ??
      headerRequestId ??
      undefined,
    idempotency_outcome: outcome === 'Conflict' || outcome === 'Retryable' ? outcome : undefined,
  });
}

/** The statuses the spec calls retryable when a body does not say (429, 503, 504). */
export const isRetryableStatus = (status: number) => status === 429 || status === 503 || status === 504;
