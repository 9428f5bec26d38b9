import type { BodyOf } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.js';
import { FormButtons } from '../../components/form-buttons.js';
import { useAction } from '../../hooks/use-action.js';
import { useSession } from '../../session/session-context.js';
import { CustomerStorageFields, EMPTY_SETTINGS } from './customer-storage-fields.js';

type Kind = BodyOf<'createStorageConnection'>['kind'];

/** Adds a managed connection, or a customer-owned one with its settings and write-only secret. */
export function StorageConnectionCreateForm({
  onCreated,
  onCancel,
}: {
  onCreated: (name: string) => void;
  onCancel: () => void;
}) {
  const { client } = useSession();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('managed');
  const [settings, setSettings] = useState(EMPTY_SETTINGS);
  const [secret, setSecret] = useState('');
  const action = useAction();
  const id = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body: BodyOf<'createStorageConnection'> =
      kind === 'managed'
        ? { kind, name: name.trim() }
        : { kind, name: name.trim(), settings: { ...settings, host: settings.host.trim() }, secret };
    if (await action.run(() => client.control.storageConnections.create(body))) {
      setSecret('');
      onCreated(name.trim());
    }
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Add a storage connection</h2>
      <label htmlFor={`${id}-name`}>Name</label>
      <input
        id={`${id}-name`}
        required
        maxLength={100}
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <fieldset>
        <legend>Kind</legend>
        <label>
          <input
            type="radio"
            name={`${id}-kind`}
            checked={kind === 'managed'}
            onChange={() => setKind('managed')}
          />{' '}
          Managed (memory requests run on it)
        </label>
        <label>
          <input
            type="radio"
            name={`${id}-kind`}
            checked={kind === 'customer_owned'}
            onChange={() => setKind('customer_owned')}
          />{' '}
          Customer-owned (settings stored, control plane only)
        </label>
      </fieldset>
      {kind === 'customer_owned' && (
        <>
          <CustomerStorageFields value={settings} onChange={setSettings} />
          <label htmlFor={`${id}-secret`}>Secret (password)</label>
          <input
            id={`${id}-secret`}
            type="password"
            required
            maxLength={4096}
            autoComplete="off"
            value={secret}
            onChange={(e) => setSecret(e.target.value)}
          />
          <p className="hint">
            Encrypted at rest and never shown back: the list says only "secret configured".
          </p>
        </>
      )}
      <ErrorNotice error={action.error} />
      <FormButtons text="Add connection" busyText="Adding…" busy={action.busy} onCancel={onCancel} />
    </form>
  );
}
