import { type FormEvent, useId, useState } from 'react';
import { DataTable, numberColumn } from '../components/data-table.js';
import { DateTime } from '../components/date-time.js';
import { ErrorNotice } from '../components/error-notice.js';
import { useAction } from '../hooks/use-action.js';
import { useLoad } from '../hooks/use-load.js';
import { useSession } from '../session/session-context.js';
import { formatCount, formatUsd } from './format.js';

/** The UTC month before this one (YYYY-MM): the first month that can be closed. */
function lastMonth(now = new Date()): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/**
 * Invoices (GET /control/billing/invoices) and closing a month into one (POST, `billing:invoice`):
 * the month's recorded charges become invoiced. Closing a month again answers the same invoice, and a
 * month can be closed only an hour after it ended; the server says so when it is too early.
 */
export function InvoicesSection({ onChanged }: { onChanged: () => void }) {
  const { client, can } = useSession();
  const invoices = useLoad((signal) => client.control.billing.invoices({ signal }), [client]);
  const [period, setPeriod] = useState(lastMonth);
  const { busy, error, run } = useAction();
  const [announcement, setAnnouncement] = useState('');
  const id = useId();

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setAnnouncement('');
    await run(async () => {
      const invoice = await client.control.billing.closeInvoicePeriod({ period });
      setAnnouncement(
        `Invoice for ${invoice.period}: ${formatCount(invoice.charges)} charges, ${formatUsd(invoice.total_usd)}.`,
      );
      invoices.reload();
      onChanged();
    });
  };

  const list = invoices.data?.data ?? [];
  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Invoices</h2>
      <ErrorNotice error={invoices.error} />
      {invoices.loading && !invoices.data && <p>Loading…</p>}
      {invoices.data && list.length === 0 && <p>No invoice yet.</p>}
      {list.length > 0 && (
        <DataTable
          caption="Invoices"
          columns={['Period', numberColumn('Charges'), numberColumn('Total'), 'Created']}
        >
          {list.map((invoice) => (
            <tr key={invoice.id}>
              <th scope="row">{invoice.period}</th>
              <td className="number">{formatCount(invoice.charges)}</td>
              <td className="number">{formatUsd(invoice.total_usd)}</td>
              <td>
                <DateTime value={invoice.created_at} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {can('billing:invoice') && (
        <form className="row" onSubmit={create}>
          <label htmlFor={`${id}-period`}>Month (UTC)</label>
          <input
            id={`${id}-period`}
            type="month"
            required
            value={period}
            onChange={(e) => setPeriod(e.target.value)}
          />
          <button type="submit" disabled={busy || !period}>
            {busy ? 'Creating…' : 'Create invoice'}
          </button>
        </form>
      )}
      <p aria-live="polite">{announcement}</p>
      <ErrorNotice error={error} />
      <p className="hint">Sandbox: invoices are records only; nothing is sent or paid.</p>
    </section>
  );
}
