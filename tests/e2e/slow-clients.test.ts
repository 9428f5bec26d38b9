import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { useStack } from './support/stack.js';

const MAX_CONNECTIONS = 6;
// Short bounds, so each test waits seconds for what a deployment waits 10 s to minutes for. Kept-alive
// connections outlive the cap test's few requests, so the connections it holds stay open through it.
const t = useStack({
  gatewayEnv: {
    GATEWAY_HTTP_HEADERS_TIMEOUT_MS: '1000',
    GATEWAY_HTTP_REQUEST_TIMEOUT_MS: '2000',
    GATEWAY_HTTP_KEEP_ALIVE_TIMEOUT_MS: '5000',
    GATEWAY_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  },
});

const LIVE = '/api/v1/infrastructure/health/live';

/** A raw connection to the gateway, with everything it receives and whether the server closed it. */
async function openSocket() {
  const { port } = new URL(t.stack.url);
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
