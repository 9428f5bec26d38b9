import { AppError, ErrorCode, IdempotencyKey } from '@tm/contracts';

/**
 * A write's idempotency key may come as the Idempotency-Key header, the body field, or both;
 * both must then agree, and one is required: without it a timed-out write could not be retried safely.
 */
export function resolveIdempotencyKey(header: string | undefined, body: string | undefined): string {
  if (header !== undefined && body !== undefined && header !== body) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      'The Idempotency-Key header and body idempotency_key differ',
      {
        fields: [{ path: 'idempotency_key', message: 'must equal the Idempotency-Key header' }],
      },
    );
  }
  const key = header ?? body;
  if (key === undefined) {
    throw new AppError(
      ErrorCode.ValidationFailed,
      'An idempotency key is required (Idempotency-Key header or idempotency_key)',
      {
        fields: [{ path: 'idempotency_key', message: 'required' }],
      },
    );
  }
  const parsed = IdempotencyKey.safeParse(key);
  if (!parsed.success) {
    throw new AppError(ErrorCode.ValidationFailed, 'Invalid idempotency key', {
      fields: [{ path: 'idempotency_key', message: parsed.error.issues[0]?.message ?? 'invalid' }],
    });
  }
  return key;
}
