import type { ResponseOf } from '@text-memory/sdk';
import { DataTable, numberColumn } from '../components/data-table.js';
import { formatSignal } from './format.js';

type Anomaly = ResponseOf<'anomalies'>['anomalies'][number];

/** What each signal means and what to look at first (docs/decisions/telemetry.md, "Telemetry", Anomalies). */
const MEANING: Record<Anomaly['name'], string> = {
  error_rate:
    'Requests are failing (4xx other than refusals, and 5xx): look at the events for their error codes.',
  p95_latency: 'One request in twenty is slower than the threshold: look at the slowest operations below.',
  blocked_rate:
    'Many requests are refused before any work (401, 403, 429): a revoked or wrong key, a missing permission or consent, or the rate limit.',
  usage_dead_letters:
    'Billing could not charge some usage records (deployment-wide): charges may be missing until an operator replays them.',
  dropped_request_records:
    'Gateways dropped request records while the bus was unreachable (deployment-wide): the history has gaps.',
  request_record_dead_letters:
    'Telemetry could not store some request records (deployment-wide): the history has gaps.',
};

/** The thresholded signals of a window: severity, observed against threshold, and what it means. */
export function AnomalyList({ anomalies, windowLabel }: { anomalies: Anomaly[]; windowLabel: string }) {
  if (anomalies.length === 0) {
    return <p>No signal crossed its threshold in the {windowLabel}.</p>;
  }
  return (
    <DataTable
      caption="Anomalies"
      columns={['Signal', 'Severity', numberColumn('Observed'), numberColumn('Threshold'), 'What it means']}
    >
      {anomalies.map((anomaly) => (
        <tr key={anomaly.name}>
          <th scope="row">
            <code>{anomaly.name}</code>
            <br />
            <span className="hint">{anomaly.scope}</span>
          </th>
          <td>
            <span className={`badge badge-${anomaly.severity}`}>{anomaly.severity}</span>
          </td>
          <td className="number">{formatSignal(anomaly.observed, anomaly.unit)}</td>
          <td className="number">{formatSignal(anomaly.threshold, anomaly.unit)}</td>
          <td>
            {MEANING[anomaly.name]}
            <br />
            <span className="hint">{anomaly.message}</span>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
