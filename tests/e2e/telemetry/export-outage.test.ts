import { randomUUID } from 'node:crypto';
import { EXPORT_PAGE_SIZE, QueueGroups, type RequestEvent, Subjects } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { createTenant, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { standInService } from '../support/stand-in-service.js';
import { eventsFor } from '../support/telemetry.js';

// A short deadline, so a telemetry that does not answer costs a second per call, not three.
const t = useStack({ requestTimeoutMs: 1_000 });

const EXPORT = '/api/v1/infrastructure/export';

/** A history row as telemetry would page it. */
const historyRow = (i: number): RequestEvent => ({
  request_id: `stand-in-${i}`,
  occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 60)).toISOString(),
  key_id: null,
  user_id: null,
  method: 'GET',
  route: '/api/v1/infrastructure/usage',
  operation: null,
  status: 200,
  outcome: 'accepted',
  state: null,
  error_code: null,
  latency_ms: 1,
  units: 0,
  billing_state: 'no_data',
  deployment_version: 'stand-in',
});

/** Run `fn` with the telemetry service stopped and `answer` standing in for its history pages. */
async function withHistoryPages(answer: (request: unknown) => unknown, fn: () => Promise<void>) {
  await t.stack.stopTelemetry();
  const standIn = await standInService(Subjects.telemetry.historyPage, QueueGroups.telemetry, answer);
  try {
    await fn();
  } finally {
    await standIn.stop();
    await t.stack.startTelemetry();
  }
}

async function tenantWithOneRecord() {
  const tenant = await createTenant();
  const written = await t.api.write(
    tenant.api_key,
    writeBody(uniqueNamespace('outage'), 'exported text'),
    uniqueKey(),
  );
  expect(written.status).toBe(200);
  return tenant;
}

describe('GET /api/v1/infrastructure/export while telemetry fails', () => {
  it('when telemetry does not answer the first history page, then 504 upstream_timeout in the error envelope with Retry-After, never a 200', async () => {
    const tenant = await tenantWithOneRecord();
    const requestId = `export-timeout-${randomUUID()}`;
    let res: Awaited<ReturnType<typeof t.api.get>> | undefined;

    await withHistoryPages(
      () => undefined, // silent: every history page times out
      async () => {
        res = await t.api.get(EXPORT, { key: tenant.api_key, headers: { 'X-Request-Id': requestId } });
      },
    );

    expect(res).toMatchObject({
      status: 504,
      headers: { 'retry-after': '1', 'content-type': expect.stringMatching(/^application\/json/) },
      body: {
        error:
          'The telemetry service did not answer in time; retry shortly (a write with the same idempotency key)',
        retryable: true,
        request_id: requestId,
        details: { code: 'upstream_timeout', request_id: requestId },
      },
    });
    expect(Object.keys(res?.body ?? {}).sort()).toEqual([
      'contract_version',
      'details',
      'error',
      'request_id',
      'retryable',
    ]);
    // The history says the same: a failed export, not a served one.
    const events = await eventsFor(t.api, tenant.api_key, [requestId]);
    expect(events.find((e) => e.request_id === requestId)).toMatchObject({
      route: EXPORT,
      status: 504,
      outcome: 'failed',
      error_code: 'upstream_timeout',
    });
  });

  it('when telemetry stops answering after the first history page, then the transfer is broken off after retries, never ended as a whole document', {
    timeout: 60_000,
  }, async () => {
    const tenant = await tenantWithOneRecord();
    const requestId = `export-cut-${randomUUID()}`;
    const firstPage = {
      data: Array.from({ length: EXPORT_PAGE_SIZE }, (_, i) => historyRow(i)),
      next: { occurred_at: '2026-01-01T00:00:59.000Z', record_id: randomUUID() },
    };
    let pagesAsked = 0;
    let status: number | undefined;
    let body: Promise<string> | undefined;

    await withHistoryPages(
      (request) => {
        pagesAsked++;
        // The first page is answered (more than a page in all); every later one times out.
        return (request as { after: unknown }).after === null ? firstPage : undefined;
      },
      async () => {
        const res = await fetch(`${t.stack.url}${EXPORT}`, {
          headers: { Authorization: `Bearer ${tenant.api_key}`, 'X-Request-Id': requestId },
        });
        status = res.status;
        body = res.text();
        await body.catch(() => undefined);
      },
    );

    // The 200 went out with the first pages; what follows it cannot be a whole document.
    expect(status).toBe(200);
    await expect(body).rejects.toThrow();
    // The first page, then the second tried three times (the last may meet an open breaker instead).
    expect(pagesAsked).toBeGreaterThanOrEqual(3);
    const events = await eventsFor(t.api, tenant.api_key, [requestId]);
    expect(events.find((e) => e.request_id === requestId)).toMatchObject({
      route: EXPORT,
      status: expect.toSatisfy((s: number) => s === 503 || s === 504),
      outcome: 'failed',
      error_code: expect.stringMatching(/^(upstream_timeout|service_unavailable)$/),
    });
  });
});
