import type { ResponseOf } from '@text-memory/sdk';
import { formatCount, formatMs } from './format.js';

type Latency = ResponseOf<'metrics'>['latency'];

/** Requests and latency percentiles per operation, busiest first. */
export function LatencyTable({ latency, caption }: { latency: Latency; caption: string }) {
  const rows = [...latency].sort((a, b) => b.requests - a.requests);
  return (
    <div className="table-scroll">
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Operation</th>
            <th scope="col" className="number">
              Requests
            </th>
            <th scope="col" className="number">
              p50
            </th>
            <th scope="col" className="number">
              p95
            </th>
            <th scope="col" className="number">
              p99
            </th>
            <th scope="col" className="number">
              Max
            </th>
          </tr>
        </thead>
        <tbody>
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
        </tbody>
      </table>
    </div>
  );
}
