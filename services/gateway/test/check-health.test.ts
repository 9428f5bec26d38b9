import { HealthResponse } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { checkHealth, type HealthProbe } from '../src/domain/operations/check-health.js';

const deployment = { version: 'test', environment: 'test' };
const database = { available: true, latency_ms: 1 };
const answers = (required: boolean, databaseUp = true): HealthProbe => ({
  required,
  check: async () => ({
    available: databaseUp,
    dependencies: { database: databaseUp ? database : { available: false }, nats: { available: true } },
  }),
});
const silent = (required: boolean): HealthProbe => ({
  required,
  check: () => Promise.reject(new Error('no responders')),
});

describe('checkHealth', () => {
  it('when every probe answers with its dependencies up, then ok and available', async () => {
    const health = await checkHealth({ memory: answers(true), billing: answers(false) }, deployment);

    expect(health).toMatchObject({
      status: 'ok',
      available: true,
      services: {
        memory: { available: true, required: true, dependencies: { database, nats: { available: true } } },
        billing: { available: true, required: false },
      },
    });
  });

  it('when a required service answers but its database does not, then unavailable, naming the database', async () => {
    const health = await checkHealth({ memory: answers(true, false), billing: answers(false) }, deployment);

    expect(health).toMatchObject({
      status: 'unavailable',
      available: false,
      services: {
        memory: { available: false, required: true, dependencies: { database: { available: false } } },
      },
    });
  });

  it('when an optional service is silent, then degraded but available, with no dependencies for it', async () => {
    const health = await checkHealth({ memory: answers(true), telemetry: silent(false) }, deployment);

    expect(health).toMatchObject({ status: 'degraded', available: true });
    expect(health.services.telemetry).toEqual({ available: false, required: false });
  });

  it('when a service answers but one of its consumers cannot be read, then degraded, still available', async () => {
    const billing: HealthProbe = {
      required: false,
      check: async () => ({
        available: true,
        dependencies: { database, 'billing-usage': { available: false } },
      }),
    };

    const health = await checkHealth({ memory: answers(true), billing }, deployment);

    expect(health).toMatchObject({
      status: 'degraded',
      available: true,
      services: { billing: { available: true } },
    });
  });

  it('when a service of an older release answers without a report, then it counts as answering', async () => {
    const health = await checkHealth(
      { memory: { required: true, check: async () => undefined } },
      deployment,
    );

    expect(health).toMatchObject({
      status: 'ok',
      available: true,
      services: { memory: { available: true, required: true } },
    });
  });

  it('when the memory service reports its re-index, then health carries it on the memory entry and nowhere else', async () => {
    const reindex = {
      namespaces_pending: 2,
      namespaces_indexing: 1,
      namespaces_cleaning: 0,
      namespaces_completed: 4,
      namespaces_total: 7,
      records_done: 1_250,
      records_total: 3_000,
    };
    const memory: HealthProbe = {
      required: true,
      check: async () => ({ available: true, dependencies: { database }, reindex }),
    };

    const health = await checkHealth({ memory, billing: answers(false) }, deployment);

    expect(health).toMatchObject({ status: 'ok', services: { memory: { available: true, reindex } } });
    expect(health.services.billing).not.toHaveProperty('reindex');
    expect(HealthResponse.parse(health).services.memory?.reindex).toEqual(reindex);
  });
});
