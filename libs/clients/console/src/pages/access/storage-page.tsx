import { useState } from 'react';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable } from '../../components/data-table.js';
import { DateTime } from '../../components/date-time.js';
import { ErrorNotice } from '../../components/error-notice.js';
import { Page } from '../../components/page.js';
import { useAction } from '../../hooks/use-action.js';
import { useLoad } from '../../hooks/use-load.js';
import { useSession } from '../../session/session-context.js';
import { settingsOf } from './customer-storage-fields.js';
import { StorageConnectionCreateForm } from './storage-connection-create-form.js';
import { StorageConnectionEditForm } from './storage-connection-edit-form.js';
import type { StorageConnection } from './storage-connection-select.js';

/** Where a customer-owned connection points, in one line (the secret is never part of it). */
function describe(connection: StorageConnection): string {
  if (connection.kind === 'managed') return 'run by the service';
  const s = settingsOf(connection.settings);
  return `${s.username}@${s.host}:${s.port}/${s.database} (ssl ${s.ssl_mode})`;
}

/** The tenant's storage connections; with `storage:manage`: add, edit, disable and enable. */
export function StoragePage() {
  const { client, can } = useSession();
  const list = useLoad((signal) => client.control.storageConnections.list({ signal }), [client]);
  const action = useAction();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [said, setSaid] = useState('');
  const manage = can('storage:manage');
  const edited = list.data?.data.find((c) => c.id === editing);

  const setStatus = (connection: StorageConnection, status: StorageConnection['status']) =>
    action.run(async () => {
      await client.control.storageConnections.update(connection.id, { status });
      setSaid(`${connection.name} is ${status}.`);
      list.reload();
    });

  return (
    <Page
      title="Storage connections"
      summary="Where memories are kept. Managed connections serve memory requests; customer-owned ones are stored settings only."
      actions={
        manage &&
        !adding && (
          <button type="button" onClick={() => setAdding(true)}>
            Add connection
          </button>
        )
      }
    >
      {adding && (
        <StorageConnectionCreateForm
          onCancel={() => setAdding(false)}
          onCreated={(name) => {
            setAdding(false);
            setSaid(`Added ${name}.`);
            list.reload();
          }}
        />
      )}
      {edited && (
        <StorageConnectionEditForm
          key={edited.id}
          connection={edited}
          onClose={() => setEditing(undefined)}
          onSaved={(message) => {
            setEditing(undefined);
            setSaid(message);
            list.reload();
          }}
        />
      )}
      <p aria-live="polite" className="hint">
        {said}
      </p>
      <ErrorNotice error={list.error ?? action.error} />
      {list.loading && !list.data && <p className="loading">Loading connections…</p>}
      {list.data && (
        <DataTable
          caption="Storage connections"
          columns={['Name', 'Kind', 'Where', 'Secret', 'Status', 'Updated', manage && 'Actions']}
          card
          empty={list.data.data.length === 0 && 'No storage connections: API keys cannot store memories.'}
        >
          {list.data.data.map((connection) => (
            <tr key={connection.id}>
              <th scope="row">{connection.name}</th>
              <td>
                {connection.kind === 'managed' ? 'managed' : 'customer-owned'}
                <div className="hint">
                  {connection.dispatch === 'memory_requests'
                    ? 'serves memory requests'
                    : 'control plane only'}
                </div>
              </td>
              <td>{describe(connection)}</td>
              <td>
                {connection.kind === 'managed'
                  ? '—'
                  : connection.secret_configured
                    ? 'secret configured'
                    : 'no secret'}
              </td>
              <td>
                <span className={`badge badge-${connection.status}`}>{connection.status}</span>
              </td>
              <td>
                <DateTime value={connection.updated_at} />
              </td>
              {manage && (
                <td>
                  <div className="row">
                    <button
                      type="button"
                      className="button-secondary"
                      aria-label={`Edit ${connection.name}`}
                      onClick={() => setEditing(connection.id)}
                    >
                      Edit
                    </button>
                    {connection.status === 'active' ? (
                      <ConfirmButton
                        label="Disable"
                        name={`Disable ${connection.name}`}
                        question={`Disable ${connection.name}? Keys attached to it are refused memory requests.`}
                        onConfirm={async () => void (await setStatus(connection, 'disabled'))}
                      />
                    ) : (
                      <button
                        type="button"
                        className="button-secondary"
                        aria-label={`Enable ${connection.name}`}
                        onClick={() => void setStatus(connection, 'active')}
                      >
                        Enable
                      </button>
                    )}
                  </div>
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
    </Page>
  );
}
