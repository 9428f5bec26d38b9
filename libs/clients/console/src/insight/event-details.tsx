import type { RequestEvent } from '@text-memory/sdk';
import type { ReactNode } from 'react';
import { CopyButton } from '../components/copy-button.js';
import { DateTime } from '../components/date-time.js';
import { formatCount, formatMs } from './format.js';

/** Every field of one redacted request record (it holds no text, cue, namespace, key or token). */
export function EventDetails({ event, onClose }: { event: RequestEvent; onClose: () => void }) {
  const fields: Array<[string, ReactNode]> = [
    ['Time', <DateTime key="time" value={event.occurred_at} />],
    ['Method and route', `${event.method} ${event.route}`],
    ['Operation', event.operation ?? '–'],
    ['Status', String(event.status)],
    ['Outcome', event.outcome],
    ['State', event.state ?? '–'],
    ['Error code', event.error_code ?? '–'],
    ['Latency', formatMs(event.latency_ms)],
    ['Units', formatCount(event.units)],
    ['Billing', event.billing_state],
    ['API key', event.key_id ?? '– (a session)'],
    ['User', event.user_id ?? '–'],
    ['Deployment version', event.deployment_version],
  ];
  return (
    <section className="card" aria-labelledby="event-details-title">
      <div className="row">
        <h2 id="event-details-title">Request {event.request_id}</h2>
        <CopyButton value={event.request_id} label="Copy request id" />
        <button type="button" className="button-secondary" onClick={onClose}>
          Close details
        </button>
      </div>
      <dl className="stats">
        {fields.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>
              <code>{value}</code>
            </dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
