import type { WebhookEndpoint, WebhookEndpointChange } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.js';
import { useAction } from '../../hooks/use-action.js';
import { useSession } from '../../session/session-context.js';
import { type WebhookEndpointDraft, WebhookEndpointFields } from './webhook-endpoint-fields.js';

type Endpoint = Omit<WebhookEndpoint, 'contract_version'>;

/** Change an endpoint's URL, events, description or text opt-in, and enable or disable it. */
export function WebhookEditForm({
  endpoint,
  onChanged,
  onClose,
}: {
  endpoint: Endpoint;
  onChanged: () => void;
  onClose: () => void;
}) {
  const { client } = useSession();
  const [draft, setDraft] = useState<WebhookEndpointDraft>({
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    includeText: endpoint.include_text,
  });
  const [enabled, setEnabled] = useState(endpoint.enabled);
  const [saved, setSaved] = useState('');
  const action = useAction();
  const title = useId();

  const save = async (event: FormEvent) => {
    event.preventDefault();
    // Only what changed: a PATCH of the same values would still move updated_at.
    const change: WebhookEndpointChange = {};
    if (draft.url.trim() !== endpoint.url) change.url = draft.url.trim();
    if (draft.events.join() !== endpoint.events.join()) change.events = draft.events;
    if (draft.description.trim() !== endpoint.description) change.description = draft.description.trim();
    if (draft.includeText !== endpoint.include_text) change.include_text = draft.includeText;
    if (enabled !== endpoint.enabled) change.enabled = enabled;
    if (Object.keys(change).length === 0) return setSaved('Nothing to save.');
    if (await action.run(() => client.control.webhooks.update(endpoint.id, change))) {
      setSaved('Saved.');
      onChanged();
    }
  };

  return (
    <section className="card" aria-labelledby={title}>
      <h2 id={title}>Edit endpoint {endpoint.url}</h2>
      {endpoint.disabled_reason && (
        <p className="notice notice-error">
          <strong>Disabled by the service:</strong> {endpoint.disabled_reason}. Enable it once the receiver
          answers again; deliveries waiting for it are then sent.
        </p>
      )}
      <form className="stack" onSubmit={save}>
        <WebhookEndpointFields value={draft} onChange={setDraft} />
        <label>
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled
          (disabled: new events skip it, waiting deliveries wait)
        </label>
        <ErrorNotice error={action.error} />
        <div className="row">
          <button type="submit" disabled={action.busy || !draft.url.trim() || draft.events.length === 0}>
            {action.busy ? 'Saving…' : 'Save endpoint'}
          </button>
          <button type="button" className="button-secondary" onClick={onClose}>
            Close
          </button>
        </div>
      </form>
      <p aria-live="polite" className="hint">
        {saved}
      </p>
    </section>
  );
}
