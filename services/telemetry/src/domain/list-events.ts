import type { EventsList, EventsListMessage, HistoryPage, HistoryPageMessage } from '@tm/contracts';
import { getSql } from '../data-access/prisma-client.js';
import { historyPage, listEvents } from '../data-access/request-record-repository.js';

/** One page of a tenant's history, newest first, with what a client needs to know there is more. */
export async function listTenantEvents(m: EventsListMessage): Promise<EventsList> {
  const { data, total } = await listEvents(getSql(), m.tenant_id, m.limit, m.offset);
  const hasMore = m.offset + data.length < total;
  return {
    data,
    paging: {
      limit: m.limit,
      offset: m.offset,
      returned: data.length,
      total,
      has_more: hasMore,
      next_offset: hasMore ? m.offset + data.length : null,
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
    data: rows.map(({ record_id: _, ...event }) => event),
    next:
      rows.length === m.limit && last ? { occurred_at: last.occurred_at, record_id: last.record_id } : null,
  };
}
