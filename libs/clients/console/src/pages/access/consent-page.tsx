import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable } from '../../components/data-table.js';
import { DateTime } from '../../components/date-time.js';
import { ErrorNotice } from '../../components/error-notice.js';
import { Page } from '../../components/page.js';
import { useAction } from '../../hooks/use-action.js';
import { useLoad } from '../../hooks/use-load.js';
import { useSession } from '../../session/session-context.js';

const MEANING = {
  granted: 'Writes through your API keys are retained as private memory.',
  revoked:
    'Writes through your API keys are answered but not retained. What was retained stays until deleted.',
  missing: 'Not set yet: writes through your API keys are not retained until you grant it.',
} as const;

/** The signed-in user's private-memory consent, its changes, and the audit trail of them. */
export function ConsentPage() {
  const { client, account, can, refreshAccount } = useSession();
  const consent = useLoad((signal) => client.control.consent.get({ signal }), [client]);
  const events = useLoad((signal) => client.control.consent.events({ signal }), [client]);
  // Actors by email where the role may list users; otherwise their ids.
  const users = useLoad(
    (signal) =>
      can('users:read')
        ? client.control.users.list({ signal })
        : Promise.resolve({ contract_version: 'v1' as const, data: [] }),
    [client],
  );
  const action = useAction();
  const actor = (id: string | null) =>
    id === null
      ? 'the system'
      : id === account.user.id
        ? 'you'
        : (users.data?.data.find((u) => u.id === id)?.email ?? id);

  const change = (to: 'grant' | 'revoke') =>
    action.run(async () => {
      await (to === 'grant' ? client.control.consent.grant() : client.control.consent.revoke());
      consent.reload();
      events.reload();
      await refreshAccount();
    });
  const state = consent.data?.state;

  return (
    <Page title="Consent" summary="Whether what you write through your API keys is kept as private memory.">
      <ErrorNotice error={consent.error ?? events.error ?? users.error ?? action.error} />
      <section className="card" aria-labelledby="consent-state">
        <h2 id="consent-state">Private memory</h2>
        {consent.loading && !consent.data && <p className="loading">Loading…</p>}
        {state && (
          <div aria-live="polite">
            <p>
              Consent: <span className={`badge badge-${state}`}>{state}</span>
              {consent.data?.updated_at && (
                <>
                  {' '}
                  since <DateTime value={consent.data.updated_at} />
                </>
              )}
            </p>
            <p>{MEANING[state]}</p>
          </div>
        )}
        <div className="row">
          {state && state !== 'granted' && (
            <button type="button" disabled={action.busy} onClick={() => void change('grant')}>
              Grant consent
            </button>
          )}
          {state === 'granted' && (
            <ConfirmButton
              label="Revoke consent"
              question="Revoke? Later writes will not be retained."
              confirmLabel="Revoke"
              onConfirm={async () => void (await change('revoke'))}
            />
          )}
        </div>
      </section>
      <section className="card" aria-labelledby="consent-trail">
        <h2 id="consent-trail">Audit trail</h2>
        {events.data && events.data.data.length === 0 && <p>No changes yet.</p>}
        {events.data && events.data.data.length > 0 && (
          <DataTable caption="Consent changes, newest first" columns={['Time', 'State', 'By', 'Request id']}>
            {events.data.data.map((event) => (
              <tr key={`${event.occurred_at}:${event.state}:${event.request_id}`}>
                <th scope="row">
                  <DateTime value={event.occurred_at} />
                </th>
                <td>
                  <span className={`badge badge-${event.state}`}>{event.state}</span>
                </td>
                <td>{actor(event.actor_user_id)}</td>
                <td>{event.request_id ? <code>{event.request_id}</code> : '—'}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </Page>
  );
}
