import type { QueryOf, ResponseOf } from '@text-memory/sdk';
import { useId, useState } from 'react';
import { DataTable, numberColumn } from '../components/data-table.js';
import { DateTime } from '../components/date-time.js';
import { ErrorNotice } from '../components/error-notice.js';
import { Pager } from '../components/pager.js';
import { useLoad } from '../hooks/use-load.js';
import { useSession } from '../session/session-context.js';
import { formatCount, formatUsd } from './format.js';
import { VoidCharge } from './void-charge.js';

type Charge = ResponseOf<'listCharges'>['data'][number];
type ChargeState = NonNullable<QueryOf<'listCharges'>['state']>;
type ChargeOperation = NonNullable<QueryOf<'listCharges'>['operation']>;

const PAGE = 25;
const STATES: ChargeState[] = ['recorded', 'invoiced', 'unbilled', 'void'];
const OPERATIONS: ChargeOperation[] = ['memory.write', 'memory.recall'];
/** The states a charge can be voided from (docs/decisions/billing.md, "Billing", charge states). */
const VOIDABLE = new Set<Charge['state']>(['recorded', 'unbilled']);

/**
 * The ledger's charges, newest operation first, filtered and paged by the server
 * (GET /control/billing/charges); owners and admins void one from here. `round` changes when the
 * page changed charges elsewhere (an invoice), to read them again.
 */
export function ChargesSection({ round, onChanged }: { round: number; onChanged: () => void }) {
  const { client, can } = useSession();
  const [state, setState] = useState<ChargeState | ''>('');
  const [operation, setOperation] = useState<ChargeOperation | ''>('');
  const [offset, setOffset] = useState(0);
  const [voiding, setVoiding] = useState<Charge>();
  const [announcement, setAnnouncement] = useState('');
  const id = useId();
  const charges = useLoad(
    (signal) =>
      client.control.billing.charges(
        { limit: PAGE, offset, ...(state ? { state } : {}), ...(operation ? { operation } : {}) },
        { signal },
      ),
    [client, offset, state, operation, round],
  );
  const total = charges.data?.paging.total ?? 0;
  const rows = charges.data?.data ?? [];

  const voided = (charge: Charge) => {
    setVoiding(undefined);
    setAnnouncement(`Charge ${charge.id} is now ${charge.state}.`);
    onChanged(); // reads the charges (round) and the usage again
  };

  return (
    <section className="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Charges</h2>
      <div className="row">
        <label htmlFor={`${id}-state`}>State</label>
        <select
          id={`${id}-state`}
          value={state}
          onChange={(e) => {
            setState(e.target.value as ChargeState | '');
            setOffset(0);
          }}
        >
          <option value="">any</option>
          {STATES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <label htmlFor={`${id}-operation`}>Operation</label>
        <select
          id={`${id}-operation`}
          value={operation}
          onChange={(e) => {
            setOperation(e.target.value as ChargeOperation | '');
            setOffset(0);
          }}
        >
          <option value="">any</option>
          {OPERATIONS.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      </div>
      <ErrorNotice error={charges.error} />
      <p aria-live="polite">
        {announcement}{' '}
        {charges.loading
          ? 'Loading…'
          : total === 0
            ? 'No charge matches.'
            : `Charges ${formatCount(offset + 1)}–${formatCount(offset + rows.length)} of ${formatCount(total)}.`}
      </p>
      {voiding && <VoidCharge charge={voiding} onVoided={voided} onCancel={() => setVoiding(undefined)} />}
      <DataTable
        caption="Charges"
        columns={[
          'Operation time',
          'Operation',
          numberColumn('Units'),
          numberColumn('Amount'),
          'State',
          'Request',
          can('billing:void') && { label: <span className="visually-hidden">Actions</span> },
        ]}
      >
        {rows.map((charge) => (
          <tr key={charge.id} className={voiding?.id === charge.id ? 'selected' : undefined}>
            <td>
              <DateTime value={charge.occurred_at} />
            </td>
            <th scope="row">
              <code>{charge.operation}</code>
            </th>
            <td className="number">{formatCount(charge.units)}</td>
            <td className="number">{formatUsd(charge.amount_usd)}</td>
            <td>
              <span className={`badge badge-${charge.state}`}>{charge.state}</span>
              {charge.state === 'void' && <span className="hint"> {charge.history.at(-1)?.reason}</span>}
            </td>
            <td>
              <code>{charge.request_id}</code>
            </td>
            {can('billing:void') && (
              <td>
                {VOIDABLE.has(charge.state) && (
                  <button type="button" className="button-secondary" onClick={() => setVoiding(charge)}>
                    Void
                    <span className="visually-hidden"> the charge of request {charge.request_id}</span>
                  </button>
                )}
              </td>
            )}
          </tr>
        ))}
      </DataTable>
      <Pager
        label="Pages of charges"
        busy={charges.loading}
        onPrevious={offset === 0 ? undefined : () => setOffset(Math.max(0, offset - PAGE))}
        onNext={offset + PAGE >= total ? undefined : () => setOffset(offset + PAGE)}
      />
    </section>
  );
}
