import { type AppError, CONTRACT_VERSION, ErrorCode, type ErrorEnvelope } from '@tm/contracts';

/**
 * A failed write's idempotency outcome (the spec's vocabulary): the key names another write, or the
 * write may have happened and the same key is to be retried. Refusals that never used the key get none.
 */
function idempotencyOutcomeOf(error: AppError): ErrorEnvelope['idempotency_outcome'] {
  if (error.code === ErrorCode.IdempotencyConflict || error.code === ErrorCode.DuplicateEvent)
    return 'Conflict';
  return error.retryable ? 'Retryable' : undefined;
}

/** `details` of an error body: its code, the request id and, for bad input, the fields at fault. */
export const errorDetails = (appError: AppError, requestId: string): ErrorEnvelope['details'] => ({
  code: appError.code,
  request_id: requestId,
  ...(appError.fields ? { fields: appError.fields } : {}),
});

/**
 * The spec's envelope for `appError`: what a failed request answers (the error handler), and what a
 * batch write answers for each of its failed items (write-batch-reply.ts), exactly as the item's own
 * write would have been answered.
 */
export function errorEnvelope(
  appError: AppError,
  requestId: string,
  options: { idempotentWrite: boolean },
): ErrorEnvelope {
  return {
    contract_version: CONTRACT_VERSION,
    error: appError.message,
    retryable: appError.retryable,
    request_id: requestId,
    ...(options.idempotentWrite ? { idempotency_outcome: idempotencyOutcomeOf(appError) } : {}),
    details: errorDetails(appError, requestId),
  };
}
