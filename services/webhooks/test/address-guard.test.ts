import { createServer } from 'node:http';
import { type AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addressAllowed, guardedLookup } from '../src/domain/deliveries/address-guard.js';
import { delivered, postWebhook } from '../src/domain/deliveries/post-webhook.js';

describe('addressAllowed', () => {
  it.each([
    ['10.0.0.1'],
    ['172.16.5.4'],
    ['192.168.1.1'],
    ['127.0.0.1'],
    ['169.254.169.254'],
    ['100.64.0.1'],
    ['0.0.0.0'],
    ['224.0.0.1'],
    ['255.255.255.255'],
    ['198.18.0.1'],
    ['::1'],
    ['::'],
    ['fe80::1'],
    ['fd00::1'],
    ['::ffff:10.0.0.1'],
    ['::ffff:127.0.0.1'],
    ['2002:a00:1::'],
    ['::a00:1'],
    ['::a9fe:a9fe'],
    ['::c0a8:101'],
    ['::7f00:1'],
    ['::10.0.0.1'],
    ['::8.8.8.8'],
    ['64:ff9b::a00:1'],
    ['not-an-address'],
  ])('when the address is %s, then it is refused', (address) => {
    expect(addressAllowed(address, false)).toBe(false);
  });

  it.each([['93.184.215.14'], ['8.8.8.8'], ['2606:4700:4700::1111'], ['::ffff:8.8.8.8']])(
    'when the address is public %s, then it is allowed',
    (address) => {
      expect(addressAllowed(address, false)).toBe(true);
    },
  );

  it('when loopback is allowed, then loopback passes and every other private range is still refused', () => {
    expect([addressAllowed('127.0.0.1', true), addressAllowed('::1', true)]).toEqual([true, true]);
    expect([addressAllowed('10.0.0.1', true), addressAllowed('169.254.169.254', true)]).toEqual([
      false,
      false,
    ]);
  });

  it('when loopback is allowed, then loopback written as IPv4-compatible IPv6 (::7f00:1) is still refused', () => {
    expect([addressAllowed('::7f00:1', true), addressAllowed('::a00:1', true)]).toEqual([false, false]);
  });
});

describe('guardedLookup', () => {
  const lookupWith = (addresses: string[]) =>
    guardedLookup(false, (_host, callback) =>
      callback(
        null,
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      ),
    );
  const run = (lookup: ReturnType<typeof guardedLookup>) =>
    new Promise<{ err: (Error & { code?: string }) | null; address: unknown }>((resolve) =>
      lookup('hooks.example.com', { all: true }, (err, address) => resolve({ err, address })),
    );

  it('when a name resolves to a public and a private address, then the connection is refused', async () => {
    const { err } = await run(lookupWith(['93.184.215.14', '10.0.0.7']));

    expect(err).toMatchObject({ code: 'address_not_allowed' });
  });

  it('when a name resolves to public addresses only, then they are handed to the connection', async () => {
    const { err, address } = await run(lookupWith(['93.184.215.14']));

    expect(err).toBeNull();
    expect(address).toEqual([{ address: '93.184.215.14', family: 4 }]);
  });
});

describe('postWebhook', () => {
  const got: string[] = [];
  const server = createServer((req, res) => {
    got.push(req.url ?? '');
    if (req.url === '/slow') return; // never answers
    if (req.url === '/moved') return res.writeHead(302, { location: '/elsewhere' }).end();
    res.writeHead(204).end();
  });
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('when loopback is not allowed, then a name and a literal that reach it are refused at connect time and nothing arrives', async () => {
    const options = { timeoutMs: 2_000, allowLoopback: false };

    const byName = await postWebhook(`http://localhost:${port}/by-name`, '{}', {}, options);
    const byLiteral = await postWebhook(`http://127.0.0.1:${port}/by-literal`, '{}', {}, options);

    expect(byName).toMatchObject({ statusCode: null, error: 'address_not_allowed' });
    expect(byLiteral).toMatchObject({ statusCode: null, error: 'address_not_allowed' });
    expect(got).toEqual([]);
  });

  it('when loopback is allowed, then the same receiver answers', async () => {
    const outcome = await postWebhook(
      `http://localhost:${port}/allowed`,
      '{}',
      {},
      {
        timeoutMs: 2_000,
        allowLoopback: true,
      },
    );

    expect(outcome).toMatchObject({ statusCode: 204, error: null, latencyMs: expect.any(Number) });
    expect(got).toEqual(['/allowed']);
  });

  it('when deliveries go to the same receiver one after another, then they share one connection', async () => {
    const options = { timeoutMs: 2_000, allowLoopback: true };
    const before = connections;

    for (const path of ['/first', '/second', '/third']) {
      expect(await postWebhook(`http://127.0.0.1:${port}${path}`, '{}', {}, options)).toMatchObject({
        statusCode: 204,
      });
    }

    expect(connections - before).toBeLessThanOrEqual(1);
  });

  it('when a connection to a name was kept while loopback was allowed, then a call that refuses loopback does not use it', async () => {
    const allowed = await postWebhook(
      `http://localhost:${port}/kept`,
      '{}',
      {},
      {
        timeoutMs: 2_000,
        allowLoopback: true,
      },
    );
    const refused = await postWebhook(
      `http://localhost:${port}/not-kept`,
      '{}',
      {},
      {
        timeoutMs: 2_000,
        allowLoopback: false,
      },
    );

    expect(allowed).toMatchObject({ statusCode: 204 });
    expect(refused).toMatchObject({ statusCode: null, error: 'address_not_allowed' });
    expect(got).not.toContain('/not-kept');
  });

  // The socket's connect is the outside world here: it is replaced so that a guard that let one of
  // these through would fail the test instead of dialling a private address.
  it.each([
    ['http://[::a00:1]/hook'],
    ['http://[::a9fe:a9fe]/latest/meta-data'],
    ['http://[::c0a8:101]/hook'],
    ['http://[::7f00:1]:8080/hook'],
  ])(
    'when the URL is %s (an IPv4-compatible private address), then the attempt is refused before any connection',
    async (url) => {
      const connect = vi.spyOn(Socket.prototype, 'connect').mockImplementation(() => {
        throw new Error('a connection was attempted');
      });
      try {
        const outcome = await postWebhook(url, '{}', {}, { timeoutMs: 2_000, allowLoopback: true });

        expect(outcome).toEqual({ statusCode: null, error: 'address_not_allowed', latencyMs: 0 });
        expect(connect).not.toHaveBeenCalled();
      } finally {
        connect.mockRestore();
      }
    },
  );

  it('when the receiver does not answer in time, then the attempt ends as a timeout', async () => {
    const outcome = await postWebhook(
      `http://127.0.0.1:${port}/slow`,
      '{}',
      {},
      {
        timeoutMs: 300,
        allowLoopback: true,
      },
    );

    expect(outcome).toMatchObject({ statusCode: null, error: 'timeout' });
  });

  it('when the receiver redirects, then the redirect is not followed and the attempt is not delivered', async () => {
    const outcome = await postWebhook(
      `http://127.0.0.1:${port}/moved`,
      '{}',
      {},
      {
        timeoutMs: 2_000,
        allowLoopback: true,
      },
    );

    expect(outcome).toMatchObject({ statusCode: 302, error: null });
    expect(delivered(outcome)).toBe(false);
    expect(got).not.toContain('/elsewhere');
  });
});
