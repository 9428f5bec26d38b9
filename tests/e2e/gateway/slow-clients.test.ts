import { once } from 'node:events';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';

const MAX_CONNECTIONS = 6;
// Short bounds, so each test waits seconds for what a deployment waits 10 s to minutes for. Kept-alive
// connections outlive the cap test's few requests, so the connections it holds stay open through it.
const t = useStack({
  gatewayEnv: {
    GATEWAY_HTTP_HEADERS_TIMEOUT_MS: '1000',
    GATEWAY_HTTP_REQUEST_TIMEOUT_MS: '2000',
    GATEWAY_HTTP_KEEP_ALIVE_TIMEOUT_MS: '5000',
    GATEWAY_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
    GATEWAY_BODY_IDLE_TIMEOUT_MS: '500',
  },
});

const LIVE = '/api/v1/infrastructure/health/live';

/** A raw connection to the gateway (or `url`), with everything it receives and whether the server closed it. */
async function openSocket(url = t.stack.url) {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  opened.push(socket);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => {}); // a reset is one of the outcomes the tests look at
  const closed = once(socket, 'close').then(() => received);
  await once(socket, 'connect');
  return { socket, closed, received: () => received };
}
const opened: Socket[] = [];
afterEach(() => {
  for (const socket of opened.splice(0)) socket.destroy();
});

/** Resolves with the first complete answer on `socket`, or undefined if it closes without one. */
function answerOn(connection: Awaited<ReturnType<typeof openSocket>>) {
  return new Promise<string | undefined>((resolve) => {
    const check = () => {
      if (/\r\n\r\n/.test(connection.received())) resolve(connection.received());
    };
    connection.socket.on('data', check);
    void connection.closed.then(() => resolve(connection.received() || undefined));
    check();
  });
}

const statusOf = (answer: string | undefined) => Number(answer?.split(' ')[1]);

describe('slow and idle clients', () => {
  // Found by a security probe of 4153b48: one header line every 5 s was still connected at 60 s.
  it('when a client sends its headers one line at a time and never finishes, then 408 request_timeout and the connection is closed', async () => {
    const client = await openSocket();
    client.socket.write(`GET ${LIVE} HTTP/1.1\r\nHost: x\r\n`);
    const dribble = setInterval(() => {
      if (client.socket.writable) client.socket.write(`X-Slow-${Date.now()}: 1\r\n`);
    }, 200);

    const received = await client.closed.finally(() => clearInterval(dribble));

    expect(statusOf(received)).toBe(408);
    const body = JSON.parse(received.split('\r\n\r\n')[1] ?? '');
    t.api.contract.expectErrorEnvelope(body);
    expect(body).toMatchObject({ retryable: false, details: { code: 'request_timeout' } });
  });

  it('when a client sends its headers but dribbles its body, then the connection is closed', async () => {
    const client = await openSocket();
    client.socket.write(
      'POST /api/v1/control/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    const dribble = setInterval(() => {
      if (client.socket.writable) client.socket.write(' ');
    }, 200);

    await client.closed.finally(() => clearInterval(dribble));

    expect(client.socket.destroyed).toBe(true);
  });

  it('when a kept-alive connection stays idle past the keep-alive timeout, then the server closes it', async () => {
    const client = await openSocket();
    client.socket.write(`GET ${LIVE} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(statusOf(await answerOn(client))).toBe(200);

    const received = await client.closed;

    expect(received.match(/HTTP\/1\.1 /g)).toHaveLength(1); // closed after the one answer, with nothing more
  });

  it('when more connections are open than the cap, then the one over it is closed unanswered while the others are served', async () => {
    // Connections opened one by one, each asking for liveness and kept open, until one is refused.
    const held: Array<Awaited<ReturnType<typeof openSocket>>> = [];
    let refused: string | undefined | null = null;
    for (let i = 0; i <= MAX_CONNECTIONS && refused === null; i++) {
      const client = await openSocket();
      client.socket.write(`GET ${LIVE} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const answer = await answerOn(client);
      if (answer === undefined) refused = answer;
      else held.push(client);
    }

    expect(refused).toBeUndefined();
    expect(held.length).toBeGreaterThan(0);
    expect(held.length).toBeLessThanOrEqual(MAX_CONNECTIONS);
    expect(held.map((c) => statusOf(c.received()))).toEqual(held.map(() => 200));
    // Once they are gone, new connections are taken again.
    for (const client of held) client.socket.destroy();
    await Promise.all(held.map((c) => c.closed));
    expect((await t.api.get(LIVE)).status).toBe(200);
  });
});

/** Headers of a login announcing a 100-byte body, and its first byte: then nothing. */
const STALLED_LOGIN =
  'POST /api/v1/control/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{';

/** Liveness on a fresh connection from `localAddress`, asked until it answers 200 (at most 50 times). */
async function pollLive(url: string, localAddress: string): Promise<number | string> {
  let outcome: number | string = 'not asked';
  for (let i = 0; i < 50 && outcome !== 200; i++) {
    if (i > 0) await sleep(50);
    outcome = await new Promise<number | string>((resolve) => {
      const req = request(`${url}${LIVE}`, { localAddress, agent: false, timeout: 5_000 }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      });
      req.once('timeout', () => req.destroy(new Error('no answer')));
      req.once('error', (err) => resolve(err.message));
      req.end();
    });
  }
  return outcome;
}

describe('stalled bodies and connections per address', () => {
  // Found by a security probe: 1,000 connections from one address, each with one byte of a 100-byte
  // login body, filled the connection cap in 1.2 s and every other client was reset.
  it('when a write sends its headers and part of its body, then 408 request_timeout once the body goes silent, the connection is closed and nothing is stored', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('stalled');
    const body = JSON.stringify(writeBody(namespace, 'never all sent'));
    const client = await openSocket();

    client.socket.write(
      `POST /api/v1/memory/write HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tenant.api_key}\r\n` +
        `Idempotency-Key: ${uniqueKey()}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, -5)}`,
    );
    const received = await client.closed;

    expect(statusOf(received)).toBe(408);
    const answer = JSON.parse(received.split('\r\n\r\n')[1] ?? '');
    t.api.contract.expectErrorEnvelope(answer);
    expect(answer).toMatchObject({
      error: expect.stringMatching(/sent nothing/), // the body bound, not Node's whole-request one
      retryable: false,
      details: { code: 'request_timeout' },
    });
    const recalled = await t.api.recall(tenant.api_key, recallBody(namespace, 'never all sent'));
    expect(recalled).toMatchObject({ status: 200, body: { related: [] } });
  });

  it('when one address holds its cap of stalled logins, then its next connection is closed unanswered while another address is served, and it is served again once they close', async () => {
    // An instance of its own: a cap of 2 per address, and bounds long enough to hold the stalled ones.
    const gateway = await t.stack.startGatewayInstance({
      GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: '2',
      GATEWAY_MAX_CONNECTIONS: '100',
      GATEWAY_HTTP_REQUEST_TIMEOUT_MS: '60000',
      GATEWAY_BODY_IDLE_TIMEOUT_MS: '60000',
    });
    onTestFinished(() => gateway.stop());
    const stalled = [await openSocket(gateway.url), await openSocket(gateway.url)];
    for (const client of stalled) client.socket.write(STALLED_LOGIN);

    const overCap = await openSocket(gateway.url);
    overCap.socket.write(STALLED_LOGIN);
    const refused = await overCap.closed;
    const fromElsewhere = await pollLive(gateway.url, '127.0.0.2');

    expect(refused).toBe('');
    expect(fromElsewhere).toBe(200);
    expect(stalled.map((c) => c.socket.destroyed)).toEqual([false, false]);
    for (const client of stalled) client.socket.destroy();
    await Promise.all(stalled.map((c) => c.closed));
    expect(await pollLive(gateway.url, '127.0.0.1')).toBe(200);
  });
});
