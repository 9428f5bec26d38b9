import type { BodyOf, Schemas } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { ConfirmButton } from '../../components/confirm-button.js';
import { ErrorNotice } from '../../components/error-notice.js';
import { useAction } from '../../hooks/use-action.js';
import { useSession } from '../../session/session-context.js';
import { KEY_PERMISSIONS, type KeyPermission } from './access-names.js';
import { PermissionCheckboxes } from './permission-checkboxes.js';
import { type StorageConnection, StorageConnectionSelect } from './storage-connection-select.js';

type ApiKey = Schemas['ApiKey'];

/** Rename or re-permission one key, and attach or detach its storage connection. */
export function ApiKeyEditForm({
  apiKey,
  connections,
  onChanged,
  onClose,
}: {
  apiKey: ApiKey;
  connections: readonly StorageConnection[];
  onChanged: () => void;
  onClose: () => void;
}) {
  const { client, can } = useSession();
  const grantable = new Set(KEY_PERMISSIONS.filter((p) => can(p)));
  const [name, setName] = useState(apiKey.name);
  const [permissions, setPermissions] = useState<KeyPermission[]>(apiKey.permissions);
  const active = connections.filter((c) => c.status === 'active');
  const [storage, setStorage] = useState(apiKey.storage_connection_id ?? active[0]?.id ?? '');
  const action = useAction();
  const [saved, setSaved] = useState('');
  const ids = { title: useId(), name: useId(), storage: useId() };

  const done = (message: string) => {
    setSaved(message);
    onChanged();
  };
  const save = async (event: FormEvent) => {
    event.preventDefault();
    const change: BodyOf<'updateApiKey'> = {};
    if (name.trim() !== apiKey.name) change.name = name.trim();
    if (permissions.join() !== apiKey.permissions.join()) change.permissions = permissions;
    if (Object.keys(change).length === 0) return setSaved('Nothing to save.');
    if (await action.run(() => client.control.apiKeys.update(apiKey.id, change))) done('Saved.');
  };
  const attach = async () => {
    if (
      await action.run(() =>
        client.control.apiKeys.attachStorage(apiKey.id, { storage_connection_id: storage }),
      )
    )
      done('Storage connection attached.');
  };
  const detach = async () => {
    if (await action.run(() => client.control.apiKeys.detachStorage(apiKey.id)))
      done('Storage connection detached: memory requests with this key are now refused.');
  };

  return (
    <section className="card" aria-labelledby={ids.title}>
      <h2 id={ids.title}>Edit key {apiKey.name}</h2>
      <form className="stack" onSubmit={save}>
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <PermissionCheckboxes
          legend="Permissions"
          grantable={grantable}
          value={permissions}
          onChange={setPermissions}
        />
        <div className="row">
          <button type="submit" disabled={action.busy || !name.trim() || permissions.length === 0}>
            Save name and permissions
          </button>
        </div>
      </form>
      <h3>Storage connection</h3>
      <div className="row">
        <label htmlFor={ids.storage}>Attach to</label>
        <StorageConnectionSelect
          id={ids.storage}
          connections={connections}
          value={storage}
          onChange={setStorage}
          withDefault={false}
        />
        <button
          type="button"
          disabled={action.busy || !storage || storage === apiKey.storage_connection_id}
          onClick={() => void attach()}
        >
          Attach
        </button>
        {apiKey.storage_connection_id && (
          <ConfirmButton
            label="Detach"
            question="Detach? Memory requests with this key will be refused."
            onConfirm={detach}
          />
        )}
      </div>
      <ErrorNotice error={action.error} />
      <p aria-live="polite" className="hint">
        {saved}
      </p>
      <button type="button" className="button-secondary" onClick={onClose}>
        Close
      </button>
    </section>
  );
}
