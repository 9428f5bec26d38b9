import type { Schemas } from '@text-memory/sdk';
import { useState } from 'react';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable } from '../../components/data-table.js';
import { DateTime } from '../../components/date-time.js';
import { ErrorNotice } from '../../components/error-notice.js';
import { Page } from '../../components/page.js';
import { SecretShownOnce } from '../../components/secret-shown-once.js';
import { useAction } from '../../hooks/use-action.js';
import { useLoad } from '../../hooks/use-load.js';
import { useSession } from '../../session/session-context.js';
import { ApiKeyCreateForm } from './api-key-create-form.js';
import { ApiKeyEditForm } from './api-key-edit-form.js';
import { McpEndpointCard } from './mcp-endpoint-card.js';

type ApiKey = Schemas['ApiKey'];

/** Which keys the list shows; active by default, as revoked ones pile up (each tab's console key). */
type KeyFilter = 'active' | 'revoked' | 'all';
const FILTERS: Array<{ value: KeyFilter; label: string }> = [
  { value: 'active', label: 'Active' },
  { value: 'revoked', label: 'Revoked' },
  { value: 'all', label: 'All' },
];

/** The tenant's API keys (masked), and with `keys:manage`: create, edit, rotate, revoke. */
export function ApiKeysPage() {
  const { client, account, can } = useSession();
  const keys = useLoad((signal) => client.control.apiKeys.list({ signal }), [client]);
  // Names for the ids in the list; a role without these reads shows the ids.
  const users = useLoad(
    (signal) =>
      can('users:read')
        ? client.control.users.list({ signal })
        : Promise.resolve({ contract_version: 'v1' as const, data: [] }),
    [client],
  );
  const storage = useLoad(
    (signal) =>
      can('storage:read')
        ? client.control.storageConnections.list({ signal })
        : Promise.resolve({ contract_version: 'v1' as const, data: [] }),
    [client],
  );
  const action = useAction();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [secret, setSecret] = useState<{ title: string; key: string; announcement: string }>();
  const [filter, setFilter] = useState<KeyFilter>('active');
  // A key revoked (or rotated) here stays in the active list until the page is left, showing the outcome.
  const [revokedHere, setRevokedHere] = useState<ReadonlySet<string>>(new Set());
  const markRevoked = (id: string) => setRevokedHere((ids) => new Set(ids).add(id));

  const connections = storage.data?.data ?? [];
  const emailOf = (id: string) =>
    id === account.user.id ? 'you' : (users.data?.data.find((u) => u.id === id)?.email ?? id);
  const storageName = (id: string | null) =>
    id ? (connections.find((c) => c.id === id)?.name ?? id) : 'none';
  // Developers hold keys:manage for the keys they act for only; owners and admins (who also manage
  // users) for every key. The server decides either way; this only hides buttons that would be refused.
  const mayManage = (key: ApiKey) =>
    can('keys:manage') && key.status === 'active' && (key.user_id === account.user.id || can('users:manage'));

  const rotate = (key: ApiKey) =>
    action.run(async () => {
      const rotated = await client.control.apiKeys.rotate(key.id);
      markRevoked(key.id);
      setSecret({ title: `Rotated key ${rotated.name}`, key: rotated.key, announcement: 'Key rotated' });
      setEditing(undefined);
      keys.reload();
    });
  const revoke = (key: ApiKey) =>
    action.run(async () => {
      await client.control.apiKeys.revoke(key.id);
      markRevoked(key.id);
      setEditing(undefined);
      keys.reload();
    });
  const editedKey = keys.data?.data.find((k) => k.id === editing);
  const all = keys.data?.data ?? [];
  const counts: Record<KeyFilter, number> = {
    active: all.filter((k) => k.status === 'active').length,
    revoked: all.filter((k) => k.status === 'revoked').length,
    all: all.length,
  };
  const shown = all.filter(
    (k) => filter === 'all' || k.status === filter || (filter === 'active' && revokedHere.has(k.id)),
  );

  return (
    <Page
      title="API keys"
      summary="Keys for the data plane. Only a prefix is shown: the secret is given once, when a key is created or rotated."
      actions={
        can('keys:manage') &&
        !creating && (
          <button type="button" onClick={() => setCreating(true)}>
            Create API key
          </button>
        )
      }
    >
      {/* Only the news is announced: the secret itself is read from the panel, which takes the focus. */}
      <p aria-live="polite" className="visually-hidden">
        {secret?.announcement}
      </p>
      {secret && (
        <SecretShownOnce
          title={secret.title}
          secret={secret.key}
          usage="Send it as Authorization: Bearer <key> or X-API-Key."
          onDismiss={() => setSecret(undefined)}
        />
      )}
      {creating && (
        <ApiKeyCreateForm
          connections={connections}
          onCancel={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setSecret({
              title: `New API key ${created.name}`,
              key: created.key,
              announcement: 'Key created',
            });
            keys.reload();
          }}
        />
      )}
      {editedKey && (
        <ApiKeyEditForm
          key={editedKey.id}
          apiKey={editedKey}
          connections={connections}
          onChanged={keys.reload}
          onClose={() => setEditing(undefined)}
        />
      )}
      <ErrorNotice error={keys.error ?? users.error ?? storage.error ?? action.error} />
      {keys.loading && !keys.data && <p className="loading">Loading keys…</p>}
      {keys.data && (
        <fieldset className="row key-filter">
          <legend>Show</legend>
          {FILTERS.map(({ value, label }) => (
            <label key={value}>
              <input
                type="radio"
                name="api-key-filter"
                value={value}
                checked={filter === value}
                onChange={() => setFilter(value)}
              />{' '}
              {label} ({counts[value]})
            </label>
          ))}
        </fieldset>
      )}
      {keys.data && (
        <DataTable
          caption="API keys"
          columns={[
            'Name',
            'Key',
            'User',
            'Permissions',
            'Storage connection',
            'Status',
            'Last used',
            'Created',
            can('keys:manage') && 'Actions',
          ]}
          card
          empty={shown.length === 0 && (all.length === 0 ? 'No API keys yet.' : `No ${filter} API keys.`)}
        >
          {shown.map((key) => (
            <tr key={key.id}>
              <th scope="row">{key.name}</th>
              <td>
                <code>{key.masked_key}</code>
              </td>
              <td className="breakable">{emailOf(key.user_id)}</td>
              <td>
                {key.permissions.map((p) => (
                  <code key={p} className="tag">
                    {p}
                  </code>
                ))}
              </td>
              <td className="breakable">{storageName(key.storage_connection_id)}</td>
              <td>
                <span className={`badge badge-${key.status}`}>{key.status}</span>
                {key.revoked_at && (
                  <div className="hint">
                    <DateTime value={key.revoked_at} />
                  </div>
                )}
              </td>
              <td>
                <DateTime value={key.last_used_at} empty="never" />
              </td>
              <td>
                <DateTime value={key.created_at} />
              </td>
              {can('keys:manage') && (
                <td>
                  {mayManage(key) && (
                    <div className="row">
                      <button
                        type="button"
                        className="button-secondary"
                        aria-label={`Edit ${key.name}`}
                        onClick={() => setEditing(key.id)}
                      >
                        Edit
                      </button>
                      <ConfirmButton
                        label="Rotate"
                        name={`Rotate ${key.name}`}
                        question={`Rotate ${key.name}? The current secret stops working at once.`}
                        onConfirm={async () => void (await rotate(key))}
                      />
                      <ConfirmButton
                        label="Revoke"
                        name={`Revoke ${key.name}`}
                        question={`Revoke ${key.name}? This cannot be undone.`}
                        onConfirm={async () => void (await revoke(key))}
                      />
                    </div>
                  )}
                </td>
              )}
            </tr>
          ))}
        </DataTable>
      )}
      <McpEndpointCard apiKey={secret?.key} />
    </Page>
  );
}
