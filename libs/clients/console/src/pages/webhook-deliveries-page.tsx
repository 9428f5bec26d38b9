import type { WebhookDelivery } from '@text-memory/sdk';
import { useEffect, useState } from 'react';
import { Link, useParams } from 'react-router';
import { DataTable, numberColumn } from '../components/data-table.js';
import { DateTime } from '../components/date-time.js';
import { ErrorNotice } from '../components/error-notice.js';
import { Page } from '../components/page.js';
import { Pager } from '../components/pager.js';
import { useAction } from '../hooks/use-action.js';
import { useLoad } from '../hooks/use-load.js';
import { formatMs } from '../insight/format.js';
import { useSession } from '../session/session-context.js';

/** While a delivery on the newest page is pending, the page reads the log again this often. */
const PENDING_REFRESH_MS = 3_000;

/**
 * One endpoint's delivery log, newest first: each delivery's status and every attempt (time,
 * HTTP status, latency, error), paged forward by the route's cursor and back through the cursors
 * followed; Redeliver puts one back to pending. While the endpoint is disabled it says why and offers
 * to enable it (the API refuses a redeliver until then).
 */
export function WebhookDeliveriesPage() {
  const { id = '' } = useParams();
  const { client } = useSession();
  const [cursors, setCursors] = useState<Array<string | undefined>>([undefined]);
  const [said, setSaid] = useState('');
  const action = useAction();
  const cursor = cursors[cursors.length - 1];
  const endpoint = useLoad((signal) => client.control.webhooks.get(id, { signal }), [client, id]);
  const page = useLoad(
    (signal) => client.control.webhooks.deliveriesPage(id, cursor ? { cursor } : {}, { signal }),
    [client, id, cursor],
  );
  // Read again keeping what is shown (a page that blinks away on every refresh would lose the reader's place).
  const refresh = () => {
    endpoint.reload();
    page.reload();
  };
  const deliveries = page.data?.data ?? [];
  const pending = cursors.length === 1 && deliveries.some((d) => d.status === 'pending');

  // A redelivered (or new) delivery moves on by itself: follow it without a click while one is pending.
  // biome-ignore lint/correctness/useExhaustiveDependencies: each new answer starts the next wait
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(page.reload, PENDING_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [pending, page.data]);

  const redeliver = (delivery: WebhookDelivery) =>
    action.run(async () => {
      await client.control.webhooks.redeliver(id, delivery.id);
      setSaid(`Delivery ${delivery.message_id} queued again.`);
      refresh();
    });
  const enable = () =>
    action.run(async () => {
      await client.control.webhooks.update(id, { enabled: true });
      setSaid('Endpoint enabled.');
      refresh();
    });
  const disabled = endpoint.data && !endpoint.data.enabled;

  return (
    <Page
      title="Webhook deliveries"
      summary={
        endpoint.data ? (
          <>
            To <code>{endpoint.data.url}</code>. Newest first; a receiver deduplicates on the message id,
            which every attempt and a redelivery keep.
          </>
        ) : undefined
      }
      actions={
        <>
          <Link to="/webhooks">All endpoints</Link>
          <button type="button" className="button-secondary" onClick={refresh}>
            Refresh
          </button>
        </>
      }
    >
      <ErrorNotice error={endpoint.error ?? page.error ?? action.error} />
      {disabled && (
        <div className="notice notice-error">
          <strong>This endpoint is disabled</strong>
          {endpoint.data?.disabled_reason ? `: ${endpoint.data.disabled_reason}.` : '.'} New events skip it
          and nothing can be redelivered until it is enabled again.{' '}
          <button type="button" disabled={action.busy} onClick={() => void enable()}>
            Enable endpoint
          </button>
        </div>
      )}
      <p aria-live="polite" className="hint">
        {said}
      </p>
      {page.loading && !page.data && <p className="loading">Loading deliveries…</p>}
      {page.data && (
        <DataTable
          caption={<>Deliveries, page {cursors.length}</>}
          columns={[
            'Created',
            'Event',
            'Status',
            'Attempts',
            numberColumn('HTTP status'),
            numberColumn('Latency'),
            'Error',
            'Next attempt',
            'Actions',
          ]}
          card
          empty={
            deliveries.length === 0 && 'No deliveries yet: they appear here when a subscribed event happens.'
          }
          after={
            <Pager
              label="Pages of deliveries"
              busy={page.loading}
              onPrevious={cursors.length > 1 ? () => setCursors(cursors.slice(0, -1)) : undefined}
              onNext={
                page.data.next_cursor
                  ? () => setCursors([...cursors, page.data?.next_cursor ?? undefined])
                  : undefined
              }
            />
          }
        >
          {deliveries.map((delivery) => {
            const last = delivery.attempts.at(-1);
            return (
              <tr key={delivery.id}>
                <td>
                  <DateTime value={delivery.created_at} />
                </td>
                <th scope="row" className="breakable">
                  <code>{delivery.event_type}</code>
                  <div className="hint">{delivery.message_id}</div>
                </th>
                <td>
                  <span className={`badge badge-${delivery.status}`}>{delivery.status}</span>
                </td>
                <td>
                  {delivery.attempts.length === 0 ? (
                    'none yet'
                  ) : (
                    <details>
                      <summary>
                        {delivery.attempts.length} {delivery.attempts.length === 1 ? 'attempt' : 'attempts'}
                      </summary>
                      <ol>
                        {delivery.attempts.map((attempt) => (
                          <li key={attempt.attempted_at}>
                            <DateTime value={attempt.attempted_at} />: {attempt.status_code ?? 'no answer'},{' '}
                            {formatMs(attempt.latency_ms)}
                            {attempt.error ? `, ${attempt.error}` : ''}
                          </li>
                        ))}
                      </ol>
                    </details>
                  )}
                </td>
                <td className="number">{last?.status_code ?? '—'}</td>
                <td className="number">{formatMs(last?.latency_ms)}</td>
                <td className="breakable">{last?.error ?? '—'}</td>
                <td>
                  <DateTime value={delivery.next_attempt_at} />
                </td>
                <td>
                  <button
                    type="button"
                    className="button-secondary"
                    aria-label={`Redeliver ${delivery.message_id}`}
                    disabled={action.busy || disabled}
                    onClick={() => void redeliver(delivery)}
                  >
                    Redeliver
                  </button>
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </Page>
  );
}
