import { randomUUID } from 'node:crypto';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AppError, ErrorCode } from '@tm/contracts';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { z } from 'zod';
import { createService } from '../src/request-reply/nats-service.js';

const logger = pino({ level: 'silent' });

let nc: NatsConnection;
beforeAll(async () => {
  nc = await connect({ servers: inject('stack').natsUrl });
});
afterAll(() => nc.close());

const outage = (what: string) => (err: unknown) =>
  err instanceof Error && err.message === 'down'
    ? new AppError(ErrorCode.StorageUnavailable, `${what} is unavailable`, { cause: err })
    : undefined;

describe('createService', () => {
  it('when an endpoint gives no error mapping, then the service’s maps its failures, and an endpoint’s own wins', async () => {
    const service = createService(
      nc,
      {
        name: 'memory',
        version: '0.0.0',
        health: async () => ({ available: true, dependencies: {} }),
        mapError: outage('Service storage'),
      },
      logger,
    );
    const prefix = `test.${randomUUID()}`;
    const failing = { input: z.unknown(), handler: async () => Promise.reject(new Error('down')) };
    service.endpoint({ ...failing, subject: `${prefix}.default` });
    service.endpoint({ ...failing, subject: `${prefix}.own`, mapError: outage('Own storage') });
    try {
      const answer = async (subject: string) => {
        const reply = await nc.request(subject, '{}', { timeout: 5_000 });
        return { status: reply.headers?.get('Nats-Service-Error-Code'), body: reply.json() };
      };

      expect(await answer(`${prefix}.default`)).toEqual({
        status: '503',
        body: expect.objectContaining({
          code: 'storage_unavailable',
          message: 'Service storage is unavailable',
        }),
      });
      expect(await answer(`${prefix}.own`)).toEqual({
        status: '503',
        body: expect.objectContaining({ code: 'storage_unavailable', message: 'Own storage is unavailable' }),
      });
    } finally {
      await service.stop(1_000);
    }
  });

  it('when an endpoint refuses a request with a message quoting its input, then $SRV.STATS shows the status and code only', async () => {
    const service = createService(
      nc,
      { name: 'billing', version: '0.0.0', health: async () => ({ available: true, dependencies: {} }) },
      logger,
    );
    const subject = `test.${randomUUID()}.quote`;
    const quoted = `tenant-text-${randomUUID()}`;
    service.endpoint({
      subject,
      input: z.object({ name: z.string() }),
      handler: async ({ name }) => {
        throw new AppError(ErrorCode.ValidationFailed, `No dataset ${name}`);
      },
    });
    try {
      const refused = await nc.request(subject, JSON.stringify({ name: quoted }), { timeout: 5_000 });
      expect(refused.json()).toMatchObject({ code: 'validation_failed', message: `No dataset ${quoted}` });

      // Recorded once the answer is sent: read until it is there.
      const stats = await vi.waitFor(async () => {
        const reply = await nc.request(`$SRV.STATS.billing.${service.id}`, '', { timeout: 5_000 });
        const endpoints = (reply.json() as { endpoints: Array<{ subject: string; num_errors: number }> })
          .endpoints;
        expect(endpoints.find((e) => e.subject === subject)?.num_errors).toBe(1);
        return { text: reply.string(), endpoint: endpoints.find((e) => e.subject === subject) };
      });
      expect(stats.endpoint).toMatchObject({ num_errors: 1, last_error: '400 validation_failed' });
      expect(stats.text).not.toContain(quoted);
    } finally {
      await service.stop(1_000);
    }
  });
});
