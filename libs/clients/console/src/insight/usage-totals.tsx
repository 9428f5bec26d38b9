import type { ResponseOf } from '@text-memory/sdk';
import { DataTable, numberColumn } from '../components/data-table.js';
import { DateTime } from '../components/date-time.js';
import { formatCount, formatUsd } from './format.js';

type Usage = ResponseOf<'controlUsage'>;

/** A usage answer's totals: billable requests, units, recorded and voided charges (sandbox dollars). */
export function UsageTotals({ usage }: { usage: Usage }) {
  const units = usage.operations.reduce((sum, op) => sum + op.units, 0);
  const rows: Array<[string, string]> = [
    ['Billable requests', formatCount(usage.request_volume)],
    ['Units', formatCount(units)],
    ['Charges', formatUsd(usage.recorded_charge_usd)],
    ['Voided', formatUsd(usage.void_charge_usd)],
  ];
  return (
    <>
      <dl className="stats">
        {rows.map(([name, value]) => (
          <div key={name}>
            <dt>{name}</dt>
            <dd>
              <strong>{value}</strong>
            </dd>
          </div>
        ))}
      </dl>
      <p className="hint">
        {usage.state === 'no_data' ? 'No billable operation in this window. ' : ''}
        Price list {usage.pricing_version} (sandbox: nothing is charged).{' '}
        {usage.source_of_truth.last_recorded_at ? (
          <>
            Newest ledger record <DateTime value={usage.source_of_truth.last_recorded_at} />; usage lags
            requests by a moment.
          </>
        ) : (
          'The ledger holds no record yet.'
        )}
      </p>
    </>
  );
}

/** Billable requests, units and charges per operation. */
export function UsageOperations({ usage }: { usage: Usage }) {
  if (usage.operations.length === 0) return <p>No billable operation in this window.</p>;
  return (
    <DataTable
      caption="Usage per operation"
      columns={['Operation', numberColumn('Requests'), numberColumn('Units'), numberColumn('Charges')]}
    >
      {usage.operations.map((op) => (
        <tr key={op.operation}>
          <th scope="row">
            <code>{op.operation}</code>
          </th>
          <td className="number">{formatCount(op.requests)}</td>
          <td className="number">{formatCount(op.units)}</td>
          <td className="number">{formatUsd(op.recorded_charge_usd)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
