import { BAD_INPUT, writeSection } from '../reliability-sections.js';
import type { Operation } from './operations.js';
import type { FuzzRequest, InputMutation } from './request-arbitrary.js';

const CREDENTIAL_CLASSES = {
  none: 'no credential',
  garbage: 'forged credential',
  wrong_kind: 'the wrong kind of credential',
} as const;

export type BadInputClass =
  | 'schema-valid input'
  | InputMutation
  | (typeof CREDENTIAL_CLASSES)[keyof typeof CREDENTIAL_CLASSES];

/** The table's rows in order, with what each sends; a Record, so a new class cannot go without a row. */
const ROWS: Record<BadInputClass, string> = {
  'schema-valid input': 'the control: inputs the document accepts, with the credential the route takes',
  'wrong type':
    'a value of another JSON type (a string for an object, 7.5 for an integer, "abc" for a number)',
  'bound crossed': 'a length, a number or an item count past its minimum or maximum',
  'pattern or enum broken': 'a string outside its pattern or its enum',
  'required field dropped': 'a required field, query parameter, body or file part left out',
  'unknown field': 'a field the schema does not take',
  'malformed JSON': 'a body that does not parse, sent as application/json',
  'wrong content type': 'a valid body sent as text/plain or a form; JSON where a form goes',
  'hostile path encoding': 'a path segment such as %zz, %00, %C0%AE, .. or %2e%2e where an id goes',
  'query parameter repeated': 'a single-valued query parameter sent twice',
  'other schema violation': 'a generated value the validator refuses for another reason',
  'no credential': 'no Authorization or X-API-Key header',
  'forged credential': 'a key, token or string shaped like a credential that was never issued',
  'the wrong kind of credential': 'a valid session where the route takes an API key, or the other way round',
};

interface Row {
  sent: number;
  answered4xx: number;
  answered2xx: number;
  answered5xx: number;
  offDocument: number;
  storedWhileRefused: number;
  worstMs: number;
}

export interface Outcome {
  status: number;
  latencyMs: number;
  /** The answer's status or body is not one the document gives for the operation. */
  offDocument: boolean;
  /** Answered 4xx, yet what the tenant has stored changed. */
  storedWhileRefused: boolean;
}

/**
 * The rows of a request: its credential's when it is not the one the route takes (the credential is
 * judged first), else each kind of refused input it carries, else the control.
 */
export function classesOf(operation: Operation, fuzz: FuzzRequest): BadInputClass[] {
  const { kind } = fuzz.credential;
  if (kind !== 'right' && !(kind === 'none' && operation.credential === 'public')) {
    return [CREDENTIAL_CLASSES[kind]];
  }
  return fuzz.mutations.length > 0 ? fuzz.mutations : ['schema-valid input'];
}

const emptyRow = (): Row => ({
  sent: 0,
  answered4xx: 0,
  answered2xx: 0,
  answered5xx: 0,
  offDocument: 0,
  storedWhileRefused: 0,
  worstMs: 0,
});

function add(row: Row, outcome: Outcome): void {
  row.sent++;
  if (outcome.status >= 200 && outcome.status < 300) row.answered2xx++;
  if (outcome.status >= 400 && outcome.status < 500) row.answered4xx++;
  if (outcome.status >= 500) row.answered5xx++;
  if (outcome.offDocument) row.offDocument++;
  if (outcome.storedWhileRefused) row.storedWhileRefused++;
  row.worstMs = Math.max(row.worstMs, outcome.latencyMs);
}

/** What the fuzz test sent and got back, per bad-input class (docs/reliability.md). */
export class FuzzTally {
  private readonly rows = new Map<BadInputClass, Row>();
  private readonly total = emptyRow();
  private readonly failed: string[] = [];
  private readonly operations = new Set<string>();

  record(operationId: string, classes: BadInputClass[], outcome: Outcome): void {
    this.operations.add(operationId);
    for (const name of classes) {
      const row = this.rows.get(name) ?? emptyRow();
      this.rows.set(name, row);
      add(row, outcome);
    }
    add(this.total, outcome);
  }

  /** An operation whose property failed: its counts include fast-check's shrinking replays. */
  fail(operationId: string): void {
    this.failed.push(operationId);
  }

  table(): string {
    const line = (name: string, what: string, r: Row) =>
      `| ${name} | ${what} | ${r.sent} | ${r.answered4xx} | ${r.answered2xx} | ${r.answered5xx} | ${r.offDocument} | ${r.storedWhileRefused} | ${Math.round(r.worstMs)} ms |`;
    return [
      '| Bad-input class | What is sent | Requests | Answered 4xx | Answered 2xx | 5xx (must be 0) | Answers off the document (must be 0) | Stored something while refused (must be 0) | Worst latency |',
      '|---|---|---|---|---|---|---|---|---|',
      ...Object.entries(ROWS).map(([name, what]) =>
        line(name, what, this.rows.get(name as BadInputClass) ?? emptyRow()),
      ),
      line('**All requests**', 'each counted once', this.total),
    ].join('\n');
  }

  /** Replaces what stands between the bad-input markers in `file` with this run's table; the rest stays. */
  writeSection(file: string, run: { seed: number; runs: number; startedAt: Date }): void {
    const failed = this.failed.length
      ? `\n\n**${this.failed.length} operations failed** (their counts include fast-check's shrinking replays): ${this.failed.join(', ')}.`
      : '';
    const section = `Written by \`FUZZ_REPORT=docs/reliability.md npx vitest run tests/e2e/gateway/openapi-fuzz.test.ts\`
([operations](operations.md#fuzzing-the-api-from-its-openapi-document)); do not edit it by hand, run it again.
\`npm run faults\` keeps this section as it is.

Run of ${run.startedAt.toISOString()}: \`FUZZ_SEED=${run.seed}\`, \`FUZZ_RUNS=${run.runs}\` requests per operation,
${this.operations.size} operations, ${this.total.sent} requests, Node ${process.version}. Latencies are measured by the
client, on a shared machine. A request counts in the row of its credential when that is not the one the
route takes, since the credential is judged first; otherwise in the row of each kind of refused input it
carries (a request with two counts in both), or in the control row. "Stored something while refused": a
request answered 4xx after which a hash of the tenant's rows in the gateway, memory or template database
differed. A 2xx is a failure on every row but the control, and a forged credential sent to a public route (which
ignores it).${failed}

${this.table()}
`;
    writeSection(file, BAD_INPUT, section);
  }
}
