import { type Logger, pino } from 'pino';
import { traceLogFields } from './trace-context.js';

export type { Logger };

/**
 * Paths that must never reach a log line: credentials, and memory text in any shape it travels in.
 * Request and message bodies are not logged at all; this list is the safety net behind that rule.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'authorization',
  'apiKey',
  'api_key',
  'password',
  'token',
  'hub_token',
  'hubToken',
  'secret',
  'text',
  'cue',
  'body',
  '*.authorization',
  '*.apiKey',
  '*.api_key',
  '*.password',
  '*.token',
  '*.hub_token',
  '*.hubToken',
  '*.secret',
  '*.text',
  '*.cue',
  '*.body',
  '*.content',
];

export function createLogger(options: {
  name: string;
  level?: string;
  destination?: pino.DestinationStream;
}): Logger {
  return pino(
    {
      name: options.name,
      level: options.level ?? 'info',
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      base: { service: options.name },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Every line written while a request's work runs carries its trace (trace-context.ts).
      mixin: traceLogFields,
    },
    // Asynchronous stdout: a busy service's lines are gathered into one write while the previous
    // write is in flight instead of a syscall per line; pino flushes what is left on exit.
    options.destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
