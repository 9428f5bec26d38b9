import cliProgress from 'cli-progress';

export interface Progress {
  update(value: number, total?: number, detail?: string): void;
  stop(): void;
}

export interface ProgressOptions {
  /** What is counted; bytes are shown in KiB/MiB. */
  unit: 'rows' | 'records' | 'bytes';
  /** Unknown when the server does not say (a streamed export). */
  total?: number;
  /** `--json`: stderr is for error documents then, so progress is drawn only on a terminal. */
  json: boolean;
}

const size = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 * 1024
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * Progress on stderr: a bar at a terminal (cli-progress); otherwise one plain line per change, so
 * logs and CI show how far a long import got without control characters.
 */
export function startProgress(label: string, options: ProgressOptions): Progress {
  const show = (value: number, total: number | undefined) =>
    options.unit === 'bytes'
      ? `${size(value)}${total ? ` of ${size(total)}` : ''}`
      : `${value}${total !== undefined ? `/${total}` : ''} ${options.unit}`;

  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      {
        format: `${label} ${options.total === undefined ? '' : '[{bar}] {percentage}% '}{shown} {detail}`,
        stream: process.stderr,
        hideCursor: true,
        clearOnComplete: false,
      },
      cliProgress.Presets.shades_classic,
    );
    let total = options.total;
    bar.start(total ?? 0, 0, { shown: show(0, total), detail: '' });
    return {
      update(value, newTotal, detail = '') {
        if (newTotal !== undefined && newTotal !== total) {
          total = newTotal;
          bar.setTotal(newTotal);
        }
        bar.update(value, { shown: show(value, total), detail });
      },
      stop: () => bar.stop(),
    };
  }

  if (options.json) return { update() {}, stop() {} };
  let last = '';
  let total = options.total;
  return {
    update(value, newTotal, detail) {
      total = newTotal ?? total;
      const text = `${label} ${show(value, total)}${detail ? ` ${detail}` : ''}`;
      if (text !== last) process.stderr.write(`${text}\n`);
      last = text;
    },
    stop() {},
  };
}
