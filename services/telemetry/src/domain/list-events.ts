import {
  type EventsList,
  type EventsListMessage,
  encodeEventsCursor,
  type HistoryPage,
  type HistoryPageMessage,
  type RequestEvent,
} from '@tm/contracts';
import { getSql } from '../data-access/prisma-client.js';
import { historyPage, listEvents } from '../data-access/request-record-repository.js';

/** A stored row as an event: no record id, and item counts only where there are some (batch writes). */
function eventOf(row: RequestEvent & { record_id: string }): RequestEvent {
  const {
    record_id: _,
    item_counts,
    ...event
  } = row as RequestEvent & {
    record_id: string;
    item_counts: RequestEvent['item_counts'] | null;
  };
  return item_counts ? { ...event, item_counts } : event;
}

/**
 * One page of a tenant's history, newest first, with what a client needs to know there is more: by
 * offset (as documented since v1), or by keyset from a cursor, whose cost does not grow with depth.
 * Either way the page carries the cursor of the next one, and pages walk only what the filter matches.
 */
export async function listTenantEvents(m: EventsListMessage): Promise<EventsList> {
  const { rows, total } = await listEvents(getSql(), m.tenant_id, {
    limit: m.limit,
    offset: m.offset,
    before: m.before,
    filter: m.filter,
  });
  const data = rows.slice(0, m.limit);
  // One row past the page says whether there is another, whatever arrived since `total` was read.
  const more = rows.length > m.limit;
  const last = data.at(-1);
  const byCursor = m.before !== null;
  // `total` counts the whole history, not the records a filter matches: a filtered page reads on.
  const filtered = Object.values(m.filter).some((value) => value !== null);
  const hasMore = byCursor || filtered ? more : m.offset + data.length < total;
  return {
    data: data.map(eventOf),
    paging: {
      limit: m.limit,
      offset: m.offset,
      returned: data.length,
      total,
      has_more: hasMore,
      next_offset: !byCursor && hasMore ? m.offset + data.length : null,
      next_cursor:
        more && last
          ? encodeEventsCursor({ occurred_at: last.occurred_at, record_id: last.record_id })
          : null,
    },
  };
}

/** The export's history, oldest first, by keyset: a page and the cursor of the next. */
export async function pageHistory(m: HistoryPageMessage): Promise<HistoryPage> {
  const rows = await historyPage(getSql(), {
    tenantId: m.tenant_id,
    namespaceRefs: m.namespace_refs,
    after: m.after && { occurredAt: m.after.occurred_at, recordId: m.after.record_id },
    limit: m.limit,
  });
  const last = rows.at(-1);
  return {
    data: rows.map(eventOf),
    next:
      rows.length === m.limit && last ? { occurred_at: last.occurred_at, record_id: last.record_id } : null,
  };
}
