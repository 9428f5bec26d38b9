import type { RequestEvent } from '@text-memory/sdk';
import { useId, useMemo, useRef, useState } from 'react';
import { DataTable, numberColumn } from '../components/data-table.js';
import { DateTime } from '../components/date-time.js';
import { ErrorNotice } from '../components/error-notice.js';
import { Page } from '../components/page.js';
import { Pager } from '../components/pager.js';
import { useLoad } from '../hooks/use-load.js';
import { EventDetails } from '../insight/event-details.js';
import {
  type EventFilter,
  EventFilters,
  filterQuery,
  isFiltered,
  NO_FILTER,
  operationOf,
} from '../insight/event-filters.js';
import { formatCount, formatMs } from '../insight/format.js';
import { useSession } from '../session/session-context.js';

const PAGE_SIZES = [25, 50, 100, 200];

/**
 * The tenant's redacted request history, newest first (GET /infrastructure/events), filtered on the
 * server. Pages go forward by the route's cursor (keyset: requests arriving meanwhile neither repeat
 * nor skip a row) and back through the cursors already followed; "Newest" and a change of filters
 * start again from the top.
 */
export function EventsPage() {
  const { client } = useSession();
  const [limit, setLimit] = useState(50);
  // The cursor of each page followed so far; the last is the page shown (undefined: the newest).
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [round, setRound] = useState(0);
  const [filter, setFilter] = useState<EventFilter>(NO_FILTER);
  const [selected, setSelected] = useState<RequestEvent>();
  const sizeId = useId();
  const cursor = cursors[cursors.length - 1];
  const query = useMemo(() => filterQuery(filter), [filter]);
  const page = useLoad(
    // The filters go with every page: a cursor names a place in the history, not a selection.
    (signal) =>
      client.infrastructure.eventsPage(cursor ? { limit, cursor, ...query } : { limit, ...query }, {
        signal,
      }),
    [client, limit, cursor, round, query],
  );
  // Operations seen on any page so far, suggested by the operation filter.
  const seen = useRef(new Set<string>());
  for (const event of page.data?.data ?? []) if (event.operation) seen.current.add(event.operation);

  const go = (next: Array<string | undefined>) => {
    setCursors(next);
    setSelected(undefined);
  };
  const newest = () => {
    go([undefined]);
    setRound((n) => n + 1);
  };
  const applyFilter = (next: EventFilter) => {
    setFilter(next);
    go([undefined]);
  };
  const shown = page.data?.data ?? [];
  const filtered = isFiltered(filter);
  const paging = page.data?.paging;
  const nextCursor = paging?.next_cursor;
  const pageNumber = cursors.length;

  return (
    <Page
      title="Events"
      summary="Every request of your tenant, answered or refused, as a redacted record: no text, cue, namespace or key."
      actions={
        <button type="button" className="button-secondary" onClick={newest}>
          Newest
        </button>
      }
    >
      <ErrorNotice error={page.error} />
      <EventFilters applied={filter} operations={[...seen.current].sort()} onApply={applyFilter} />
      <p aria-live="polite">
        {page.loading
          ? 'Loading…'
          : paging &&
            `Page ${pageNumber}: ${formatCount(paging.returned)} ${filtered ? 'matching ' : ''}rows, ${formatCount(paging.total)} in the history.`}
      </p>
      <DataTable
        caption={<>Request history, page {pageNumber}</>}
        columns={[
          'Time',
          'Operation',
          numberColumn('Status'),
          'Outcome',
          numberColumn('Latency'),
          { label: <span className="visually-hidden">Details</span> },
        ]}
      >
        {shown.map((event) => {
          const open =
            selected?.request_id === event.request_id && selected.occurred_at === event.occurred_at;
          return (
            <tr key={`${event.request_id}-${event.occurred_at}`} className={open ? 'selected' : undefined}>
              <td>
                <DateTime value={event.occurred_at} />
              </td>
              <th scope="row">
                <code>{operationOf(event)}</code>
                {event.error_code && <span className="hint"> {event.error_code}</span>}
              </th>
              <td className="number">{event.status}</td>
              <td>
                <span className={`badge badge-${event.outcome}`}>{event.outcome}</span>
              </td>
              <td className="number">{formatMs(event.latency_ms)}</td>
              <td>
                <button
                  type="button"
                  className="button-link"
                  aria-expanded={open}
                  onClick={() => setSelected(open ? undefined : event)}
                >
                  Details<span className="visually-hidden"> of {event.request_id}</span>
                </button>
              </td>
            </tr>
          );
        })}
      </DataTable>
      {!page.loading && paging?.total === 0 && <p>No request recorded yet.</p>}
      {!page.loading && filtered && paging && paging.total > 0 && shown.length === 0 && (
        <p>No request in the history matches the filters.</p>
      )}
      {selected && <EventDetails event={selected} onClose={() => setSelected(undefined)} />}
      <Pager
        label="Pages of the history"
        busy={page.loading}
        onPrevious={cursors.length < 2 ? undefined : () => go(cursors.slice(0, -1))}
        onNext={nextCursor ? () => go([...cursors, nextCursor]) : undefined}
      >
        <label htmlFor={sizeId}>Rows per page</label>
        <select
          id={sizeId}
          value={limit}
          onChange={(e) => {
            setLimit(Number(e.target.value));
            go([undefined]);
          }}
        >
          {PAGE_SIZES.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
      </Pager>
    </Page>
  );
}
