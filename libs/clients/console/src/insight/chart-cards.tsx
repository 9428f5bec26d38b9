import { type ChartLine, TimeSeriesChart } from './time-series-chart.js';

/** One chart of a window: what it counts (the start of its title), how to read a value, its lines. */
export interface ChartSpec<P> {
  what: string;
  format: (value: number) => string;
  whole?: boolean;
  lines: ChartLine<P>[];
}

/**
 * Charts side by side, each a card over the same series, titled "<what> per <bucket> min"; nothing at
 * all for a window without buckets.
 */
export function ChartCards<P extends { from: string }>({
  series,
  bucketMinutes,
  charts,
}: {
  series: P[];
  bucketMinutes: number;
  charts: ChartSpec<P>[];
}) {
  if (series.length === 0) return null;
  return (
    <div className="cards charts">
      {charts.map((chart) => (
        <div className="card" key={chart.what}>
          <TimeSeriesChart
            title={`${chart.what} per ${bucketMinutes.toLocaleString()} min`}
            points={series}
            bucketMinutes={bucketMinutes}
            format={chart.format}
            whole={chart.whole ?? false}
            lines={chart.lines}
          />
        </div>
      ))}
    </div>
  );
}
