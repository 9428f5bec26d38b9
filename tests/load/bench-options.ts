import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './ts-process.js';

export interface BenchOptions {
  baseUrl: string;
  /** Run only the recall-quality bench on LoCoMo (tests/load/quality/), none of the throughput scenarios. */
  quality: boolean;
  /** The LoCoMo file the quality bench reads, read where it lies (its licence forbids copying it). */
  locomo: string;
  quick: boolean;
  /** Exit 1 when a target is missed. */
  check: boolean;
  /** Leave the bench namespaces in place (to EXPLAIN the recall query against them); prints them. */
  keep: boolean;
  /** Seconds measured per scenario. */
  duration: number;
  /** Seconds of unmeasured load before each measured scenario. */
  warmup: number;
  /** Concurrent connections for the throughput scenarios (write, baseline, recall); the quality bench's concurrent recalls. */
  connections: number;
  /** Concurrent connections for the batch-write comparison: single writes, then batches of 100. */
  batchConnections: number;
  /** Concurrent writes while seeding through the API. */
  seedConnections: number;
  /** How the recall namespaces are filled: straight into the memory database, or through the write API. */
  seed: 'direct' | 'api';
  /** Records in the namespace of the small-namespace recall scenario. */
  smallSize: number;
  /** Namespace sizes for the recall-latency scenarios, ascending; one namespace grows through them. */
  sizes: number[];
  /** Where to write the SVG chart (recall latency by namespace size; with --quality, recall@k), if anywhere. */
  chart: string | undefined;
  /** Request records seeded into the bench tenant's telemetry before its reads: in the last hour, and older. */
  telemetryRecords: { recent: number; older: number };
}

/** The LoCoMo dev split, beside the repository (shared/), never inside it. */
const DEFAULT_LOCOMO = '../shared/data/locomo/locomo-dev.json';

export const USAGE = `Usage: pnpm bench [--quick] [--check] [--keep] [--duration S] [--connections N] [--batch-connections N] [--seed direct|api] [--seed-connections N]
                 [--sizes 10000,100000,1000000] [--chart FILE.svg] [--telemetry-records 1000000,9000000]
       pnpm bench --quality [--locomo FILE] [--connections N] [--chart FILE.svg] [--check] [--keep]

Runs against a stack that is already up (\`pnpm start\`). --check exits 1 when a target is missed;
--keep leaves the bench's namespaces in place (and prints them) instead of deleting them.
--batch-connections N (default 4) is the connections of the batch-write comparison: memories a second
through single /write calls, then through /write/batch with 100 events a request, back to back.
--seed direct (the default) fills the recall namespaces straight into the memory database with the rows
and postings the write path makes (1M records in about 3 minutes), then checks a sample against the
tokenizer and recall against plain counting; --seed api writes every record through the API instead.
--chart writes recall latency against namespace size (p50 and p95 per recall scenario) as an SVG.
--telemetry-records R[,O] seeds R request records over the last hour (and O over the 29 days before) into
the bench tenant's telemetry history before the telemetry reads, straight into the telemetry database.
--quality runs only the recall-quality bench: it writes each LoCoMo conversation (--locomo FILE, default
${DEFAULT_LOCOMO} from the repository root) into a namespace of its own, recalls every question with
evidence (--connections at a time), and reports evidence recall@1/5/10/25, hit@5 and MRR@25 per category
beside an in-process BM25 baseline; --chart writes recall@k of both, --check exits 1 below the targets.
  BENCH_URL      base URL of the gateway (default http://127.0.0.1:8080)
  BENCH_API_KEY  API key to use; without it a fresh tenant is bootstrapped with the admin command
  BENCH_PG_URL   PostgreSQL server for the baseline's throwaway database (default: the memory
                 service's server, from MEMORY_DATABASE_URL or PGHOST/PGPORT/PGUSER/PGPASSWORD)`;

const FULL = {
  duration: 10,
  warmup: 2,
  connections: 32,
  batchConnections: 4,
  seedConnections: 64,
  smallSize: 1_000,
  sizes: [10_000, 100_000],
};
const QUICK = {
  duration: 3,
  warmup: 1,
  connections: 32,
  batchConnections: 4,
  seedConnections: 64,
  smallSize: 200,
  sizes: [1_000, 5_000],
};

export function readBenchOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quality: { type: 'boolean', default: false },
      locomo: { type: 'string' },
      quick: { type: 'boolean', default: false },
      check: { type: 'boolean', default: false },
      keep: { type: 'boolean', default: false },
      duration: { type: 'string' },
      connections: { type: 'string' },
      'batch-connections': { type: 'string' },
      'seed-connections': { type: 'string' },
      seed: { type: 'string', default: 'direct' },
      sizes: { type: 'string' },
      chart: { type: 'string' },
      'telemetry-records': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const preset = values.quick ? QUICK : FULL;
  const positive = (name: string, raw: string | undefined, fallback: number) => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n <= 0) throw new Error(`--${name} must be a positive integer, got ${raw}`);
    return n;
  };
  const sizes = values.sizes
    ? values.sizes.split(',').map((s) => positive('sizes', s.trim(), 0))
    : preset.sizes;
  if (values.seed !== 'direct' && values.seed !== 'api')
    throw new Error(`--seed must be direct or api, got ${values.seed}`);
  return {
    baseUrl: (env.BENCH_URL || 'http://127.0.0.1:8080').replace(/\/+$/, ''),
    quality: values.quality ?? false,
    locomo: values.locomo ? resolve(values.locomo) : resolve(REPO_ROOT, DEFAULT_LOCOMO),
    quick: values.quick ?? false,
    check: values.check ?? false,
    keep: values.keep ?? false,
    duration: positive('duration', values.duration, preset.duration),
    warmup: preset.warmup,
    connections: positive('connections', values.connections, preset.connections),
    batchConnections: positive('batch-connections', values['batch-connections'], preset.batchConnections),
    seedConnections: positive('seed-connections', values['seed-connections'], preset.seedConnections),
    seed: values.seed,
    smallSize: preset.smallSize,
    sizes: [...sizes].sort((a, b) => a - b),
    chart: values.chart,
    telemetryRecords: telemetryRecords(values['telemetry-records']),
  };
}

function telemetryRecords(raw: string | undefined): { recent: number; older: number } {
  if (raw === undefined) return { recent: 0, older: 0 };
  const [recent, older = 0, ...rest] = raw.split(',').map((s) => Number(s.trim()));
  if (rest.length > 0 || ![recent, older].every((n) => Number.isInteger(n) && (n as number) >= 0))
    throw new Error(`--telemetry-records must be R or R,O (whole numbers), got ${raw}`);
  return { recent: recent as number, older };
}
