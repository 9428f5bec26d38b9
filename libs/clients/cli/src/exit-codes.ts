import { TextMemoryError } from '@text-memory/sdk';

/** What `tm` exits with; listed in `tm --help` and the README, so scripts can branch on them. */
export const EXIT = {
  ok: 0,
  /** A bug or an answer we could not read. */
  unexpected: 1,
  /** Bad flags, a refused confirmation, input the SDK refused before sending. */
  usage: 2,
  /** The service answered 4xx: fix the credential, the input or the permission, do not repeat. */
  refused: 3,
  /** 5xx, timeout or no connection, after the SDK's retries. */
  unavailable: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `Exit codes:
  0  ok
  1  unexpected error
  2  usage error (bad flags, refused confirmation, input refused before sending)
  3  refused by the service (4xx: credential, permission, validation, conflict)
  4  service unavailable after retries (5xx, timeout, no connection)`;

/**
 * The command printed its answer and ends with `code`: `tm health` when the deployment is unavailable,
 * `tm smoke-test` when a step failed.
 */
export class ExitWith extends Error {
  override readonly name = 'ExitWith';
  constructor(readonly code: ExitCode) {
    super(`exit ${code}`);
  }
}

/** A mistake on the command line, found by the CLI itself: exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function exitCodeFor(error: unknown): ExitCode {
  if (error instanceof UsageError) return EXIT.usage;
  if (!(error instanceof TextMemoryError)) return EXIT.unexpected;
  if (error.status === 0) {
    if (error.code === 'validation_failed') return EXIT.usage;
    if (error.code === 'connection_failed' || error.code === 'timeout') return EXIT.unavailable;
    return EXIT.unexpected;
  }
  if (error.status >= 400 && error.status < 500) return EXIT.refused;
  if (error.status >= 500) return EXIT.unavailable;
  return EXIT.unexpected;
}
