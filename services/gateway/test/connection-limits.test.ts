import { once } from 'node:events';
import { request, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorEnvelope } from '@tm/contracts';
import { createLogger } from '@tm/kit';
import express from 'express';
import { describe, expect, it, onTestFinished } from 'vitest';
import { GatewayConfigSchema } from '../src/config.js';
import { answerShape } from '../src/entry-points/http/middleware/answer-shape.js';
import { boundRequestBodies } from '../src/entry-points/http/middleware/body-deadlines.js';
import { errorHandler, notFound } from '../src/entry-points/http/middleware/error-handler.js';
import { jsonBody } from '../src/entry-points/http/middleware/json-body.js';
import { requestContext } from '../src/entry-points/http/middleware/request-context.js';
import { receiveMultipartUpload } from '../src/entry-points/http/receive-multipart-upload.js';
import { type ConnectionLimits, startServer } from '../src/entry-points/http/server.js';

const silent = createLogger({ name: 'connection-limits-test', level: 'silent' });
const LIVE = '/api/v1/live';
const WRITE = '/api/v1/things';
const UPLOAD = '/api/v1/uploads';

/**
 * The gateway's server (startServer) with the request middleware that bounds bodies, the JSON body
 * parser and the error handler, in front of a route that stores what it is given; on a free port.
 */
async function serve(options: {
  maxPerAddress: number;
  bodyIdleMs: number;
  minBytesPerSecond?: number;
  uploadStallMs?: number;
  trustProxy?: string[];
}) {
  const uploadStallMs = options.uploadStallMs ?? options.bodyIdleMs;
  const stored: unknown[] = [];
  const app = express();
  app.set('trust proxy', options.trustProxy ?? false);
  app.use(answerShape, requestContext);
  app.use(
    boundRequestBodies(
      {
        idleMs: options.bodyIdleMs,
        minBytesPerSecond: options.minBytesPerSecond ?? 16 * 1024,
        maxMs: 60_000,
        upload: { stallMs: uploadStallMs },
      },
      silent,
    ),
  );
  app.get(LIVE, (_req, res) => {
    res.json({ live: true });
  });
  app.post(WRITE, ...jsonBody, (req, res) => {
    stored.push(req.body);
    res.status(201).json({ stored: true });
  });
  app.post(UPLOAD, async (req, res) => {
    const limits = { maxBytes: 1024 * 1024, stallMs: uploadStallMs };
    const bytes = await receiveMultipartUpload(req, limits, async ({ stream }) => {
      let length = 0;
      for await (const chunk of stream) length += (chunk as Buffer).length;
      return length;
    });
    stored.push({ upload: bytes });
    res.status(201).json({ stored: true });
  });
  app.use(notFound, errorHandler(silent));
  const limits: ConnectionLimits = {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 60_000,
    keepAliveTimeoutMs: 65_000,
    maxConnections: 100,
    maxConnectionsPerAddress: options.maxPerAddress,
  };
  const server: Server = await startServer(app, 0, '127.0.0.1', limits, silent);
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  return { port: (server.address() as AddressInfo).port, stored };
}

/** A raw connection from `localAddress`, with what it received and a promise of its close. */
async function openSocket(port: number, localAddress = '127.0.0.1') {
  const socket = connect({ port, host: '127.0.0.1', localAddress, noDelay: true });
  onTestFinished(() => {
    socket.destroy();
  });
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    received += chunk;
  });
  socket.on('error', () => {}); // a reset is one of the outcomes looked at
  const closed = once(socket, 'close').then(() => received);
  await once(socket, 'connect');
  return { socket, closed };
}

/** Headers announcing a 100-byte JSON body, and its first byte: then nothing. */
const STALLED_WRITE = `POST ${WRITE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`;

/** GET liveness on a fresh connection from `localAddress`: its status, or the error if it failed. */
function getLive(port: number, localAddress: string): Promise<number | Error> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: LIVE, localAddress, agent: false, timeout: 5_000 },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.once('timeout', () => req.destroy(new Error('no answer')));
    req.once('error', resolve);
    req.end();
  });
}

/** Asks until liveness answers from `localAddress` (at most `attempts` times), then its last outcome. */
async function pollLive(port: number, localAddress: string, attempts = 50): Promise<number | Error> {
  let outcome: number | Error = new Error('not asked');
  for (let i = 0; i < attempts; i++) {
    outcome = await getLive(port, localAddress);
    if (outcome === 200) return outcome;
    await sleep(50);
  }
  return outcome;
}

const split = (answer: string) => {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), head, body: JSON.parse(body) as unknown };
};

describe('connections per client address', () => {
  it('when one address holds its cap of stalled requests, then its next connection is closed unanswered while another address is served, and it is taken again once they close', async () => {
    // Arrange: the cap's worth of stalled writes from 127.0.0.1, opened one after another (the
    // server accepts in order, so they are counted before the one over the cap).
    const { port, stored } = await serve({ maxPerAddress: 3, bodyIdleMs: 60_000 });
    const stalled: Array<Awaited<ReturnType<typeof openSocket>>> = [];
    for (let i = 0; i < 3; i++) {
      const client = await openSocket(port);
      client.socket.write(STALLED_WRITE);
      stalled.push(client);
    }

    // Act
    const overCap = await openSocket(port);
    overCap.socket.write(STALLED_WRITE);
    const refused = await overCap.closed;
    const fromElsewhere = await pollLive(port, '127.0.0.2');

    // Assert
    expect(refused).toBe(''); // closed, nothing answered
    expect(fromElsewhere).toBe(200);
    expect(stalled.map((c) => c.socket.destroyed)).toEqual([false, false, false]);
    // Once the stalled ones are gone, the address is served again.
    for (const client of stalled) client.socket.destroy();
    await Promise.all(stalled.map((c) => c.closed));
    expect(await pollLive(port, '127.0.0.1')).toBe(200);
    expect(stored).toEqual([]);
  });

  it('when the peer is a trusted proxy, then it is not capped per address', async () => {
    const { port } = await serve({ maxPerAddress: 1, bodyIdleMs: 60_000, trustProxy: ['loopback'] });
    const held = await openSocket(port);
    held.socket.write(STALLED_WRITE);

    const second = await pollLive(port, '127.0.0.1');

    expect(second).toBe(200);
    expect(held.socket.destroyed).toBe(false);
  });
});

describe('request bodies that stall', () => {
  it('when a body stops after its first byte, then 408 request_timeout in the error envelope, the connection is closed and nothing is stored', async () => {
    const { port, stored } = await serve({ maxPerAddress: 10, bodyIdleMs: 200 });
    const client = await openSocket(port);

    client.socket.write(STALLED_WRITE);
    const answer = split(await client.closed);

    expect(answer.status).toBe(408);
    expect(answer.head).toMatch(/\r\nConnection: close\r\n/i);
    expect(ErrorEnvelope.safeParse(answer.body).success).toBe(true);
    expect(answer.body).toMatchObject({
      error: expect.stringMatching(/sent nothing/),
      retryable: false,
      details: { code: 'request_timeout' },
    });
    expect(stored).toEqual([]);
  });

  it('when the headers come first and part of the body just after, then silence, then it is named a silence even if the deadline comes first', async () => {
    // On a loaded machine the body's bytes can arrive after the first look; seen then, they must not
    // make the deadline (idle + 100 bytes at 16 KiB/s) look like a slow body. Looks every 500 ms.
    const { port, stored } = await serve({ maxPerAddress: 10, bodyIdleMs: 2_000 });
    const client = await openSocket(port);

    client.socket.write(STALLED_WRITE.slice(0, -1));
    await sleep(700); // between the first look and the second
    client.socket.write('{');
    const answer = split(await client.closed);

    expect(answer).toMatchObject({
      status: 408,
      body: { error: expect.stringMatching(/sent nothing/), details: { code: 'request_timeout' } },
    });
    expect(stored).toEqual([]);
  });

  it('when a body keeps coming at the minimum rate, then the route gets it whole', async () => {
    // 8 bytes/s: the 26-byte body has 0.2 s + 4 s, and comes a byte every 20 ms.
    const { port, stored } = await serve({ maxPerAddress: 10, bodyIdleMs: 200, minBytesPerSecond: 8 });
    const client = await openSocket(port);
    const body = JSON.stringify({ text: 'slow but steady' });

    client.socket.write(
      `POST ${WRITE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    for (const character of body) {
      client.socket.write(character);
      await sleep(20); // well inside the idle bound between bytes
    }
    const answer = split(await client.closed);

    expect(answer).toMatchObject({ status: 201, body: { stored: true } });
    expect(stored).toEqual([{ text: 'slow but steady' }]);
  });
});

describe('uploads that stall', () => {
  it('when a multipart upload stalls, then its own bound answers it (408 upload_timeout) before the body bound backs it up', async () => {
    const { port, stored } = await serve({ maxPerAddress: 10, bodyIdleMs: 200, uploadStallMs: 300 });
    const client = await openSocket(port);
    const part = '--b\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\nx,y\r\n';

    client.socket.write(
      `POST ${UPLOAD} HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000\r\n\r\n${part}`,
    );
    const answer = split(await client.closed);

    expect(answer.status).toBe(408);
    expect(ErrorEnvelope.safeParse(answer.body).success).toBe(true);
    expect(answer.body).toMatchObject({ retryable: false, details: { code: 'upload_timeout' } });
    expect(stored).toEqual([]);
  });
});

describe('request bodies that come too slowly', () => {
  it('when a body keeps coming but below the minimum rate, then 408 request_timeout before it is all in, and nothing is stored', async () => {
    // 1,000 bytes at 16 KiB/s have 0.2 s + 0.06 s; a byte every 20 ms never goes silent for 0.2 s.
    const { port, stored } = await serve({ maxPerAddress: 10, bodyIdleMs: 200 });
    const client = await openSocket(port);
    client.socket.write(
      `POST ${WRITE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
    );
    const dribble = setInterval(() => {
      if (client.socket.writable) client.socket.write(' ');
    }, 20);

    const answer = split(await client.closed.finally(() => clearInterval(dribble)));

    expect(answer.status).toBe(408);
    expect(ErrorEnvelope.safeParse(answer.body).success).toBe(true);
    expect(answer.body).toMatchObject({
      error: expect.stringMatching(/too slow/),
      retryable: false,
      details: { code: 'request_timeout' },
    });
    expect(stored).toEqual([]);
  });
});

describe('connection and body settings', () => {
  const parse = (env: Record<string, string>) => GatewayConfigSchema.safeParse(env);

  it('when unset, then 64 connections per address, 10 s of body silence and 16 KiB/s', () => {
    expect(parse({}).data).toMatchObject({
      GATEWAY_MAX_CONNECTIONS_PER_ADDRESS: 64,
      GATEWAY_BODY_IDLE_TIMEOUT_MS: 10_000,
      GATEWAY_BODY_MIN_BYTES_PER_SECOND: 16_384,
    });
  });

  it.each([
    ['GATEWAY_MAX_CONNECTIONS_PER_ADDRESS', '0'],
    ['GATEWAY_MAX_CONNECTIONS_PER_ADDRESS', '-1'],
    ['GATEWAY_MAX_CONNECTIONS_PER_ADDRESS', '2.5'],
    ['GATEWAY_MAX_CONNECTIONS_PER_ADDRESS', 'many'],
    ['GATEWAY_BODY_IDLE_TIMEOUT_MS', '0'],
    ['GATEWAY_BODY_IDLE_TIMEOUT_MS', 'soon'],
    ['GATEWAY_BODY_IDLE_TIMEOUT_MS', '-5'],
    ['GATEWAY_BODY_MIN_BYTES_PER_SECOND', ''],
    ['GATEWAY_BODY_MIN_BYTES_PER_SECOND', '0'],
    ['GATEWAY_BODY_MIN_BYTES_PER_SECOND', '1e3.5'],
  ])('when %s is %s, then the configuration is refused naming it', (name, value) => {
    const parsed = parse({ [name]: value });

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContain(name);
  });
});
