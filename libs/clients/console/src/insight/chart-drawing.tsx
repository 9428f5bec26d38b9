import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { formatBucket } from './format.js';

export interface DrawnLine {
  key: string;
  name: string;
  colour: string;
  dots?: boolean;
}

/**
 * The drawn part of a chart, and the console's only use of recharts: loaded on its own (time-series-
 * chart.tsx imports it lazily) so the pages without charts, login first, don't wait for the library.
 */
export default function ChartDrawing({
  points,
  bucketMinutes,
  lines,
  format,
  whole,
}: {
  points: Array<{ from: string }>;
  bucketMinutes: number;
  lines: DrawnLine[];
  format: (value: number) => string;
  whole: boolean;
}) {
  return (
    <ResponsiveContainer width="100%" height="100%">
      <LineChart data={points} accessibilityLayer={false} margin={{ top: 8, right: 16, bottom: 0, left: 8 }}>
        <CartesianGrid stroke="#d0d7de" strokeDasharray="3 3" />
        <XAxis
          dataKey="from"
          tickFormatter={(iso: string) => formatBucket(iso, bucketMinutes)}
          minTickGap={24}
          fontSize={12}
        />
        <YAxis allowDecimals={!whole} tickFormatter={(v: number) => format(v)} width={80} fontSize={12} />
        <Tooltip
          labelFormatter={(iso) => formatBucket(String(iso), bucketMinutes)}
          formatter={(v) => (typeof v === 'number' ? format(v) : '–')}
        />
        <Legend />
        {lines.map((line) => (
          <Line
            key={line.key}
            type="monotone"
            dataKey={line.key}
            name={line.name}
            stroke={line.colour}
            strokeWidth={2}
            dot={line.dots ? { r: 2.5, fill: line.colour } : false}
            isAnimationActive={false}
          />
        ))}
      </LineChart>
    </ResponsiveContainer>
  );
}
