import { ChartCards } from './chart-cards.js';
import { formatCount, formatMs } from './format.js';
import type { MetricsAnswer } from './series.js';

/**
 * Request rate (with its errors and blocked requests) and latency over the metrics answer's window.
 * The series comes with the answer (the service counts it), so the charts and the totals agree.
 */
export function RequestCharts({ metrics }: { metrics: MetricsAnswer }) {
  return (
    <ChartCards
      series={metrics.series}
      bucketMinutes={metrics.bucket_minutes}
      charts={[
        {
          what: 'Requests',
          format: formatCount,
          whole: true,
          lines: [
            { key: 'requests', name: 'Requests', colour: '#0b5cad' },
            { key: 'errors', name: 'Errors', colour: '#b42318' },
            { key: 'blocked', name: 'Blocked', colour: '#8a5a00' },
          ],
        },
        {
          what: 'Latency',
          format: formatMs,
          lines: [
            { key: 'p50_ms', name: 'p50', colour: '#1a7f37', dots: true },
            { key: 'p95_ms', name: 'p95', colour: '#6f42c1', dots: true },
          ],
        },
      ]}
    />
  );
}
