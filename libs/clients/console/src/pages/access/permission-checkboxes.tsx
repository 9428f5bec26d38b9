import { KEY_PERMISSION_LABELS, KEY_PERMISSIONS, type KeyPermission } from './access-names.js';

/**
 * The permissions of an API key. Those the signed-in user's role cannot grant are shown but disabled:
 * the server refuses a key beyond its creator's role (403 naming the permission).
 */
export function PermissionCheckboxes({
  legend,
  grantable,
  value,
  onChange,
}: {
  legend: string;
  grantable: ReadonlySet<string>;
  value: readonly KeyPermission[];
  onChange: (next: KeyPermission[]) => void;
}) {
  const toggle = (permission: KeyPermission, on: boolean) =>
    onChange(KEY_PERMISSIONS.filter((p) => (p === permission ? on : value.includes(p))));
  return (
    <fieldset className="checkboxes">
      <legend>{legend}</legend>
      {KEY_PERMISSIONS.map((permission) => (
        <label key={permission}>
          <input
            type="checkbox"
            checked={value.includes(permission)}
            disabled={!grantable.has(permission) && !value.includes(permission)}
            onChange={(e) => toggle(permission, e.target.checked)}
          />{' '}
          <code>{permission}</code> ({KEY_PERMISSION_LABELS[permission]})
          {!grantable.has(permission) && <span className="hint"> — your role cannot grant this</span>}
        </label>
      ))}
      {value.length === 0 && <p className="hint">Choose at least one.</p>}
    </fieldset>
  );
}
