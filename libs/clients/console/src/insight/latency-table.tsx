import type { ResponseOf } from '@text-memory/sdk';
import { DataTable, numberColumn } from '../components/data-table.js';
import { formatCount, formatMs } from './format.js';

type Latency = ResponseOf<'metrics'>['latency'];

/** Requests and latency percentiles per operation, busiest first. */
export function LatencyTable({ latency, caption }: { latency: Latency; caption: string }) {
  const rows = [...latency].sort((a, b) => b.requests - a.requests);
  return (
    <DataTable
      caption={caption}
      columns={[
        'Operation',
        numberColumn('Requests'),
        numberColumn('p50'),
        numberColumn('p95'),
        numberColumn('p99'),
        numberColumn('Max'),
      ]}
    >
      {rows.map((row) => (
        <tr key={row.operation}>
          <th scope="row">
            <code>{row.operation}</code>
          </th>
          <td className="number">{formatCount(row.requests)}</td>
          <td className="number">{formatMs(row.p50_ms)}</td>
          <td className="number">{formatMs(row.p95_ms)}</td>
          <td className="number">{formatMs(row.p99_ms)}</td>
          <td className="number">{formatMs(row.max_ms)}</td>
        </tr>
      ))}
    </DataTable>
  );
}
