import { formatCount, formatMs } from './format.js';
import type { MetricsAnswer } from './series.js';
import { TimeSeriesChart } from './time-series-chart.js';

/**
 * Request rate (with its errors and blocked requests) and latency over the metrics answer's window.
 * The series comes with the answer (the service counts it), so the charts and the totals agree.
 */
export function RequestCharts({ metrics }: { metrics: MetricsAnswer }) {
  const { series, bucket_minutes: bucket } = metrics;
  if (series.length === 0) return null;
  return (
    <div className="cards charts">
      <div className="card">
        <TimeSeriesChart
          title={`Requests per ${bucket.toLocaleString()} min`}
          points={series}
          bucketMinutes={bucket}
          format={formatCount}
          whole
          lines={[
            { key: 'requests', name: 'Requests', colour: '#0b5cad' },
            { key: 'errors', name: 'Errors', colour: '#b42318' },
            { key: 'blocked', name: 'Blocked', colour: '#8a5a00' },
          ]}
        />
      </div>
      <div className="card">
        <TimeSeriesChart
          title={`Latency per ${bucket.toLocaleString()} min`}
          points={series}
          bucketMinutes={bucket}
          format={formatMs}
          lines={[
            { key: 'p50_ms', name: 'p50', colour: '#1a7f37', dots: true },
            { key: 'p95_ms', name: 'p95', colour: '#6f42c1', dots: true },
          ]}
        />
      </div>
    </div>
  );
}
