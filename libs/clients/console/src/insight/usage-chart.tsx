import { ChartCards } from './chart-cards.js';
import { formatCount, formatUsd } from './format.js';
import type { UsageAnswer } from './series.js';

/**
 * Billable requests, units and charges over the usage answer's window. The series comes with the
 * answer (the service counts it), so the charts and the totals beside them always agree.
 */
export function UsageCharts({ usage }: { usage: UsageAnswer }) {
  return (
    <ChartCards
      series={usage.series}
      bucketMinutes={usage.bucket_minutes}
      charts={[
        {
          what: 'Usage',
          format: formatCount,
          whole: true,
          lines: [
            { key: 'requests', name: 'Billable requests', colour: '#0b5cad' },
            { key: 'units', name: 'Units', colour: '#1a7f37' },
          ],
        },
        {
          what: 'Charges',
          format: formatUsd,
          lines: [{ key: 'recorded_charge_usd', name: 'Charges (USD)', colour: '#6f42c1' }],
        },
      ]}
    />
  );
}
