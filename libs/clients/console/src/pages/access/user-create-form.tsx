import { type FormEvent, useId, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.js';
import { FormButtons } from '../../components/form-buttons.js';
import { useAction } from '../../hooks/use-action.js';
import { useSession } from '../../session/session-context.js';
import type { Role } from './access-names.js';

/** Adds a user to the tenant with an initial password, to be changed on the account page. */
export function UserCreateForm({
  roles,
  onCreated,
  onCancel,
}: {
  /** The roles the signed-in user may give. */
  roles: Role[];
  onCreated: (email: string) => void;
  onCancel: () => void;
}) {
  const { client } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const action = useAction();
  const ids = { title: useId(), email: useId(), password: useId(), role: useId() };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const created = await action.run(() =>
      client.control.users.create({ email: email.trim(), password, role }),
    );
    if (created) onCreated(email.trim());
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby={ids.title}>
      <h2 id={ids.title}>Add a user</h2>
      <label htmlFor={ids.email}>Email</label>
      <input
        id={ids.email}
        type="email"
        required
        maxLength={254}
        autoComplete="off"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
      />
      <label htmlFor={ids.password}>Initial password</label>
      <input
        id={ids.password}
        type="password"
        required
        minLength={12}
        maxLength={256}
        autoComplete="new-password"
        aria-describedby={`${ids.password}-hint`}
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <p className="hint" id={`${ids.password}-hint`}>
        12 to 256 characters, not a common password or one made from the email. Give it to the user privately;
        they change it on their account page.
      </p>
      <label htmlFor={ids.role}>Role</label>
      <select id={ids.role} value={role} onChange={(e) => setRole(e.target.value as Role)}>
        {roles.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
      <ErrorNotice error={action.error} />
      <FormButtons text="Add user" busyText="Adding…" busy={action.busy} onCancel={onCancel} />
    </form>
  );
}
