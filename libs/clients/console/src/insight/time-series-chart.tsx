import { lazy, Suspense, useId } from 'react';
import { formatBucket } from './format.js';

// recharts is most of the console's script: fetched when a page first draws a chart.
const ChartDrawing = lazy(() => import('./chart-drawing.js'));

export interface ChartLine<P> {
  /** The field of a point this line draws. */
  key: keyof P & string;
  name: string;
  colour: string;
  /**
   * Mark each point: for values with gaps (latency is null in a bucket without requests), where a lone
   * bucket between two gaps would otherwise draw nothing.
   */
  dots?: boolean;
}

/**
 * One chart over a window's buckets, with its title as a heading and, for screen readers, a table of
 * the same numbers: the drawing itself is hidden from them (a picture of a table says less than the
 * table). Gaps (null, a bucket without requests) stay gaps rather than dropping to zero.
 */
export function TimeSeriesChart<P extends { from: string }>({
  title,
  points,
  bucketMinutes,
  lines,
  format,
  whole = false,
}: {
  /** Names the bucket size ("Requests per 5 min"): the table says per what its rows count. */
  title: string;
  points: P[];
  bucketMinutes: number;
  lines: ChartLine<P>[];
  format: (value: number) => string;
  /** Counts: no axis ticks between whole numbers. */
  whole?: boolean;
}) {
  const titleId = useId();
  const value = (point: P, key: keyof P) => {
    const v = point[key];
    return typeof v === 'number' ? format(v) : '–';
  };
  return (
    <figure className="chart-figure" aria-labelledby={titleId}>
      <figcaption id={titleId} className="chart-title">
        {title}
      </figcaption>
      <div className="chart" aria-hidden="true">
        <Suspense fallback={null}>
          <ChartDrawing
            points={points}
            bucketMinutes={bucketMinutes}
            lines={lines}
            format={format}
            whole={whole}
          />
        </Suspense>
      </div>
      {/* The wrapper is what hides: a table grows to its rows whatever height it is given. */}
      <div className="visually-hidden">
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">From</th>
              {lines.map((line) => (
                <th scope="col" key={line.key}>
                  {line.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {points.map((point) => (
              <tr key={point.from}>
                <th scope="row">{formatBucket(point.from, bucketMinutes)}</th>
                {lines.map((line) => (
                  <td key={line.key}>{value(point, line.key)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
