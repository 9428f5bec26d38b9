import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TextMemory, TextMemoryError } from '../src/index.js';

// No error of the SDK repeats a credential: not its message, its stack, its fields, nor any cause
// below it. Node's fetch quotes a header value it refuses (`Headers.set: "Bearer tmk_…" is an invalid
// header value`), so a key pasted with a line break used to come back inside the error, and from there
// into tm-mcp's tool errors and `tm --json`'s output. A local server counts what was sent.

let server: Server;
let baseUrl: string;
let seen: IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
});

const SECRET = 'Zq7PwX2mKd9sLr4TnV8bYc3HfJ6gAe1Ru5Wo0Ni';
/** A key as the service issues it, with `breaking` put inside its secret part. */
const keyWith = (breaking: string) => `tmk_Ab3dE6gH_${SECRET.slice(0, 12)}${breaking}${SECRET.slice(12)}`;

/** Every text an error carries, as a person or a log would see it: its causes and fields included. */
function everyText(error: unknown): string {
  return [
    String(error),
    error instanceof Error ? (error.stack ?? '') : '',
    JSON.stringify(error),
    inspect(error, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
  ].join('\n');
}

/** The parts of a key that must never show: the whole, as JSON quotes it, and each side of the fault. */
const partsOf = (key: string) => [
  key,
  JSON.stringify(key).slice(1, -1),
  SECRET.slice(0, 12),
  SECRET.slice(12),
];

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected it to throw');
}

const rejectionOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error,
  );

const refused = (path: string, message: string) => ({
  name: 'TextMemoryError',
  status: 0,
  code: 'validation_failed',
  retryable: false,
  message,
  details: { code: 'validation_failed', fields: [{ path, message }] },
});

describe('a credential that cannot be sent', () => {
  it.each([
    ['a line break', '\n', 'a line break'],
    ['a carriage return', '\r', 'a line break'],
    ['a CRLF', '\r\n', 'a line break'],
    ['a NUL', '\0', 'a control character'],
    ['a space', ' ', 'a space'],
    ['a tab', '\t', 'a tab'],
    ['a Latin-1 letter', 'é', 'a character outside ASCII'],
    ['a euro sign', '€', 'a character outside ASCII'],
    ['an emoji', '🔑', 'a character outside ASCII'],
  ])(
    'when apiKey holds %s, then construction throws a validation error naming the option, never the key',
    (_, breaking, said) => {
      const key = keyWith(breaking);

      const error = thrownBy(() => new TextMemory({ baseUrl, apiKey: key }));

      expect(error).toBeInstanceOf(TextMemoryError);
      expect(error).toMatchObject(
        refused(
          'apiKey',
          `apiKey holds ${said} at character 26 of ${key.length}: give it exactly as issued (the value is not shown)`,
        ),
      );
      for (const part of partsOf(key)) expect(everyText(error)).not.toContain(part);
    },
  );

  it.each(['sessionToken', 'operatorToken'] as const)(
    'when %s holds a line break, then construction throws naming it, never the token',
    (option) => {
      const token = keyWith('\n');

      const error = thrownBy(() => new TextMemory({ baseUrl, [option]: token }));

      expect(error).toMatchObject({ code: 'validation_failed', details: { fields: [{ path: option }] } });
      for (const part of partsOf(token)) expect(everyText(error)).not.toContain(part);
    },
  );

  it('when a session token with a line break is set on a client, then the setter throws, never the token', () => {
    const tm = new TextMemory({ baseUrl });
    const token = keyWith('\r\n');

    const error = thrownBy(() => {
      tm.sessionToken = token;
    });

    expect(error).toMatchObject({
      code: 'validation_failed',
      details: { fields: [{ path: 'sessionToken' }] },
    });
    for (const part of partsOf(token)) expect(everyText(error)).not.toContain(part);
  });

  it('when a per-call operator token holds a line break, then the smoke test is refused before sending, never the token', async () => {
    const tm = new TextMemory({ baseUrl, apiKey: keyWith('') });
    const token = `tmo_${SECRET.slice(0, 12)}\n${SECRET.slice(12)}`;

    const error = await rejectionOf(tm.infrastructure.smokeTest({ operatorToken: token }));

    expect(error).toMatchObject({
      code: 'validation_failed',
      details: { fields: [{ path: 'operatorToken' }] },
    });
    expect(seen).toEqual([]);
    for (const part of partsOf(token)) expect(everyText(error)).not.toContain(part);
  });

  it('when the base URL holds a user name and password, then construction throws without the address', () => {
    const address = `http://admin:${SECRET}@127.0.0.1:9`;

    const error = thrownBy(() => new TextMemory({ baseUrl: address, apiKey: keyWith('') }));

    expect(error).toMatchObject(
      refused(
        'baseUrl',
        'baseUrl holds a user name or password, which fetch refuses: give the address alone and the key as apiKey (the address is not shown)',
      ),
    );
    for (const part of [address, SECRET]) expect(everyText(error)).not.toContain(part);
  });

  it('when the key is surrounded by whitespace (read from a file), then it is sent without it', async () => {
    const key = keyWith('');
    const tm = new TextMemory({ baseUrl, apiKey: `  ${key}\n` });

    await tm.infrastructure.status();

    expect(seen).toHaveLength(1);
    expect(seen[0]?.authorization).toBe(`Bearer ${key}`);
  });
});

describe('a header value that cannot be sent', () => {
  it('when a per-call header holds a line break, then the call is refused before sending, naming the header, never its value', async () => {
    const tm = new TextMemory({ baseUrl, apiKey: keyWith('') });
    const value = `secret ${SECRET.slice(0, 12)}\n${SECRET.slice(12)}`;

    const error = await rejectionOf(tm.infrastructure.status({ headers: { 'x-upstream-auth': value } }));

    expect(error).toMatchObject(
      refused(
        'headers.x-upstream-auth',
        `The x-upstream-auth header cannot be sent: its value holds a line break at character 20 of ${value.length} (the value is not shown)`,
      ),
    );
    expect(error).toMatchObject({ attempts: 1 });
    expect(seen).toEqual([]);
    for (const part of partsOf(value)) expect(everyText(error)).not.toContain(part);
  });

  it('when a client-wide header holds a non-byte character, then every call is refused naming it, never its value', async () => {
    const value = `${SECRET.slice(0, 12)}€${SECRET.slice(12)}`;
    const tm = new TextMemory({ baseUrl, apiKey: keyWith(''), headers: { 'x-tenant-secret': value } });

    const error = await rejectionOf(tm.memory.write({ namespace: 'ns', text: 'anything' }));

    expect(error).toMatchObject({
      code: 'validation_failed',
      details: { fields: [{ path: 'headers.x-tenant-secret' }] },
    });
    expect(seen).toEqual([]);
    for (const part of partsOf(value)) expect(everyText(error)).not.toContain(part);
  });
});

describe('a fetch that fails quoting what it was given', () => {
  /** A fetch of the caller's own (a proxy, instrumentation) whose errors repeat the request's headers. */
  const echoingFetch: typeof fetch = async (_url, init) => {
    const headers = [...new Headers(init?.headers)].map(([name, value]) => `${name}: ${value}`).join('; ');
    const refused = Object.assign(new Error(`proxy refused ${headers}`), {
      code: 'ECONNREFUSED',
      sent: JSON.stringify(headers),
    });
    throw new TypeError(`fetch failed (${headers})`, {
      cause: new AggregateError([refused, new Error(`also ${JSON.stringify(headers)}`)], `tried: ${headers}`),
    });
  };

  it('when it throws, then the connection error and its causes keep their facts with the credentials masked', async () => {
    const key = keyWith('');
    const upstream = `upstream-${SECRET}`;
    const tm = new TextMemory({
      baseUrl,
      apiKey: key,
      headers: { 'x-upstream-auth': upstream },
      fetch: echoingFetch,
      maxRetries: 0,
    });

    const error = await rejectionOf(tm.infrastructure.status());

    expect(error).toMatchObject({
      name: 'TextMemoryError',
      status: 0,
      code: 'connection_failed',
      message: expect.stringContaining('fetch failed (accept: application/json; authorization: [redacted]'),
      cause: {
        name: 'TypeError',
        cause: {
          name: 'AggregateError',
          errors: [
            { message: expect.stringContaining('proxy refused'), code: 'ECONNREFUSED' },
            expect.any(Error),
          ],
        },
      },
    });
    for (const part of [...partsOf(key), upstream]) expect(everyText(error)).not.toContain(part);
  });

  it('for any valid key and header values, the connection error never holds one of them', async () => {
    const visible = fc.string({
      unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
      minLength: 8,
      maxLength: 60,
    });
    await fc.assert(
      fc.asyncProperty(visible, visible, async (secret, upstream) => {
        const key = `tmk_${secret}`;
        const tm = new TextMemory({
          baseUrl,
          apiKey: key,
          headers: { 'x-upstream-auth': upstream },
          fetch: echoingFetch,
          maxRetries: 0,
        });

        const error = await rejectionOf(tm.infrastructure.status());

        expect(error).toMatchObject({ code: 'connection_failed' });
        const text = everyText(error);
        for (const value of [
          key,
          upstream,
          JSON.stringify(key).slice(1, -1),
          JSON.stringify(upstream).slice(1, -1),
        ])
          expect(text).not.toContain(value);
      }),
      { numRuns: 200 },
    );
  });
});

describe('any key that breaks a header', () => {
  // Visible ASCII around one or more characters a header cannot carry (or a credential must not):
  // line breaks, NUL and other controls, spaces, and characters beyond ASCII up to astral ones.
  const visible = fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
    minLength: 6,
    maxLength: 40,
  });
  const breaking = fc.oneof(
    fc.constantFrom('\n', '\r', '\r\n', '\0', ' ', '\t', '\u007f', '\u0085', '\u2028'),
    fc.integer({ min: 0x80, max: 0x10ffff }).map((code) => String.fromCodePoint(code)),
  );

  it('when it is given as apiKey, then construction throws a validation error whose texts hold no part of it', () => {
    fc.assert(
      fc.property(
        visible,
        fc.array(breaking, { minLength: 1, maxLength: 3 }),
        visible,
        (head, faults, tail) => {
          const key = `tmk_${head}${faults.join(head.slice(0, 2))}${tail}`;

          const error = thrownBy(() => new TextMemory({ baseUrl, apiKey: key }));

          expect(error).toBeInstanceOf(TextMemoryError);
          expect(error).toMatchObject({ status: 0, code: 'validation_failed', retryable: false });
          const text = everyText(error);
          for (const part of [key, JSON.stringify(key).slice(1, -1), head, tail])
            expect(text).not.toContain(part);
        },
      ),
      { numRuns: 500 },
    );
  });
});
