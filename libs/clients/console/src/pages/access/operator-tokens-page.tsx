import { type FormEvent, useId, useState } from 'react';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable } from '../../components/data-table.js';
import { DateTime } from '../../components/date-time.js';
import { ErrorNotice } from '../../components/error-notice.js';
import { Page } from '../../components/page.js';
import { SecretShownOnce } from '../../components/secret-shown-once.js';
import { useAction } from '../../hooks/use-action.js';
import { useLoad } from '../../hooks/use-load.js';
import { useSession } from '../../session/session-context.js';

/** Operator tokens (privileged diagnostics beside an API key): issue, shown once, revoke. Owners only. */
export function OperatorTokensPage() {
  const { client } = useSession();
  const tokens = useLoad((signal) => client.control.operatorTokens.list({ signal }), [client]);
  const action = useAction();
  const [name, setName] = useState('');
  const [hours, setHours] = useState(24);
  const [secret, setSecret] = useState<{ title: string; token: string }>();
  const id = useId();

  const issue = async (event: FormEvent) => {
    event.preventDefault();
    await action.run(async () => {
      const issued = await client.control.operatorTokens.create({ name: name.trim(), ttl_hours: hours });
      setSecret({ title: `New operator token ${issued.name}`, token: issued.token });
      setName('');
      tokens.reload();
    });
  };

  return (
    <Page
      title="Operator tokens"
      summary="A token adds the operator capability (privileged diagnostics) to an API key's requests; it expires."
    >
      {/* Only the news is announced: the secret itself is read from the panel, which takes the focus. */}
      <p aria-live="polite" className="visually-hidden">
        {secret && 'Token issued'}
      </p>
      {secret && (
        <SecretShownOnce
          title={secret.title}
          secret={secret.token}
          usage="Send it as X-Operator-Token beside an API key."
          onDismiss={() => setSecret(undefined)}
        />
      )}
      <form className="card stack" onSubmit={issue} aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`}>Issue a token</h2>
        <label htmlFor={`${id}-name`}>Name</label>
        <input
          id={`${id}-name`}
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <label htmlFor={`${id}-hours`}>Expires after (hours, 1–720)</label>
        <input
          id={`${id}-hours`}
          type="number"
          required
          min={1}
          max={720}
          step={1}
          value={Number.isNaN(hours) ? '' : hours}
          onChange={(e) => setHours(e.target.valueAsNumber)}
        />
        <div className="row">
          <button type="submit" disabled={action.busy || !name.trim() || !(hours >= 1 && hours <= 720)}>
            {action.busy ? 'Issuing…' : 'Issue token'}
          </button>
        </div>
      </form>
      <ErrorNotice error={tokens.error ?? action.error} />
      {tokens.loading && !tokens.data && <p className="loading">Loading tokens…</p>}
      {tokens.data && (
        <DataTable
          caption="Operator tokens"
          columns={['Name', 'Prefix', 'Status', 'Issued', 'Expires', 'Actions']}
          card
          empty={tokens.data.data.length === 0 && 'No operator tokens.'}
        >
          {tokens.data.data.map((token) => (
            <tr key={token.id}>
              <th scope="row">{token.name}</th>
              <td>
                <code>{token.prefix}…</code>
              </td>
              <td>
                <span className={`badge badge-${token.status}`}>{token.status}</span>
              </td>
              <td>
                <DateTime value={token.created_at} />
              </td>
              <td>
                <DateTime value={token.expires_at} />
              </td>
              <td>
                {token.status === 'active' && (
                  <ConfirmButton
                    label="Revoke"
                    name={`Revoke ${token.name}`}
                    question={`Revoke ${token.name}? It stops working at once.`}
                    onConfirm={async () =>
                      void (await action.run(async () => {
                        await client.control.operatorTokens.revoke(token.id);
                        tokens.reload();
                      }))
                    }
                  />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Page>
  );
}
