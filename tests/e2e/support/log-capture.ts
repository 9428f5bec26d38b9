import { appendFileSync, openSync, writeSync } from 'node:fs';
import { inject } from 'vitest';

/**
 * The worker side of the run's credential leak check (credential-leak-check.ts): where the stacks
 * log, and the noting of every credential a test creates or sends.
 */

/** Body fields whose string values are credentials, in requests and responses alike. */
const SECRET_FIELDS = new Set([
  'api_key',
  'key',
  'token',
  'hub_token',
  'password',
  'current_password',
  'new_password',
  'secret',
]);
/** Headers that carry a credential. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'x-operator-token']);
/** A shorter value could turn up in a log by chance; every credential the tests make is longer. */
const MIN_LENGTH = 8;

let logFd: number | undefined;

/**
 * Every stack in this worker appends to the run's log file. Synchronous writes, so no line is lost
 * when the worker exits; O_APPEND, so the lines of workers and files never interleave mid-line.
 */
export function logDestination() {
  logFd ??= openSync(inject('logCapture').logFile, 'a');
  const fd = logFd;
  return { write: (line: string) => void writeSync(fd, line) };
}

/** The credential-looking strings anywhere in a JSON body (nested objects and arrays included). */
export function secretsInBody(body: unknown): string[] {
  if (Array.isArray(body)) return body.flatMap(secretsInBody);
  if (body === null || typeof body !== 'object') return [];
  return Object.entries(body).flatMap(([field, value]) =>
    SECRET_FIELDS.has(field) && typeof value === 'string' ? [value] : secretsInBody(value),
  );
}

/** Credentials sent as headers; of `Authorization: <scheme> <value>` only the value. */
export function secretsInHeaders(headers: Record<string, string> = {}): string[] {
  return Object.entries(headers)
    .filter(([name]) => CREDENTIAL_HEADERS.has(name.toLowerCase()))
    .map(([name, value]) => (name.toLowerCase() === 'authorization' ? value.replace(/^\S+\s+/, '') : value));
}

export function recordSecrets(values: Array<string | undefined>): void {
  const lines = values
    .filter((v): v is string => v !== undefined && v.length >= MIN_LENGTH)
    .map((v) => `${JSON.stringify(v)}\n`);
  if (lines.length > 0) appendFileSync(inject('logCapture').secretsFile, lines.join(''));
}
