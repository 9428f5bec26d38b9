import { DateTime } from '../../components/date-time.js';
import { Page } from '../../components/page.js';
import { useSession } from '../../session/session-context.js';
import { PasswordChangeForm } from './password-change-form.js';

/** Who is signed in, with what, until when; and a new password. */
export function AccountPage() {
  const { account } = useSession();
  return (
    <Page title="Account" summary="Who you are signed in as, and your password.">
      <section className="card" aria-labelledby="account-who">
        <h2 id="account-who">Signed in</h2>
        <dl className="facts">
          <dt>Tenant</dt>
          <dd>
            {account.tenant.name} <span className="hint">({account.tenant.id})</span>
          </dd>
          <dt>User</dt>
          <dd>
            {account.user.email ?? '(no email)'} <span className="hint">({account.user.id})</span>
          </dd>
          <dt>Role</dt>
          <dd>{account.user.role}</dd>
          <dt>Private-memory consent</dt>
          <dd>
            <span className={`badge badge-${account.consent.state}`}>{account.consent.state}</span>
          </dd>
          <dt>Session expires</dt>
          <dd>
            <DateTime value={account.session.expires_at} />
          </dd>
          <dt>Your role allows</dt>
          <dd>
            <ul className="tags">
              {account.permissions.map((permission) => (
                <li key={permission}>
                  <code className="tag">{permission}</code>
                </li>
              ))}
            </ul>
          </dd>
        </dl>
      </section>
      <PasswordChangeForm />
    </Page>
  );
}
