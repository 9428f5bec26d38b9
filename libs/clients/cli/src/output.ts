import { TextMemoryError } from '@text-memory/sdk';
import { UsageError } from './exit-codes.js';

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** Cut longer cells (with …) so a table stays readable; `--json` has the whole value. */
  max?: number;
}

/** A value as one line of a table or record: `-` for nothing, whitespace runs as one space, cut at `max`. */
export const cell = (value: unknown, max?: number): string => {
  let text: string;
  if (value === null || value === undefined || value === '') text = '-';
  else if (typeof value === 'object') text = JSON.stringify(value);
  else text = String(value);
  text = text.replace(/\s+/g, ' ');
  return max !== undefined && text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

/**
 * Tables and key/value lists for people, JSON for scripts: with `--json`, stdout gets exactly the
 * SDK's result and nothing else (progress and prompts go to stderr).
 */
export class Output {
  constructor(
    readonly json: boolean,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly stderr: NodeJS.WritableStream = process.stderr,
  ) {}

  /** The SDK's result as JSON, or the human rendering. */
  result(value: unknown, human: () => void): void {
    if (this.json) this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    else human();
  }

  line(text = ''): void {
    this.stdout.write(`${text}\n`);
  }

  /** A note for people (stderr), kept out of `--json` output. */
  note(text: string): void {
    if (!this.json) this.stderr.write(`${text}\n`);
  }

  /**
   * A warning (stderr) shown even with `--json`, where it is a JSON line `{"warning": …}`: a secret
   * passed as a flag is worth knowing about in a script too.
   */
  warn(text: string): void {
    this.stderr.write(this.json ? `${JSON.stringify({ warning: text })}\n` : `tm: warning: ${text}\n`);
  }

  record(entries: Array<[string, unknown]>): void {
    const width = Math.max(0, ...entries.map(([label]) => label.length));
    for (const [label, value] of entries) this.line(`${`${label}:`.padEnd(width + 2)}${cell(value)}`);
  }

  table<T>(rows: readonly T[], columns: Array<Column<T>>): void {
    if (rows.length === 0) {
      this.line('(none)');
      return;
    }
    const cells = rows.map((row) => columns.map((column) => cell(column.value(row), column.max)));
    const widths = columns.map((column, i) =>
      Math.max(column.header.length, ...cells.map((values) => values[i]?.length ?? 0)),
    );
    const format = (values: string[]) =>
      values
        .map((value, i) => (i === values.length - 1 ? value : value.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd();
    this.line(format(columns.map((column) => column.header.toUpperCase())));
    for (const values of cells) this.line(format(values));
  }

  /**
   * An error as message, code and request id (stderr; JSON with `--json`). The SDK never puts a
   * credential in a message; `secrets` are masked anyway, should one ever come through a cause.
   */
  error(error: unknown, secrets: Array<string | undefined> = []): void {
    // Each secret also as JSON quotes it: `--json` output escapes a line break a mistyped key may hold.
    const needles = secrets.flatMap((secret) =>
      secret ? [secret, JSON.stringify(secret).slice(1, -1)] : [],
    );
    const mask = (text: string) =>
      needles.reduce<string>((out, needle) => out.split(needle).join('***'), text);
    const described = describe(error);
    if (this.json) {
      this.stderr.write(`${mask(JSON.stringify(described))}\n`);
      return;
    }
    const parts = [`tm: ${described.error}`];
    const meta = [
      described.code ? `code: ${described.code}` : undefined,
      described.status ? `status: ${described.status}` : undefined,
      described.request_id ? `request id: ${described.request_id}` : undefined,
    ].filter(Boolean);
    if (meta.length > 0) parts.push(`  ${meta.join('  ')}`);
    for (const field of described.fields ?? []) parts.push(`  ${field.path}: ${field.message}`);
    this.stderr.write(`${mask(parts.join('\n'))}\n`);
  }
}

interface DescribedError {
  error: string;
  code?: string;
  status?: number;
  request_id?: string;
  fields?: Array<{ path: string; message: string }>;
}

function describe(error: unknown): DescribedError {
  if (error instanceof TextMemoryError) {
    return {
      error: error.message,
      code: error.code,
      ...(error.status ? { status: error.status } : {}),
      ...(error.request_id ? { request_id: error.request_id } : {}),
      ...(error.details?.fields ? { fields: error.details.fields } : {}),
    };
  }
  if (error instanceof UsageError) return { error: error.message, code: 'usage_error' };
  return { error: error instanceof Error ? error.message : String(error), code: 'unexpected' };
}
