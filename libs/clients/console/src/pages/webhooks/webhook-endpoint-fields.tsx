import type { WebhookEventType } from '@text-memory/sdk';
import { useId } from 'react';
import { WEBHOOK_EVENT_LABELS, WEBHOOK_EVENT_TYPES } from './webhook-event-types.js';

/** What the create and edit forms both hold. */
export interface WebhookEndpointDraft {
  url: string;
  events: WebhookEventType[];
  description: string;
  includeText: boolean;
}

/** URL, event types, description and the memory-text opt-in of an endpoint, for a form around them. */
export function WebhookEndpointFields({
  value,
  onChange,
}: {
  value: WebhookEndpointDraft;
  onChange: (next: WebhookEndpointDraft) => void;
}) {
  const ids = { url: useId(), description: useId(), urlHint: useId() };
  const toggle = (type: WebhookEventType, on: boolean) =>
    onChange({
      ...value,
      events: WEBHOOK_EVENT_TYPES.filter((t) => (t === type ? on : value.events.includes(t))),
    });
  return (
    <>
      <label htmlFor={ids.url}>Endpoint URL</label>
      <input
        id={ids.url}
        type="url"
        required
        maxLength={2048}
        placeholder="https://example.com/hooks/text-memory"
        aria-describedby={ids.urlHint}
        value={value.url}
        onChange={(e) => onChange({ ...value, url: e.target.value })}
      />
      <p id={ids.urlHint} className="hint">
        Deliveries are POSTed here (http or https). Private and internal addresses are refused.
      </p>
      <fieldset className="checkboxes">
        <legend>Events</legend>
        {WEBHOOK_EVENT_TYPES.map((type) => (
          <label key={type}>
            <input
              type="checkbox"
              checked={value.events.includes(type)}
              onChange={(e) => toggle(type, e.target.checked)}
            />{' '}
            <code>{type}</code> ({WEBHOOK_EVENT_LABELS[type]})
          </label>
        ))}
        {value.events.length === 0 && <p className="hint">Choose at least one.</p>}
      </fieldset>
      <label htmlFor={ids.description}>Description (optional)</label>
      <input
        id={ids.description}
        maxLength={500}
        value={value.description}
        onChange={(e) => onChange({ ...value, description: e.target.value })}
      />
      <label>
        <input
          type="checkbox"
          checked={value.includeText}
          onChange={(e) => onChange({ ...value, includeText: e.target.checked })}
        />{' '}
        Include the memory text in <code>memory.retained</code> payloads (off: ids and states only)
      </label>
    </>
  );
}
