import { Agent, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@tm/kit';
import express from 'express';
import { describe, expect, it, onTestFinished } from 'vitest';
import { drainServer } from '../src/entry-points/http/drain-server.js';
import { trackInFlightRequests } from '../src/entry-points/http/in-flight-requests.js';

const silent = createLogger({ name: 'drain-server-test', level: 'silent' });

/** A server with the gateway's in-flight tracking and one route, on a free port. */
async function serve() {
  const inFlight = trackInFlightRequests();
  const app = express();
  app.use(inFlight.track);
  app.get('/ping', (_req, res) => {
    res.json({ pong: true });
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  server.keepAliveTimeout = 65_000;
  onTestFinished(() => {
    server.closeAllConnections();
    server.close();
  });
  const drain = () =>
    drainServer(server, inFlight, {
      withinMs: 3_000,
      answerHeld: (_req, res) => res.status(503).end(),
      logger: silent,
    });
  return { port: (server.address() as AddressInfo).port, drain };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
  reusedSocket: boolean;
}

function get(port: number, agent: Agent | false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/ping', agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          reusedSocket: req.reusedSocket,
        }),
      );
    });
    req.once('error', reject);
    req.end();
  });
}

describe('drainServer', () => {
  it('when a request comes on a kept-alive connection as the drain begins, then it is answered with Connection: close, not reset', async () => {
    // Arrange: a connection the client keeps alive, idle between two requests.
    const { port, drain } = await serve();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    onTestFinished(() => agent.destroy());
    const first = await get(port, agent);

    // Act: the drain begins, and in the same moment the client sends its next request on that connection.
    const drained = drain();
    const second = await get(port, agent);
    const newConnection = await get(port, false).then(
      () => 'accepted',
      (err: NodeJS.ErrnoException) => err.code,
    );
    await drained;

    // Assert
    expect(first).toMatchObject({ status: 200, headers: { connection: 'keep-alive' }, reusedSocket: false });
    expect(second).toEqual({
      status: 200,
      headers: expect.objectContaining({ connection: 'close' }),
      body: { pong: true },
      reusedSocket: true,
    });
    expect(newConnection).toBe('ECONNREFUSED');
  });

  it('when a kept-alive connection stays idle through the drain, then the drain closes it and ends', async () => {
    // Arrange
    const { port, drain } = await serve();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    onTestFinished(() => agent.destroy());
    await get(port, agent);
    const [socket] = Object.values(agent.freeSockets).flat();
    const socketClosed = new Promise<void>((resolve) => socket?.once('close', () => resolve()));

    // Act
    await drain();

    // Assert: closed by the server, well before the keep-alive timeout of 65 s.
    await socketClosed;
    expect(socket?.destroyed).toBe(true);
  });
});
