import type { Schemas } from '@text-memory/sdk';
import { useId } from 'react';

export type CustomerStorageSettings = Schemas['CustomerStorageSettings'];
type SslMode = NonNullable<CustomerStorageSettings['ssl_mode']>;

const SSL_MODES: Record<SslMode, string> = {
  'verify-full': 'verify-full (recommended)',
  require: 'require (encrypted, certificate not checked)',
  disable: 'disable (plain text)',
};

export const EMPTY_SETTINGS: CustomerStorageSettings = {
  engine: 'postgresql',
  host: '',
  port: 5432,
  database: '',
  username: '',
  ssl_mode: 'verify-full',
};

/** The settings of a customer-owned PostgreSQL connection: validated and stored, never dialled. */
export function CustomerStorageFields({
  value,
  onChange,
}: {
  value: CustomerStorageSettings;
  onChange: (next: CustomerStorageSettings) => void;
}) {
  const id = useId();
  const set = (change: Partial<CustomerStorageSettings>) => onChange({ ...value, ...change });
  return (
    <fieldset className="stack-fields">
      <legend>PostgreSQL settings</legend>
      <label htmlFor={`${id}-engine`}>Engine</label>
      <select id={`${id}-engine`} value={value.engine} disabled>
        <option value="postgresql">PostgreSQL</option>
      </select>
      <label htmlFor={`${id}-host`}>Host</label>
      <input
        id={`${id}-host`}
        required
        maxLength={253}
        value={value.host}
        onChange={(e) => set({ host: e.target.value })}
      />
      <label htmlFor={`${id}-port`}>Port</label>
      <input
        id={`${id}-port`}
        type="number"
        required
        min={1}
        max={65535}
        value={value.port ?? 5432}
        onChange={(e) => set({ port: e.target.valueAsNumber })}
      />
      <label htmlFor={`${id}-database`}>Database</label>
      <input
        id={`${id}-database`}
        required
        maxLength={63}
        value={value.database}
        onChange={(e) => set({ database: e.target.value })}
      />
      <label htmlFor={`${id}-username`}>Username</label>
      <input
        id={`${id}-username`}
        required
        maxLength={63}
        autoComplete="off"
        value={value.username}
        onChange={(e) => set({ username: e.target.value })}
      />
      <label htmlFor={`${id}-ssl`}>SSL mode</label>
      <select
        id={`${id}-ssl`}
        value={value.ssl_mode ?? 'verify-full'}
        onChange={(e) => set({ ssl_mode: e.target.value as SslMode })}
      >
        {(Object.keys(SSL_MODES) as SslMode[]).map((mode) => (
          <option key={mode} value={mode}>
            {SSL_MODES[mode]}
          </option>
        ))}
      </select>
    </fieldset>
  );
}

/** Reads stored settings back into the form (the API's `settings` is an open object). */
export function settingsOf(settings: Record<string, unknown>): CustomerStorageSettings {
  const text = (name: string) => (typeof settings[name] === 'string' ? (settings[name] as string) : '');
  const ssl = text('ssl_mode');
  return {
    engine: 'postgresql',
    host: text('host'),
    port: typeof settings.port === 'number' ? settings.port : 5432,
    database: text('database'),
    username: text('username'),
    ssl_mode: ssl in SSL_MODES ? (ssl as SslMode) : 'verify-full',
  };
}
