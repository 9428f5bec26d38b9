import type { BodyOf } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.js';
import { FormButtons } from '../../components/form-buttons.js';
import { useAction } from '../../hooks/use-action.js';
import { useSession } from '../../session/session-context.js';
import { CustomerStorageFields, settingsOf } from './customer-storage-fields.js';
import type { StorageConnection } from './storage-connection-select.js';

/** Rename a connection; for a customer-owned one, replace its settings or its secret. */
export function StorageConnectionEditForm({
  connection,
  onSaved,
  onClose,
}: {
  connection: StorageConnection;
  onSaved: (message: string) => void;
  onClose: () => void;
}) {
  const { client } = useSession();
  const customer = connection.kind === 'customer_owned';
  const stored = settingsOf(connection.settings);
  const [name, setName] = useState(connection.name);
  const [settings, setSettings] = useState(stored);
  const [secret, setSecret] = useState('');
  const action = useAction();
  const id = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const change: BodyOf<'updateStorageConnection'> = {};
    if (name.trim() !== connection.name) change.name = name.trim();
    if (customer && JSON.stringify(settings) !== JSON.stringify(stored)) change.settings = settings;
    if (customer && secret) change.secret = secret;
    if (Object.keys(change).length === 0) return onClose();
    if (await action.run(() => client.control.storageConnections.update(connection.id, change))) {
      setSecret('');
      onSaved(`Saved ${name.trim()}${change.secret ? ' (new secret configured)' : ''}.`);
    }
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Edit {connection.name}</h2>
      <label htmlFor={`${id}-name`}>Name</label>
      <input
        id={`${id}-name`}
        required
        maxLength={100}
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      {customer && (
        <>
          <CustomerStorageFields value={settings} onChange={setSettings} />
          <label htmlFor={`${id}-secret`}>New secret</label>
          <input
            id={`${id}-secret`}
            type="password"
            maxLength={4096}
            autoComplete="off"
            aria-describedby={`${id}-secret-hint`}
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
          />
          <p className="hint" id={`${id}-secret-hint`}>
            {connection.secret_configured ? 'A secret is configured. ' : 'No secret is configured. '}
            Leave empty to keep it.
          </p>
        </>
      )}
      <ErrorNotice error={action.error} />
      <FormButtons text="Save" busy={action.busy} onCancel={onClose} />
    </form>
  );
}
