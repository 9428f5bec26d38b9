import { AppError, BusErrorBody, type FieldIssue, isErrorCode } from '@tm/contracts';

/**
 * Headers of an error reply, the NATS micro protocol's: its HTTP-like status (what callers test for) and
 * its message. The body carries the typed error.
 */
export const ERROR_HEADER = 'Nats-Service-Error-Code';
export const ERROR_DESCRIPTION_HEADER = 'Nats-Service-Error';

/** Its shape is a contract (libs/contracts envelope.ts): coalesced and batch replies carry it per item. */
export { BusErrorBody };

export function toBusErrorBody(err: AppError): BusErrorBody {
  return {
    code: err.code,
    message: err.message,
    retryable: err.retryable,
    ...(err.retryAfter !== undefined ? { retry_after: err.retryAfter } : {}),
    ...(err.fields ? { fields: err.fields } : {}),
  };
}

export function fromBusErrorBody(raw: unknown): AppError {
  const parsed = BusErrorBody.safeParse(raw);
  if (!parsed.success || !isErrorCode(parsed.data.code)) {
    return new AppError('internal_error', 'A service answered with an unreadable error');
  }
  const { code, message, retryable, retry_after, fields } = parsed.data;
  return new AppError(code, message, {
    retryable,
    retryAfter: retry_after,
    fields: fields as FieldIssue[] | undefined,
  });
}
