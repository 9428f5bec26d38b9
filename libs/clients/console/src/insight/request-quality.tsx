import type { ResponseOf } from '@text-memory/sdk';
import { formatCount, formatRate } from './format.js';

type Quality = ResponseOf<'metrics'>['quality'];

/** The window's requests and how many failed or were refused, as the metrics answer's `quality` says. */
export function RequestQuality({ quality }: { quality: Quality }) {
  const rows: Array<[string, string, string]> = [
    ['Requests', formatCount(quality.requests), `${formatCount(quality.accepted)} accepted`],
    ['Error rate', formatRate(quality.error_rate), `${formatCount(quality.errors)} failed`],
    [
      'Blocked rate',
      formatRate(quality.blocked_rate),
      `${formatCount(quality.blocked)} refused (401, 403, 429)`,
    ],
    ['Server errors', formatCount(quality.server_errors), '5xx answers'],
    ['Timeouts', formatRate(quality.timeout_rate), `${formatCount(quality.timeouts)} upstream timeouts`],
  ];
  return (
    <dl className="stats">
      {rows.map(([name, value, detail]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>
            <strong>{value}</strong> <span className="hint">{detail}</span>
          </dd>
        </div>
      ))}
    </dl>
  );
}
