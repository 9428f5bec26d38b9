import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { QueueGroups, Subjects } from '@tm/contracts';
import { describe, expect, inject, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { createTenant } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { standInService } from '../support/stand-in-service.js';

// A short deadline, so a telemetry that does not answer costs a second.
const t = useStack({ requestTimeoutMs: 1_000 });

const EVENTS = '/api/v1/infrastructure/events';
const WARN = 40;
const ERROR = 50;

/** The gateway's lines about one request (the access line is written once the response is out). */
async function logLinesOf(requestId: string): Promise<Array<{ level: number; msg: string }>> {
  return eventually(() => {
    const lines = readFileSync(inject('logCapture').logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes(requestId))
      .map((line) => JSON.parse(line) as { level: number; msg: string; req?: unknown });
    expect(lines.some((line) => line.req !== undefined)).toBe(true); // the access line is there
    return lines;
  });
}

/** GET the events page with the telemetry service stopped and `answer` (if any) standing in for it. */
async function eventsWhileTelemetry(answer: ((request: unknown) => unknown) | null) {
  const tenant = await createTenant();
  const requestId = `log-level-${randomUUID()}`;
  await t.stack.stopTelemetry();
  const standIn = answer
    ? await standInService(Subjects.telemetry.listEvents, QueueGroups.telemetry, answer)
    : undefined;
  try {
    const res = await t.api.get(EVENTS, { key: tenant.api_key, headers: { 'X-Request-Id': requestId } });
    return { res, lines: await logLinesOf(requestId), requestId };
  } finally {
    await standIn?.stop();
    await t.stack.startTelemetry();
  }
}

describe('how loud a failed request is logged', () => {
  it('when telemetry is down (503 service_unavailable), then the request is logged as failed at warn, and nothing at error', async () => {
    const { res, lines, requestId } = await eventsWhileTelemetry(null);

    expect(res).toMatchObject({
      status: 503,
      headers: { 'retry-after': '1' },
      body: { retryable: true, request_id: requestId, details: { code: 'service_unavailable' } },
    });
    expect(lines.filter((l) => l.msg === 'request failed').map((l) => l.level)).toEqual([WARN, WARN]);
    expect(lines.filter((l) => l.level >= ERROR)).toEqual([]);
  });

  it('when telemetry does not answer in time (504 upstream_timeout), then the request is logged as failed at warn, and nothing at error', async () => {
    const { res, lines, requestId } = await eventsWhileTelemetry(() => undefined);

    expect(res).toMatchObject({
      status: 504,
      headers: { 'retry-after': '1' },
      body: { retryable: true, request_id: requestId, details: { code: 'upstream_timeout' } },
    });
    expect(lines.filter((l) => l.msg === 'request failed').map((l) => l.level)).toEqual([WARN, WARN]);
    expect(lines.filter((l) => l.level >= ERROR)).toEqual([]);
  });

  it('when telemetry answers outside its contract (500 internal_error), then the request is logged as failed at error', async () => {
    const { res, lines, requestId } = await eventsWhileTelemetry(() => ({ not: 'an events page' }));

    expect(res).toMatchObject({
      status: 500,
      body: { retryable: false, request_id: requestId, details: { code: 'internal_error' } },
    });
    expect(res.headers['retry-after']).toBeUndefined();
    expect(lines.filter((l) => l.msg === 'request failed').map((l) => l.level)).toEqual([ERROR, ERROR]);
  });
});
