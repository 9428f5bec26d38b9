import { z } from 'zod';

/**
 * The longest `X-Request-Id` the gateway keeps. Once, anything outside 1–128 characters of
 * `[A-Za-z0-9._:-]` was silently swapped for a generated id, and the client lost its correlation.
 * 200 holds a UUID with a long prefix, a W3C trace id with its span, or a tracing vendor's id.
 */
export const REQUEST_ID_MAX = 200;

/**
 * Printable ASCII (space to `~`): no control character can split a log line or a header, and
 * JSON logs escape quotes and backslashes. Anything else is refused with a 400 naming the header.
 */
export const REQUEST_ID_PATTERN = new RegExp(`^[\\x20-\\x7e]{1,${REQUEST_ID_MAX}}$`);

export const RequestIdHeader = z
  .string()
  .regex(REQUEST_ID_PATTERN)
  .optional()
  .meta({
    description: `Client-chosen correlation id: 1–${REQUEST_ID_MAX} printable ASCII characters, kept and echoed; anything else is refused (400). Generated when absent`,
  });
