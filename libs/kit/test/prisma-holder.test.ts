import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { prismaHolder } from '../src/prisma-holder.js';

const noClient = () => ({ $disconnect: async () => {} });

/** A "database" that accepts connections and never answers, as a hung PostgreSQL does. */
let silent: Server;
let silentUrl: string;
const sockets = new Set<Socket>();
beforeAll(async () => {
  silent = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  silentUrl = `postgresql://u:p@127.0.0.1:${port}/hung`;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

describe('schema version for health checks', () => {
  it('when the database hangs, then the schema version is answered at once as unknown, and asking again starts no second read', async () => {
    const holder = prismaHolder(noClient);
    holder.init(silentUrl, 2);
    try {
      // A value, not a promise a health check would wait on for the pool's connection timeout.
      expect(holder.schemaVersion()).toBeNull();
      expect(holder.schemaVersion()).toBeNull();
      // One read in flight (the one init started): each ping does not add a connection attempt.
      await vi.waitFor(() => expect(sockets.size).toBeGreaterThan(0), { timeout: 15_000 });
      expect(holder.schemaVersion()).toBeNull();
      expect(holder.pool().totalCount).toBe(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await holder.close();
    }
  });

  it('when the database answers, then the version read in the background is served from then on', async () => {
    const holder = prismaHolder(noClient);
    holder.init(inject('stack').memoryDbUrl, 1);
    try {
      await vi.waitFor(() => expect(holder.schemaVersion()).toMatch(/^\d{14}_/), { timeout: 15_000 });
    } finally {
      await holder.close();
    }
  });
});
