import type { NamespaceSummary } from '@text-memory/sdk';
import { useState } from 'react';
import { DataKeyPicker } from '../components/data-key-picker.js';
import { DataTable, numberColumn } from '../components/data-table.js';
import { DateTime } from '../components/date-time.js';
import { ErrorNotice } from '../components/error-notice.js';
import { Page } from '../components/page.js';
import { Pager } from '../components/pager.js';
import { useLoad } from '../hooks/use-load.js';
import { formatCount } from '../insight/format.js';
import { useSession } from '../session/session-context.js';
import { DeleteNamespace } from './namespaces/delete-namespace.js';
import { ExportButton } from './namespaces/export-button.js';

const PAGE_SIZE = 50;

/**
 * The tenant's namespaces with their record counts (GET /api/v1/infrastructure/namespaces, with the
 * session), each with its export (session, export:read) and its deletion (the data key's memory:delete).
 */
export function NamespacesPage() {
  const { client, can } = useSession();
  // Keyset paging: the cursors of the pages before this one, to go back.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const [deleting, setDeleting] = useState<string>();
  const listing = useLoad(
    (signal) =>
      client.infrastructure.namespaces({ limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) }, { signal }),
    [client, cursor],
  );
  const next = listing.data?.paging.next_cursor;
  const canDelete = can('memory:delete');
  const canExport = can('export:read');
  const hasActions = canDelete || canExport;

  return (
    <Page
      title="Namespaces"
      summary="Records per namespace: export one as a JSON file, or delete it with everything it holds."
      actions={
        <button type="button" className="button-secondary" onClick={listing.reload}>
          Refresh
        </button>
      }
    >
      {canDelete && <DataKeyPicker />}
      {deleting && (
        <DeleteNamespace
          key={deleting}
          namespace={deleting}
          onDone={listing.reload}
          onClose={() => setDeleting(undefined)}
        />
      )}
      <ErrorNotice error={listing.error} />
      {listing.loading && !listing.data && <p className="loading">Loading…</p>}
      {listing.data && (
        <div className="card">
          {listing.data.data.length === 0 ? (
            <p>{cursor ? 'No more namespaces.' : 'No namespace holds records yet.'}</p>
          ) : (
            <DataTable
              caption="Namespaces and their records"
              columns={[
                'Namespace',
                numberColumn('Records'),
                numberColumn('Current'),
                numberColumn('Superseded'),
                'Last retained',
                hasActions && 'Actions',
              ]}
            >
              {listing.data.data.map((row: NamespaceSummary) => (
                <tr key={row.namespace}>
                  <th scope="row">
                    <code>{row.namespace}</code>
                  </th>
                  <td className="number">{formatCount(row.records)}</td>
                  <td className="number">{formatCount(row.current_records)}</td>
                  <td className="number">{formatCount(row.superseded_records)}</td>
                  <td>
                    <DateTime value={row.last_retained_at} />
                  </td>
                  {hasActions && (
                    <td>
                      <div className="row">
                        {canExport && <ExportButton namespace={row.namespace} />}
                        {canDelete && (
                          <button
                            type="button"
                            className="button-danger"
                            aria-label={`Delete ${row.namespace}`}
                            onClick={() => setDeleting(row.namespace)}
                          >
                            Delete
                          </button>
                        )}
                      </div>
                    </td>
                  )}
                </tr>
              ))}
            </DataTable>
          )}
          <Pager
            onPrevious={cursors.length > 0 ? () => setCursors(cursors.slice(0, -1)) : undefined}
            onNext={next ? () => setCursors([...cursors, next]) : undefined}
          />
        </div>
      )}
    </Page>
  );
}
