import { randomUUID } from 'node:crypto';
import type { RequestEvent } from '@tm/contracts';
import { describe, expect, it } from 'vitest';
import { TextMemory } from '../../../libs/clients/sdk/src/index.js';
import { createTenant, recallBody, uniqueKey, uniqueNamespace, writeBody } from '../support/factories.js';
import { useStack } from '../support/stack.js';
import { allEvents, eventsWhen } from '../support/telemetry.js';

const t = useStack();

const EVENTS = '/api/v1/infrastructure/events';
const rid = (label: string) => `${label}-${randomUUID()}`;
/** Records are stamped to the millisecond: a pause keeps their times apart, so a time range can split them. */
const pause = () => new Promise((resolve) => setTimeout(resolve, 15));

/**
 * Two writes, three recalls and a recall the API refuses (400), each with a request id; returns the
 * tenant's whole history once all of them are in it.
 */
async function traffic(apiKey: string) {
  const namespace = uniqueNamespace('filters');
  const ids: string[] = [];
  const send = async (label: string, call: (id: string) => Promise<{ status: number }>, status: number) => {
    const id = rid(label);
    ids.push(id);
    expect((await call(id)).status).toBe(status);
    await pause();
  };
  const headers = (id: string) => ({ 'X-Request-Id': id });
  for (let i = 0; i < 2; i++)
    await send(
      'write',
      (id) => t.api.write(apiKey, writeBody(namespace, `note ${i} about tides`), uniqueKey(), headers(id)),
      200,
    );
  for (let i = 0; i < 3; i++)
    await send(
      'recall',
      (id) =>
        t.api.post('/api/v1/memory/recall', {
          key: apiKey,
          body: recallBody(namespace, 'tides'),
          headers: headers(id),
        }),
      200,
    );
  await send(
    'invalid',
    (id) =>
      t.api.post('/api/v1/memory/recall', {
        key: apiKey,
        body: recallBody(namespace, 'tides', { top_k: 0 }),
        headers: headers(id),
      }),
    400,
  );
  return eventsWhen(t.api, apiKey, (events) => ids.every((id) => events.some((e) => e.request_id === id)));
}

const page = (key: string, query: Record<string, string>) => t.api.get(EVENTS, { key, query });

/** The whole answer of a filtered first page that holds every match. */
const onePage = (data: RequestEvent[], total: number) => ({
  status: 200,
  body: {
    contract_version: 'v1',
    data,
    paging: {
      limit: 100,
      offset: 0,
      returned: data.length,
      total,
      has_more: false,
      next_offset: null,
      next_cursor: null,
    },
  },
});

describe('GET /api/v1/infrastructure/events: filters on the server', () => {
  it('when filtered by operation, outcome, status and time, then each answer holds exactly the matching records, newest first', async () => {
    const tenant = await createTenant();
    const history = await traffic(tenant.api_key);
    const total = history.length;
    const where = (keep: (e: RequestEvent) => boolean) => history.filter(keep);

    expect(await page(tenant.api_key, { operation: 'memory.recall' })).toMatchObject(
      onePage(
        where((e) => e.operation === 'memory.recall'),
        total,
      ),
    );
    expect(where((e) => e.operation === 'memory.recall')).toHaveLength(4);
    expect(await page(tenant.api_key, { outcome: 'failed' })).toMatchObject(
      onePage(
        where((e) => e.outcome === 'failed'),
        total,
      ),
    );
    expect(await page(tenant.api_key, { operation: 'memory.recall', outcome: 'accepted' })).toMatchObject(
      onePage(
        where((e) => e.operation === 'memory.recall' && e.outcome === 'accepted'),
        total,
      ),
    );
    expect(await page(tenant.api_key, { status: '400' })).toMatchObject(
      onePage(
        where((e) => e.status === 400),
        total,
      ),
    );
    expect(where((e) => e.status === 400)).toEqual([
      expect.objectContaining({
        operation: 'memory.recall',
        error_code: 'validation_failed',
        outcome: 'failed',
      }),
    ]);

    // From the second write (inclusive) to the last recall (exclusive), by the records' own times.
    const writes = where((e) => e.operation === 'memory.write');
    const recalls = where((e) => e.operation === 'memory.recall' && e.outcome === 'accepted');
    const from = writes[0]?.occurred_at ?? '';
    const to = recalls[0]?.occurred_at ?? '';
    const inRange = where((e) => e.occurred_at >= from && e.occurred_at < to);
    expect(inRange.map((e) => e.operation)).toEqual(['memory.recall', 'memory.recall', 'memory.write']);
    expect(await page(tenant.api_key, { from, to })).toMatchObject(onePage(inRange, total));
    // A time range and an operation together; an offset in the date-time is the same instant.
    const since = new Date(Date.parse(from)).toISOString().replace('Z', '+00:00');
    expect(await page(tenant.api_key, { from: since, operation: 'memory.write' })).toMatchObject(
      onePage([writes[0] as RequestEvent], total),
    );
    // Any offset the format allows names the same instant (PostgreSQL itself refuses +23:59).
    const farEast = new Date(Date.parse(to) + 23 * 3_600_000 + 59 * 60_000)
      .toISOString()
      .replace('Z', '+23:59');
    expect(await page(tenant.api_key, { from, to: farEast })).toMatchObject(
      onePage(
        where((e) => e.occurred_at >= from && e.occurred_at < to),
        total,
      ),
    );
    // Nothing matches: an empty page, not an error.
    expect(await page(tenant.api_key, { operation: 'template.create' })).toMatchObject(onePage([], total));
  });

  it('when a filtered history is read page by page, by cursor and by offset, then the pages hold every match once and say when they end', async () => {
    const tenant = await createTenant();
    const namespace = uniqueNamespace('paged');
    const recalls: string[] = [];
    const writes: string[] = [];
    for (let i = 0; i < 7; i++) {
      const id = rid(`recall${i}`);
      recalls.push(id);
      const answer = await t.api.post('/api/v1/memory/recall', {
        key: tenant.api_key,
        body: recallBody(namespace, 'anything'),
        headers: { 'X-Request-Id': id },
      });
      expect(answer.status).toBe(200);
      // Writes between the recalls: a filter that only dropped rows from full pages would show gaps.
      const writeId = rid(`write${i}`);
      writes.push(writeId);
      expect(
        (
          await t.api.write(tenant.api_key, writeBody(namespace, `between ${i}`), uniqueKey(), {
            'X-Request-Id': writeId,
          })
        ).status,
      ).toBe(200);
    }
    // Every record in, the last write's included: the pages' total counts the whole history.
    const history = await eventsWhen(t.api, tenant.api_key, (events) =>
      [...recalls, ...writes].every((id) => events.some((e) => e.request_id === id)),
    );
    const total = history.length;
    const matching = history.filter((e) => e.operation === 'memory.recall');
    expect(matching.map((e) => e.request_id)).toEqual([...recalls].reverse());

    const filter = { operation: 'memory.recall', limit: '3' };
    const first = await page(tenant.api_key, filter);
    const second = await page(tenant.api_key, { ...filter, cursor: first.body.paging.next_cursor });
    const third = await page(tenant.api_key, { ...filter, cursor: second.body.paging.next_cursor });
    const cursorPaging = (returned: number, more: boolean, nextOffset: number | null) => ({
      limit: 3,
      offset: 0,
      returned,
      total,
      has_more: more,
      next_offset: nextOffset,
      next_cursor: more ? expect.any(String) : null,
    });
    expect([first, second, third]).toMatchObject([
      {
        status: 200,
        body: { contract_version: 'v1', data: matching.slice(0, 3), paging: cursorPaging(3, true, 3) },
      },
      {
        status: 200,
        body: { contract_version: 'v1', data: matching.slice(3, 6), paging: cursorPaging(3, true, null) },
      },
      {
        status: 200,
        body: { contract_version: 'v1', data: matching.slice(6), paging: cursorPaging(1, false, null) },
      },
    ]);

    // By offset: the offset counts matching records, and the last page says so although the history has more.
    const byOffset = await page(tenant.api_key, { ...filter, offset: '3' });
    const last = await page(tenant.api_key, { ...filter, offset: '6' });
    expect([byOffset, last]).toMatchObject([
      {
        status: 200,
        body: {
          data: matching.slice(3, 6),
          paging: { limit: 3, offset: 3, returned: 3, total, has_more: true, next_offset: 6 },
        },
      },
      {
        status: 200,
        body: {
          data: matching.slice(6),
          paging: {
            limit: 3,
            offset: 6,
            returned: 1,
            total,
            has_more: false,
            next_offset: null,
            next_cursor: null,
          },
        },
      },
    ]);
  });

  it("when the SDK's events() iterator is given filters, then it follows the cursor with them and yields every match once", async () => {
    const tenant = await createTenant();
    const history = await traffic(tenant.api_key);
    const tm = new TextMemory({ baseUrl: t.stack.url, apiKey: tenant.api_key });
    const seen: string[] = [];
    // Pages of one: without the filter on every page, the second page would hold a write.
    for await (const event of tm.infrastructure.events({
      operation: 'memory.recall',
      outcome: 'accepted',
      limit: 1,
    }))
      seen.push(event.request_id);
    expect(seen).toEqual(
      history
        .filter((e) => e.operation === 'memory.recall' && e.outcome === 'accepted')
        .map((e) => e.request_id),
    );
    expect(seen).toHaveLength(3);
    const page = await tm.infrastructure.eventsPage({ outcome: 'failed' });
    expect(page).toMatchObject({
      contract_version: 'v1',
      data: history.filter((e) => e.outcome === 'failed'),
      paging: { returned: 1, has_more: false, next_cursor: null },
    });
  });

  it("when two tenants make the same requests, then a filtered listing holds only the caller's records, with or without the other's cursor", async () => {
    const [mine, theirs] = [await createTenant(), await createTenant()];
    const [myHistory, theirHistory] = [await traffic(mine.api_key), await traffic(theirs.api_key)];
    const theirIds = new Set(theirHistory.map((e) => e.request_id));

    const queries: Array<Record<string, string>> = [
      { operation: 'memory.recall' },
      { outcome: 'failed' },
      { operation: 'memory.write', outcome: 'accepted' },
      { from: new Date(Date.now() - 3_600_000).toISOString() },
    ];
    for (const query of queries) {
      const answer = await page(mine.api_key, { ...query, limit: '500' });
      expect(answer.status).toBe(200);
      expect(answer.body.data.length).toBeGreaterThan(0);
      expect(answer.body.data.filter((e: RequestEvent) => theirIds.has(e.request_id))).toEqual([]);
      expect(
        answer.body.data.every((e: RequestEvent) => myHistory.some((m) => m.request_id === e.request_id)),
      ).toBe(true);
    }
    // Their cursor names a position in time only: read with it, the caller still sees its own records.
    const theirPage = await page(theirs.api_key, { operation: 'memory.recall', limit: '1' });
    const withTheirCursor = await page(mine.api_key, {
      operation: 'memory.recall',
      cursor: theirPage.body.paging.next_cursor,
    });
    expect(withTheirCursor.status).toBe(200);
    expect(withTheirCursor.body.data.filter((e: RequestEvent) => theirIds.has(e.request_id))).toEqual([]);
    // And the whole of their filtered history is theirs alone.
    const everyOfTheirs = await allEvents(t.api, theirs.api_key);
    expect(everyOfTheirs.some((e) => myHistory.some((m) => m.request_id === e.request_id))).toBe(false);
  });

  it.each([
    [{ outcome: 'refused' }, 'outcome'],
    [{ outcome: '' }, 'outcome'],
    [{ operation: 'Memory.Recall' }, 'operation'],
    [{ operation: 'memory recall' }, 'operation'],
    // Not a run of one letter: the credential leak check would take it for the weak password `aaaaaaaaaaaa`.
    [{ operation: `memory.${'ab'.repeat(50)}` }, 'operation'],
    [{ status: '99' }, 'status'],
    [{ status: '600' }, 'status'],
    [{ status: '2xx' }, 'status'],
    [{ from: 'yesterday' }, 'from'],
    [{ from: '2026-11-26' }, 'from'],
    [{ from: '0000-01-01T00:00:00Z' }, 'from'],
    [{ to: '9999-12-31T23:59:59-23:59' }, 'to'],
    [{ to: '2026-13-01T00:00:00Z' }, 'to'],
    [{ from: '2026-11-26T10:00:00Z', to: '2026-11-26T10:00:00Z' }, 'to'],
    [{ from: '2026-11-26T10:00:00Z', to: '2026-11-26T09:00:00Z' }, 'to'],
  ])('when the filter is %o, then 400 validation_failed names %s', async (query, field) => {
    const tenant = await createTenant();
    const res = await page(tenant.api_key, query);
    expect(res).toMatchObject({
      status: 400,
      body: {
        error: expect.stringContaining('Invalid events query'),
        details: {
          code: 'validation_failed',
          fields: expect.arrayContaining([
            expect.objectContaining({ path: field, message: expect.any(String) }),
          ]),
        },
      },
    });
  });

  it('when the query names a parameter the route does not take, then 400 validation_failed names it', async () => {
    const tenant = await createTenant();
    const res = await page(tenant.api_key, { namespace: 'n' });
    expect(res).toMatchObject({
      status: 400,
      body: {
        error: 'Unknown query parameter',
        details: {
          code: 'validation_failed',
          fields: [{ path: 'namespace', message: 'is not a known field' }],
        },
      },
    });
  });
});
