import { useState } from 'react';
import { Link } from 'react-router';
import { ConfirmButton } from '../components/confirm-button.js';
import { DataTable } from '../components/data-table.js';
import { DateTime } from '../components/date-time.js';
import { ErrorNotice } from '../components/error-notice.js';
import { Page } from '../components/page.js';
import { SecretShownOnce } from '../components/secret-shown-once.js';
import { useAction } from '../hooks/use-action.js';
import { useLoad } from '../hooks/use-load.js';
import { useSession } from '../session/session-context.js';
import { WebhookCreateForm } from './webhooks/webhook-create-form.js';
import { WebhookEditForm } from './webhooks/webhook-edit-form.js';

const SECRET_KEPT = 'The service keeps it encrypted, only to sign deliveries, and never shows it again.';
const SECRET_USAGE =
  'Your receiver verifies each delivery with it, e.g. new Webhook(secret).verify(body, headers) with the standardwebhooks library.';

/**
 * The tenant's webhook endpoints (owner and admin: the page is listed for `webhooks:manage`):
 * add one (its signing secret shown once), edit, enable or disable, rotate the secret, delete, and a
 * link to each one's delivery log.
 */
export function WebhooksPage() {
  const { client } = useSession();
  const endpoints = useLoad((signal) => client.control.webhooks.list({ signal }), [client]);
  const action = useAction();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<string>();
  const [secret, setSecret] = useState<{ title: string; value: string; announcement: string }>();
  const [said, setSaid] = useState('');

  const rotate = (id: string, url: string) =>
    action.run(async () => {
      const rotated = await client.control.webhooks.rotateSecret(id);
      setSecret({
        title: `New signing secret for ${url}`,
        value: rotated.secret,
        announcement: 'Secret rotated: the previous one also signs for 24 hours',
      });
    });
  const remove = (id: string, url: string) =>
    action.run(async () => {
      await client.control.webhooks.delete(id);
      if (editing === id) setEditing(undefined);
      setSaid(`Deleted the endpoint ${url} and its delivery log.`);
      endpoints.reload();
    });
  const edited = endpoints.data?.data.find((e) => e.id === editing);

  return (
    <Page
      title="Webhooks"
      summary="Endpoints the service POSTs your tenant's events to, signed as Standard Webhooks. A delivery is retried for about a day; after its last attempt fails, the endpoint is disabled with the reason."
      actions={
        !creating && (
          <button type="button" onClick={() => setCreating(true)}>
            Add endpoint
          </button>
        )
      }
    >
      {/* Only the news is announced: the secret itself is read from the panel, which takes the focus. */}
      <p aria-live="polite" className="visually-hidden">
        {secret?.announcement}
      </p>
      {secret && (
        <SecretShownOnce
          title={secret.title}
          secret={secret.value}
          kept={SECRET_KEPT}
          usage={SECRET_USAGE}
          onDismiss={() => setSecret(undefined)}
        />
      )}
      {creating && (
        <WebhookCreateForm
          onCancel={() => setCreating(false)}
          onCreated={(created) => {
            setCreating(false);
            setSecret({
              title: `Signing secret for ${created.url}`,
              value: created.secret,
              announcement: 'Endpoint added',
            });
            endpoints.reload();
          }}
        />
      )}
      {edited && (
        <WebhookEditForm
          key={edited.id}
          endpoint={edited}
          onChanged={endpoints.reload}
          onClose={() => setEditing(undefined)}
        />
      )}
      <p aria-live="polite" className="hint">
        {said}
      </p>
      <ErrorNotice error={endpoints.error ?? action.error} />
      {endpoints.loading && !endpoints.data && <p className="loading">Loading endpoints…</p>}
      {endpoints.data && (
        <DataTable
          caption="Webhook endpoints"
          columns={['Endpoint', 'Events', 'Status', 'Created', 'Actions']}
          card
          empty={endpoints.data.data.length === 0 && 'No endpoints yet.'}
        >
          {endpoints.data.data.map((endpoint) => (
            <tr key={endpoint.id}>
              <th scope="row" className="breakable">
                <code>{endpoint.url}</code>
                {endpoint.description && <div className="hint">{endpoint.description}</div>}
                {endpoint.include_text && <div className="hint">with memory text</div>}
              </th>
              <td>
                {endpoint.events.map((type) => (
                  <code key={type} className="tag">
                    {type}
                  </code>
                ))}
              </td>
              <td className="breakable">
                <span className={`badge badge-${endpoint.enabled ? 'enabled' : 'disabled'}`}>
                  {endpoint.enabled ? 'enabled' : 'disabled'}
                </span>
                {endpoint.disabled_reason && <div className="hint">{endpoint.disabled_reason}</div>}
              </td>
              <td>
                <DateTime value={endpoint.created_at} />
              </td>
              <td>
                <div className="row">
                  <Link to={`/webhooks/${endpoint.id}`} aria-label={`Deliveries of ${endpoint.url}`}>
                    Deliveries
                  </Link>
                  <button
                    type="button"
                    className="button-secondary"
                    aria-label={`Edit ${endpoint.url}`}
                    onClick={() => setEditing(endpoint.id)}
                  >
                    Edit
                  </button>
                  <ConfirmButton
                    label="Rotate secret"
                    name={`Rotate the secret of ${endpoint.url}`}
                    question="Rotate its signing secret? The current one signs for 24 more hours only."
                    confirmLabel="Rotate"
                    onConfirm={async () => void (await rotate(endpoint.id, endpoint.url))}
                  />
                  <ConfirmButton
                    label="Delete"
                    name={`Delete ${endpoint.url}`}
                    question="Delete this endpoint and its delivery log? This cannot be undone."
                    onConfirm={async () => void (await remove(endpoint.id, endpoint.url))}
                  />
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Page>
  );
}
