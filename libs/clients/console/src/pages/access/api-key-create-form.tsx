import type { BodyOf, ResponseOf } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.js';
import { FormButtons } from '../../components/form-buttons.js';
import { useAction } from '../../hooks/use-action.js';
import { useSession } from '../../session/session-context.js';
import { KEY_PERMISSIONS, type KeyPermission } from './access-names.js';
import { PermissionCheckboxes } from './permission-checkboxes.js';
import {
  DEFAULT_STORAGE,
  NO_STORAGE,
  type StorageConnection,
  StorageConnectionSelect,
} from './storage-connection-select.js';

/** Creates an API key acting for the signed-in user; the parent shows the secret once. */
export function ApiKeyCreateForm({
  connections,
  onCreated,
  onCancel,
}: {
  connections: readonly StorageConnection[];
  onCreated: (created: ResponseOf<'createApiKey'>) => void;
  onCancel: () => void;
}) {
  const { client, can } = useSession();
  const grantable = new Set(KEY_PERMISSIONS.filter((p) => can(p)));
  const [name, setName] = useState('');
  const [permissions, setPermissions] = useState<KeyPermission[]>(() =>
    KEY_PERMISSIONS.filter((p) => can(p)),
  );
  const [storage, setStorage] = useState(DEFAULT_STORAGE);
  const action = useAction();
  const ids = { name: useId(), storage: useId() };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body: BodyOf<'createApiKey'> = { name: name.trim(), permissions };
    // Omitted means the tenant's default connection; null means none at all.
    if (storage === NO_STORAGE) body.storage_connection_id = null;
    else if (storage !== DEFAULT_STORAGE) body.storage_connection_id = storage;
    await action.run(async () => onCreated(await client.control.apiKeys.create(body)));
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby={`${ids.name}-title`}>
      <h2 id={`${ids.name}-title`}>Create an API key</h2>
      <label htmlFor={ids.name}>Name</label>
      <input id={ids.name} required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
      <PermissionCheckboxes
        legend="Permissions"
        grantable={grantable}
        value={permissions}
        onChange={setPermissions}
      />
      <label htmlFor={ids.storage}>Storage connection</label>
      <StorageConnectionSelect
        id={ids.storage}
        connections={connections}
        value={storage}
        onChange={setStorage}
        withDefault
      />
      <p className="hint">The key acts for you: your consent applies to what it writes.</p>
      <ErrorNotice error={action.error} />
      <FormButtons
        text="Create key"
        busyText="Creating…"
        busy={action.busy}
        disabled={!name.trim() || permissions.length === 0}
        onCancel={onCancel}
      />
    </form>
  );
}
