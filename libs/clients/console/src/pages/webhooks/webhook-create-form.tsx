import type { WebhookEndpointCreated } from '@text-memory/sdk';
import { type FormEvent, useId, useState } from 'react';
import { ErrorNotice } from '../../components/error-notice.js';
import { FormButtons } from '../../components/form-buttons.js';
import { useAction } from '../../hooks/use-action.js';
import { useSession } from '../../session/session-context.js';
import { type WebhookEndpointDraft, WebhookEndpointFields } from './webhook-endpoint-fields.js';

/** Registers an endpoint; the parent shows its signing secret once. */
export function WebhookCreateForm({
  onCreated,
  onCancel,
}: {
  onCreated: (created: WebhookEndpointCreated) => void;
  onCancel: () => void;
}) {
  const { client } = useSession();
  const [draft, setDraft] = useState<WebhookEndpointDraft>({
    url: '',
    events: ['memory.retained'],
    description: '',
    includeText: false,
  });
  const action = useAction();
  const title = useId();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    await action.run(async () =>
      onCreated(
        await client.control.webhooks.create({
          url: draft.url.trim(),
          events: draft.events,
          description: draft.description.trim(),
          include_text: draft.includeText,
        }),
      ),
    );
  };

  return (
    <form className="card stack" onSubmit={submit} aria-labelledby={title}>
      <h2 id={title}>Add a webhook endpoint</h2>
      <WebhookEndpointFields value={draft} onChange={setDraft} />
      <ErrorNotice error={action.error} />
      <FormButtons
        text="Add endpoint"
        busyText="Adding…"
        busy={action.busy}
        disabled={!draft.url.trim() || draft.events.length === 0}
        onCancel={onCancel}
      />
    </form>
  );
}
