import { useState } from 'react';
import { DataTable } from '../../components/data-table.js';
import { ErrorNotice } from '../../components/error-notice.js';
import { Page } from '../../components/page.js';
import { useAction } from '../../hooks/use-action.js';
import { useLoad } from '../../hooks/use-load.js';
import { useSession } from '../../session/session-context.js';
import { mayManageUserOf, ROLES, rolesGivenBy } from './access-names.js';
import { UserCreateForm } from './user-create-form.js';
import { UserRow } from './user-row.js';

/** The tenant's users and their roles; with `users:manage`, add users and change role or status. */
export function UsersPage() {
  const { client, account, can } = useSession();
  const users = useLoad((signal) => client.control.users.list({ signal }), [client]);
  const action = useAction();
  const [adding, setAdding] = useState(false);
  const [said, setSaid] = useState('');
  const manage = can('users:manage');
  const roles = rolesGivenBy(account.user.role);

  return (
    <Page
      title="Users and roles"
      summary="Who can sign in to this tenant, and what their role lets them do."
      actions={
        manage &&
        !adding && (
          <button type="button" onClick={() => setAdding(true)}>
            Add user
          </button>
        )
      }
    >
      {adding && (
        <UserCreateForm
          roles={roles}
          onCancel={() => setAdding(false)}
          onCreated={(email) => {
            setAdding(false);
            setSaid(`Added ${email}.`);
            users.reload();
          }}
        />
      )}
      <p aria-live="polite" className="hint">
        {said}
      </p>
      <ErrorNotice error={users.error ?? action.error} />
      {users.loading && !users.data && <p className="loading">Loading users…</p>}
      {users.data && (
        <DataTable caption="Users" columns={['Email', 'Role', 'Status', 'Added', manage && 'Actions']} card>
          {users.data.data.map((user) => (
            <UserRow
              // Keyed by role too, so the role chooser starts from the saved role after a change.
              key={`${user.id}:${user.role}`}
              user={user}
              isYou={user.id === account.user.id}
              roles={roles}
              // Your own role and status are changed by another owner or admin: disabling yourself
              // would end this session, and a tenant must keep an active owner. An owner's are
              // changed by an owner only.
              manage={manage && user.id !== account.user.id && mayManageUserOf(account.user.role, user.role)}
              withActions={manage}
              onChange={(change) =>
                action.run(async () => {
                  const updated = await client.control.users.update(user.id, change);
                  setSaid(
                    change.role
                      ? `${updated.email} is now ${updated.role}.`
                      : `${updated.email} is ${updated.status}.`,
                  );
                  users.reload();
                })
              }
            />
          ))}
        </DataTable>
      )}
      <section className="card" aria-labelledby="roles-title">
        <h2 id="roles-title">Roles</h2>
        <p>
          Four roles:{' '}
          {ROLES.map((r, i) => (
            <span key={r}>
              {i > 0 && ', '}
              <strong>{r}</strong>
              {r === account.user.role && ' (yours)'}
            </span>
          ))}
          . Which role holds which action is the table in the service's docs/decisions/control-plane.md
          ("Roles"); the API reports only your own, so that is what is listed here.
        </p>
        <h3>Your role ({account.user.role}) allows</h3>
        <ul className="tags">
          {account.permissions.map((permission) => (
            <li key={permission}>
              <code className="tag">{permission}</code>
            </li>
          ))}
        </ul>
        <p className="hint">Everyone manages their own password, sessions and consent.</p>
      </section>
    </Page>
  );
}
