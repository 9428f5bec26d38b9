import { randomUUID } from 'node:crypto';
import { AnomalyRaisedEvent, Subjects } from '@tm/contracts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TelemetryConfigSchema } from '../src/config.js';
import { closePrisma, getPool, getSql, initPrisma } from '../src/data-access/prisma-client.js';
import { withWatchLock } from '../src/data-access/raised-anomaly-repository.js';
import { anomalyPolicy } from '../src/domain/thresholds.js';
import { watchAnomalies } from '../src/domain/watch-anomalies.js';

// The run's shared (migrated) telemetry database; each test has tenants of its own. The relay does not
// run here, so the outbox rows a pass commits stay to be read.
beforeAll(() => {
  initPrisma(inject('stack').telemetryDbUrl, 3);
});
afterAll(() => closePrisma());

const policy = anomalyPolicy(
  TelemetryConfigSchema.parse({
    ANOMALY_ERROR_RATE_WARNING: '0.2',
    ANOMALY_ERROR_RATE_CRITICAL: '0.6',
    ANOMALY_MIN_REQUESTS: '10',
  }),
);
const options = { policy, windowMinutes: 15, exactPercentilesUpTo: 10_000 };
/** Passes judge the 15 minutes before this: a whole minute, so the window is read from rollups only. */
const now = new Date(Math.floor(Date.now() / 60_000) * 60_000);
const MINUTE = new Date(now.getTime() - 5 * 60_000);

/** The tenant's requests of one minute of the window, as the rollups count them. */
async function minuteOf(tenantId: string, requests: number, errors: number) {
  await getSql()(
    `INSERT INTO request_rollup (tenant_id, minute, operation, deployment_version, requests, accepted, errors,
                                 server_errors, timeouts, blocked, max_latency_ms)
     VALUES ($1, $2, 'memory.recall', 'test', $3::int, $3::int - $4::int, $4::int, 0, 0, 0, 1)
     ON CONFLICT (tenant_id, minute, operation, deployment_version)
       DO UPDATE SET requests = EXCLUDED.requests, accepted = EXCLUDED.accepted, errors = EXCLUDED.errors`,
    [tenantId, MINUTE, requests, errors],
  );
}

const anomaliesOf = (tenantId: string) =>
  getSql()<{ id: string; name: string; severity: string; cleared: boolean }>(
    `SELECT id::text AS id, name, severity, cleared_at IS NOT NULL AS cleared
       FROM raised_anomaly WHERE tenant_id = $1 ORDER BY raised_at, id`,
    [tenantId],
  );

const eventsOf = async (tenantId: string) =>
  (
    await getSql()<{ id: string; subject: string; payload: unknown }>(
      `SELECT id::text AS id, subject, payload FROM outbox_message
        WHERE payload->>'tenant_id' = $1 ORDER BY created_at, id`,
      [tenantId],
    )
  ).map((row) => ({ ...row, payload: AnomalyRaisedEvent.parse(row.payload) }));

const pass = (at = now) => watchAnomalies(getSql(), options, at);

describe('the anomaly watch', () => {
  it('when a tenant’s error rate reaches warning, then one anomaly is raised with its event in the outbox, and the next pass raises nothing more', async () => {
    const tenantId = `tenant-${randomUUID()}`;
    await minuteOf(tenantId, 20, 5);

    await pass();
    await pass(new Date(now.getTime() + 1_000));

    const [anomaly, ...more] = await anomaliesOf(tenantId);
    expect(more).toEqual([]);
    expect(anomaly).toEqual({
      id: expect.any(String),
      name: 'error_rate',
      severity: 'warning',
      cleared: false,
    });
    expect(await eventsOf(tenantId)).toEqual([
      {
        id: expect.any(String),
        subject: Subjects.telemetry.anomalyRaised,
        payload: {
          version: 'v1',
          event_id: expect.any(String),
          tenant_id: tenantId,
          anomaly_id: anomaly?.id,
          name: 'error_rate',
          severity: 'warning',
          observed: 0.25,
          threshold: 0.2,
          unit: 'ratio',
          window_minutes: 15,
          occurred_at: now.toISOString(),
        },
      },
    ]);
    const [event] = await eventsOf(tenantId);
    expect(event?.payload.event_id).toBe(event?.id);
  });

  it('when an open warning becomes critical, then it is escalated with a second event of the same anomaly id', async () => {
    const tenantId = `tenant-${randomUUID()}`;
    await minuteOf(tenantId, 20, 5);
    await pass();

    await minuteOf(tenantId, 20, 15);
    await pass();
    await pass();

    const anomalies = await anomaliesOf(tenantId);
    const events = await eventsOf(tenantId);
    expect(anomalies).toEqual([
      { id: expect.any(String), name: 'error_rate', severity: 'critical', cleared: false },
    ]);
    expect(events.map((e) => [e.payload.anomaly_id, e.payload.severity, e.payload.threshold])).toEqual([
      [anomalies[0]?.id, 'warning', 0.2],
      [anomalies[0]?.id, 'critical', 0.6],
    ]);
  });

  it('when the window no longer shows it, then it clears without an event, and when it comes back it is a new anomaly', async () => {
    const tenantId = `tenant-${randomUUID()}`;
    await minuteOf(tenantId, 20, 5);
    await pass();

    await minuteOf(tenantId, 20, 0);
    await pass();
    const cleared = await anomaliesOf(tenantId);
    const eventsWhileCleared = await eventsOf(tenantId);
    await minuteOf(tenantId, 20, 6);
    await pass();

    expect(cleared).toMatchObject([{ severity: 'warning', cleared: true }]);
    expect(eventsWhileCleared).toHaveLength(1);
    const [first, second] = await anomaliesOf(tenantId);
    expect(second).toMatchObject({ name: 'error_rate', cleared: false });
    expect(second?.id).not.toBe(first?.id);
    expect((await eventsOf(tenantId)).map((e) => e.payload.anomaly_id)).toEqual([first?.id, second?.id]);
  });

  it('when a tenant has fewer requests than the minimum, or none in the window, then nothing is raised', async () => {
    const few = `tenant-${randomUUID()}`;
    await minuteOf(few, 5, 5);

    await pass();
    // the same minute judged from an hour later: outside the window
    await pass(new Date(now.getTime() + 60 * 60_000));

    expect(await anomaliesOf(few)).toEqual([]);
    expect(await eventsOf(few)).toEqual([]);
  });

  it('when another instance holds the watch’s lock, then a pass is skipped', async () => {
    let release: () => void = () => {};
    let started: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const holding = withWatchLock(getPool(), () => {
      started(); // the lock is held from here until release
      return new Promise<string>((resolve) => {
        release = () => resolve('ran');
      });
    });
    await running;

    const skipped = await withWatchLock(getPool(), async () => 'ran too');
    release();

    expect(skipped).toBeUndefined();
    expect(await holding).toBe('ran');
    expect(await withWatchLock(getPool(), async () => 'ran after')).toBe('ran after');
  });
});
