import type { Schemas } from '@text-memory/sdk';
import { useId, useState } from 'react';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DateTime } from '../../components/date-time.js';
import type { Role } from './access-names.js';

type User = Schemas['User'];

/** One user; with `users:manage` (and not oneself), a role to choose and disable/enable. */
export function UserRow({
  user,
  isYou,
  roles,
  manage,
  withActions,
  onChange,
}: {
  user: User;
  isYou: boolean;
  /** The roles the signed-in user may give. */
  roles: Role[];
  /** This user's role and status may be changed here. */
  manage: boolean;
  /** The table has an Actions column (the signed-in user holds users:manage). */
  withActions: boolean;
  onChange: (change: { role?: Role; status?: User['status'] }) => Promise<unknown>;
}) {
  const [role, setRole] = useState<Role>(user.role);
  const roleId = useId();
  const email = user.email ?? '(no email)';
  return (
    <tr>
      <th scope="row">
        {email}
        {isYou && <span className="hint"> (you)</span>}
      </th>
      <td>
        {manage ? (
          <div className="row">
            <label htmlFor={roleId} className="visually-hidden">
              Role of {email}
            </label>
            <select id={roleId} value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {roles.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            {role !== user.role && (
              <button
                type="button"
                aria-label={`Save role of ${email}`}
                onClick={() => void onChange({ role })}
              >
                Save role
              </button>
            )}
          </div>
        ) : (
          user.role
        )}
      </td>
      <td>
        <span className={`badge badge-${user.status}`}>{user.status}</span>
      </td>
      <td>
        <DateTime value={user.created_at} />
      </td>
      {withActions && (
        <td>
          {!manage ? null : user.status === 'active' ? (
            <ConfirmButton
              label="Disable"
              name={`Disable ${email}`}
              question={`Disable ${email}? Their sessions end and their keys stop working.`}
              onConfirm={async () => void (await onChange({ status: 'disabled' }))}
            />
          ) : (
            <button
              type="button"
              className="button-secondary"
              aria-label={`Enable ${email}`}
              onClick={() => void onChange({ status: 'active' })}
            >
              Enable
            </button>
          )}
        </td>
      )}
    </tr>
  );
}
