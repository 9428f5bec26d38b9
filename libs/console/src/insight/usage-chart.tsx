import { formatCount, formatUsd } from './format.js';
import type { UsageAnswer } from './series.js';
import { TimeSeriesChart } from './time-series-chart.js';

/**
 * Billable requests, units and charges over the usage answer's window. The series comes with the
 * answer (the service counts it), so the charts and the totals beside them always agree.
 */
export function UsageCharts({ usage }: { usage: UsageAnswer }) {
  const { series, bucket_minutes: bucket } = usage;
  if (series.length === 0) return null;
  return (
    <div className="cards charts">
      <div className="card">
        <TimeSeriesChart
          title={`Usage per ${bucket.toLocaleString()} min`}
          points={series}
          bucketMinutes={bucket}
          format={formatCount}
          whole
          lines={[
            { key: 'requests', name: 'Billable requests', colour: '#0b5cad' },
            { key: 'units', name: 'Units', colour: '#1a7f37' },
          ]}
        />
      </div>
      <div className="card">
        <TimeSeriesChart
          title={`Charges per ${bucket.toLocaleString()} min`}
          points={series}
          bucketMinutes={bucket}
          format={formatUsd}
          lines={[{ key: 'recorded_charge_usd', name: 'Charges (USD)', colour: '#6f42c1' }]}
        />
      </div>
    </div>
  );
}
