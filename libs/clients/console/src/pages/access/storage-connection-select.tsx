import type { Schemas } from '@text-memory/sdk';

export type StorageConnection = Schemas['StorageConnection'];

/** Where a new key stores: the tenant's default, none, or one of its active connections. */
export const DEFAULT_STORAGE = 'default';
export const NO_STORAGE = 'none';

export function StorageConnectionSelect({
  id,
  connections,
  value,
  onChange,
  withDefault,
}: {
  id: string;
  connections: readonly StorageConnection[];
  value: string;
  onChange: (next: string) => void;
  /** Offer "the tenant's default" and "none" (key creation), or only the connections (attaching). */
  withDefault: boolean;
}) {
  return (
    <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
      {withDefault && <option value={DEFAULT_STORAGE}>Default (the oldest active managed connection)</option>}
      {withDefault && <option value={NO_STORAGE}>None (memory requests refused)</option>}
      {connections
        .filter((connection) => connection.status === 'active')
        .map((connection) => (
          <option key={connection.id} value={connection.id}>
            {connection.name} (
            {connection.kind === 'managed' ? 'managed' : 'customer-owned, control plane only'})
          </option>
        ))}
    </select>
  );
}
