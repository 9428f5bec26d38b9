import type { ResponseOf } from '@text-memory/sdk';
import { formatCount, formatRate } from './format.js';

type Mix = ResponseOf<'metrics'>['operation_mix'];

/** Which operations the window's requests were, with their shares. */
export function OperationMix({ mix }: { mix: Mix }) {
  return (
    <div className="table-scroll">
      <table>
        <caption className="visually-hidden">Operation mix</caption>
        <thead>
          <tr>
            <th scope="col">Operation</th>
            <th scope="col" className="number">
              Requests
            </th>
            <th scope="col" className="number">
              Share
            </th>
          </tr>
        </thead>
        <tbody>
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
        </tbody>
      </table>
    </div>
  );
}
