import { TextMemoryError } from '@text-memory/sdk';

export type SentCredential = 'API key' | 'session token';

/** Credentials this run sent (recorded where a client is built), to explain a 401 by what was sent. */
export const sentCredentials = new Set<SentCredential>();

const HOW_TO_FIX: Record<SentCredential, string> = {
  'API key': 'it is unknown, revoked or mistyped. Run `tm login` with a valid key, or set TM_API_KEY',
  'session token':
    'it is unknown, expired or ended. Run `tm login --email <email>` again, or set TM_SESSION_TOKEN',
};

/**
 * A 401 after this run sent a credential: the service already says which kind was not accepted; the
 * CLI's words say the same in its terms, how to fix it here (`tm login`, the `TM_*` variables), and
 * which of two credentials it was when both were sent. Anything else passes unchanged. The new message
 * never holds the credential, only its kind.
 */
export function explainCredentialRefusal(error: unknown): unknown {
  if (!(error instanceof TextMemoryError) || error.status !== 401 || sentCredentials.size === 0) return error;
  const sent = [...sentCredentials];
  const message =
    sent.length === 1 && sent[0] !== undefined
      ? `The ${sent[0]} was not accepted: ${HOW_TO_FIX[sent[0]]}`
      : `Neither the API key nor the session token was accepted: ${HOW_TO_FIX['API key']}; for the session, run \`tm login --email <email>\``;
  return new TextMemoryError({
    status: error.status,
    error: message,
    code: error.code,
    retryable: error.retryable,
    ...(error.details ? { details: error.details } : {}),
    ...(error.request_id ? { request_id: error.request_id } : {}),
    attempts: error.attempts,
    cause: error,
  });
}
