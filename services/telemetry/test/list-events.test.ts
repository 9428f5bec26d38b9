import { decodeEventsCursor, EventsFilter, type RequestRecord } from '@tm/contracts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { closePrisma, initPrisma } from '../src/data-access/prisma-client.js';
import { listTenantEvents, pageHistory } from '../src/domain/list-events.js';
import { record, store, uniqueTenant } from './support/factories.js';

// The run's shared (migrated) telemetry database; each test has a tenant of its own.
beforeAll(() => {
  initPrisma(inject('stack').telemetryDbUrl, 2);
});
afterAll(() => closePrisma());

const NO_FILTER = EventsFilter.parse({});
const second = (n: number) => new Date(Date.UTC(2026, 10, 21, 0, 0, n)).toISOString();

/** `n` records of the tenant, one a second from 00:00:00, latency = its second (to tell them apart). */
async function history(
  tenantId: string,
  n: number,
  extra: (i: number) => Partial<RequestRecord> = () => ({}),
) {
  const records = Array.from({ length: n }, (_, i) =>
    record(tenantId, { latency_ms: i, occurred_at: second(i), ...extra(i) }),
  );
  await store(records);
  return records;
}

const page = (
  tenantId: string,
  p: {
    limit: number;
    offset?: number;
    before?: { occurred_at: string; record_id: string } | null;
    filter?: Partial<EventsFilter>;
  },
) =>
  listTenantEvents({
    tenant_id: tenantId,
    limit: p.limit,
    offset: p.offset ?? 0,
    before: p.before ?? null,
    filter: { ...NO_FILTER, ...p.filter },
  });

describe('listTenantEvents', () => {
  it('when a history is read by offset, then pages are newest first, total is the whole history, and the last page says there is no more', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    await history(tenantId, 5);

    // Act
    const first = await page(tenantId, { limit: 2 });
    const last = await page(tenantId, { limit: 2, offset: 4 });

    // Assert
    expect(first.data.map((e) => e.latency_ms)).toEqual([4, 3]);
    expect(first.paging).toEqual({
      limit: 2,
      offset: 0,
      returned: 2,
      total: 5,
      has_more: true,
      next_offset: 2,
      next_cursor: expect.any(String),
    });
    expect(last.data.map((e) => e.latency_ms)).toEqual([0]);
    expect(last.paging).toEqual({
      limit: 2,
      offset: 4,
      returned: 1,
      total: 5,
      has_more: false,
      next_offset: null,
      next_cursor: null,
    });
  });

  it('when a page exactly ends the history, then it says there is no more and gives no cursor', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    await history(tenantId, 4);

    // Act
    const result = await page(tenantId, { limit: 2, offset: 2 });

    // Assert
    expect(result.paging).toMatchObject({
      returned: 2,
      total: 4,
      has_more: false,
      next_offset: null,
      next_cursor: null,
    });
  });

  it('when pages follow each other’s cursors, then they walk the whole history once, newest first, and a cursor page names no next offset', async () => {
    // Arrange: two records on the same millisecond, so the record id breaks the tie.
    const tenantId = uniqueTenant();
    await history(tenantId, 5, (i) => (i === 3 ? { occurred_at: second(2) } : {}));

    // Act
    const seen: number[] = [];
    let before: { occurred_at: string; record_id: string } | null = null;
    const pagings = [];
    do {
      const result = await page(tenantId, { limit: 2, before });
      seen.push(...result.data.map((e) => e.latency_ms));
      pagings.push(result.paging);
      before = result.paging.next_cursor ? decodeEventsCursor(result.paging.next_cursor) : null;
    } while (before);

    // Assert: the first page is read by offset (it says where the next is both ways), the rest by cursor.
    expect([...seen].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4]);
    expect(seen[0]).toBe(4);
    expect(seen.slice(1, 3).sort((a, b) => a - b)).toEqual([2, 3]);
    expect(pagings.map((p) => [p.returned, p.has_more, p.next_offset])).toEqual([
      [2, true, 2],
      [2, true, null],
      [1, false, null],
    ]);
  });

  it('when the events route itself was read, then those reads are neither listed nor counted', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    await history(tenantId, 3, (i) =>
      i === 1 ? { method: 'GET', route: '/api/v1/infrastructure/events', operation: null } : {},
    );

    // Act
    const result = await page(tenantId, { limit: 10 });

    // Assert
    expect(result.data.map((e) => e.latency_ms)).toEqual([2, 0]);
    expect(result.paging).toMatchObject({ returned: 2, total: 2, has_more: false });
  });

  it('when a filter matches fewer records than the history holds, then has_more follows the matches, not the total', async () => {
    // Arrange: 6 records, 2 failed.
    const tenantId = uniqueTenant();
    await history(tenantId, 6, (i) => (i % 3 === 0 ? { status: 500, error_code: 'internal_error' } : {}));

    // Act
    const failed = await page(tenantId, { limit: 2, filter: { outcome: 'failed' } });
    const firstOfMore = await page(tenantId, { limit: 1, filter: { outcome: 'failed' } });

    // Assert
    expect(failed.data.map((e) => [e.latency_ms, e.outcome])).toEqual([
      [3, 'failed'],
      [0, 'failed'],
    ]);
    expect(failed.paging).toMatchObject({
      returned: 2,
      total: 6,
      has_more: false,
      next_offset: null,
      next_cursor: null,
    });
    expect(firstOfMore.paging).toMatchObject({ returned: 1, has_more: true, next_offset: 1 });
  });

  it('when a time range is given, then from is inclusive and to exclusive', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    await history(tenantId, 5);

    // Act
    const result = await page(tenantId, { limit: 10, filter: { from: second(1), to: second(3) } });

    // Assert
    expect(result.data.map((e) => e.latency_ms)).toEqual([2, 1]);
  });

  it('when a tenant has no history, then an empty page, total 0, nothing more', async () => {
    // Act
    const result = await page(uniqueTenant(), { limit: 10 });

    // Assert
    expect(result).toEqual({
      data: [],
      paging: {
        limit: 10,
        offset: 0,
        returned: 0,
        total: 0,
        has_more: false,
        next_offset: null,
        next_cursor: null,
      },
    });
  });

  it('when events are listed, then each carries what was recorded but not the record id, and no item counts where there were none', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    const [stored] = await history(tenantId, 1, () => ({ status: 429, error_code: 'rate_limited' }));

    // Act
    const [event] = (await page(tenantId, { limit: 1 })).data;

    // Assert
    expect(event).toEqual({
      request_id: stored?.request_id,
      occurred_at: second(0),
      key_id: null,
      user_id: null,
      method: 'POST',
      route: '/api/v1/memory/write',
      operation: 'memory.write',
      status: 429,
      outcome: 'blocked',
      state: null,
      error_code: 'rate_limited',
      latency_ms: 0,
      units: 0,
      billing_state: 'no_data',
      deployment_version: 'unit',
    });
  });
});

describe('pageHistory', () => {
  it('when the export reads a history in pages, then oldest first, each page naming the next, and the short last page naming none', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    await history(tenantId, 5);

    // Act
    const pages = [];
    let after: { occurred_at: string; record_id: string } | null = null;
    do {
      const result = await pageHistory({ tenant_id: tenantId, namespace_refs: null, after, limit: 2 });
      pages.push(result.data.map((e) => e.latency_ms));
      after = result.next;
    } while (after);

    // Assert
    expect(pages).toEqual([[0, 1], [2, 3], [4]]);
  });

  it('when namespaces are selected, then only their records are in the history', async () => {
    // Arrange
    const tenantId = uniqueTenant();
    await history(tenantId, 4, (i) => ({ namespace_ref: i % 2 ? 'ns-odd' : 'ns-even' }));

    // Act
    const result = await pageHistory({
      tenant_id: tenantId,
      namespace_refs: ['ns-odd'],
      after: null,
      limit: 10,
    });

    // Assert
    expect(result).toMatchObject({ next: null });
    expect(result.data.map((e) => e.latency_ms)).toEqual([1, 3]);
  });
});
