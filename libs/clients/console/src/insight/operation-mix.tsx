import type { ResponseOf } from '@text-memory/sdk';
import { DataTable, numberColumn } from '../components/data-table.js';
import { formatCount, formatRate } from './format.js';

type Mix = ResponseOf<'metrics'>['operation_mix'];

/** Which operations the window's requests were, with their shares. */
export function OperationMix({ mix }: { mix: Mix }) {
  return (
    <DataTable
      caption="Operation mix"
      columns={['Operation', numberColumn('Requests'), numberColumn('Share')]}
    >
      {[...mix]
        .sort((a, b) => b.requests - a.requests)
        .map((row) => (
          <tr key={row.operation}>
            <th scope="row">
              <code>{row.operation}</code>
            </th>
            <td className="number">{formatCount(row.requests)}</td>
            <td className="number">
              <meter min={0} max={1} value={row.share} aria-hidden="true" /> {formatRate(row.share)}
            </td>
          </tr>
        ))}
    </DataTable>
  );
}
