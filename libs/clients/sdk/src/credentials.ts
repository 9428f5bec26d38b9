import { TextMemoryError } from './errors.js';

// HTTP's whitespace, which fetch strips from both ends of a header value before sending it.
const SURROUNDING_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;

/**
 * Why a credential cannot be sent, or undefined when it can. Keys and tokens the service issues are
 * visible ASCII (`tmk_…`, `tmo_…`, session tokens); anything else inside one is a pasting mistake (a
 * line break, a space, a typographic character), which fetch would refuse with the whole header value
 * in its message (`Headers.set: "Bearer tmk_…" is an invalid header value`). The description says where
 * the fault is, never what the value holds. Surrounding whitespace is not a fault: fetch strips it, so
 * a key read from a file with its trailing newline works.
 */
export function credentialProblem(value: string): string | undefined {
  const trimmed = value.replace(SURROUNDING_WHITESPACE, '');
  if (trimmed === '') return 'is empty';
  for (let i = 0; i < trimmed.length; i++) {
    const code = trimmed.charCodeAt(i);
    if (code >= 0x21 && code <= 0x7e) continue;
    return `holds ${describeCharacter(code)} at character ${i + 1} of ${trimmed.length}`;
  }
  return undefined;
}

/**
 * Why a header value cannot be sent, or undefined when it can: fetch's own rule (no NUL, CR or LF once
 * the ends are trimmed; every character a byte), checked first so that fetch never gets to throw an
 * error quoting the value.
 */
export function headerValueProblem(value: string): string | undefined {
  const trimmed = value.replace(SURROUNDING_WHITESPACE, '');
  for (let i = 0; i < trimmed.length; i++) {
    const code = trimmed.charCodeAt(i);
    if (code !== 0x00 && code !== 0x0a && code !== 0x0d && code <= 0xff) continue;
    return `holds ${describeCharacter(code)} at character ${i + 1} of ${trimmed.length}`;
  }
  return undefined;
}

function describeCharacter(code: number): string {
  if (code === 0x0a || code === 0x0d) return 'a line break';
  if (code === 0x20) return 'a space';
  if (code === 0x09) return 'a tab';
  if (code < 0x20 || code === 0x7f) return 'a control character';
  return 'a character outside ASCII';
}

/**
 * The credential given as option `name`, without surrounding whitespace (which fetch would strip from
 * the header anyway), checked at construction so a bad one fails at once with a message that names the
 * option and never holds the value.
 */
export function checkedCredential(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const problem = typeof value === 'string' ? credentialProblem(value) : 'is not a string';
  if (problem !== undefined)
    throw unsendable(name, `${name} ${problem}: give it exactly as issued (the value is not shown)`);
  return value.replace(SURROUNDING_WHITESPACE, '');
}

/**
 * Why there is no default address: a client that quietly called 127.0.0.1 would hide a missing setting
 * in production. Nor does the SDK read the environment (it runs in browsers, and under Deno reading it
 * needs a permission), so the message says where tm and tm-mcp take it from.
 */
export const BASE_URL_REQUIRED =
  "baseUrl is required: pass the deployment's address, e.g. new TextMemory({ baseUrl: 'http://127.0.0.1:8080', apiKey }) " +
  'for the local stack under `npm start`. The SDK reads no environment variable: pass process.env.TM_BASE_URL ' +
  'yourself, the variable tm and tm-mcp read';

/**
 * The base URL: required, and refused when it holds a user name or password: fetch refuses such a URL
 * with an error quoting it whole, password included, and the SDK's messages name the base URL.
 */
export function checkedBaseUrl(baseUrl: string | undefined): string {
  if (typeof baseUrl !== 'string' || baseUrl.trim() === '') throw unsendable('baseUrl', BASE_URL_REQUIRED);
  if (URL.canParse(baseUrl)) {
    const url = new URL(baseUrl);
    if (url.username !== '' || url.password !== '')
      throw unsendable(
        'baseUrl',
        'baseUrl holds a user name or password, which fetch refuses: give the address alone and the key as apiKey (the address is not shown)',
      );
  }
  return baseUrl;
}

/** The error for a value that cannot go into a request: a validation error, never retried. */
export function unsendable(path: string, message: string): TextMemoryError {
  return new TextMemoryError({
    status: 0,
    error: message,
    code: 'validation_failed',
    retryable: false,
    details: { code: 'validation_failed', fields: [{ path, message }] },
  });
}
