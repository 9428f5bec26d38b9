/**
 * Where a write's CPU goes: run the write scenario against a running stack (`pnpm start`) and divide
 * each process's CPU time (user + system, from /proc, Linux only) by the writes it served. Given a
 * namespace, the same for recalls against it instead, with the bench's Zipf cues or another of its
 * cue sets (question: natural questions; rare; common).
 *
 *   node --import tsx tests/load/write-cpu.ts [seconds=10] [connections=32] [recall-namespace] [zipf|question|rare|common]
 *
 * Throughput on these shared VMs swings by a fifth between runs; CPU per request moves much less, so
 * it is the number to compare when changing the write path. Uses BENCH_API_KEY or a fresh tenant.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolveApiKey } from './api-key.js';
import { deleteNamespace, recallRequests, writeRequests } from './memory-api.js';
import { runLoad } from './run-load.js';
import { TextCorpus } from './text-corpus.js';

const CLOCK_TICKS_PER_SECOND = 100;
const ROOT = realpathSync(fileURLToPath(new URL('../..', import.meta.url)));
// A service in either runtime: src/start.ts through tsx (`npm start`) or dist/start.js (`npm run start:prod`).
const service = (name: string) => ['-f', `services/${name}/(src/start\\.ts|dist/start\\.js)`];
const PROCESSES: Record<string, string[]> = {
  gateway: service('gateway'),
  memory: service('memory'),
  billing: service('billing'),
  telemetry: service('telemetry'),
  postgres: ['-x', 'postgres'],
  'nats-server': ['-x', 'nats-server'],
};

/** Matching processes; the services only where they run from this checkout (other stacks may be up). */
function pids(pattern: string[]): number[] {
  try {
    const found = execFileSync('pgrep', pattern, { encoding: 'utf8' }).trim().split('\n').map(Number);
    return pattern[0] === '-f' ? found.filter((pid) => cwdOf(pid).startsWith(ROOT)) : found;
  } catch {
    return [];
  }
}

function cwdOf(pid: number): string {
  try {
    return realpathSync(`/proc/${pid}/cwd`);
  } catch {
    return '';
  }
}

/** CPU ticks (user + system, children included) of every process matching each pattern. */
function cpuTicks(): Record<string, number> {
  const ticks: Record<string, number> = {};
  for (const [name, pattern] of Object.entries(PROCESSES)) {
    ticks[name] = 0;
    for (const pid of pids(pattern)) {
      try {
        // The command name may contain spaces; the fields after its closing parenthesis do not.
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
        const [utime, stime, cutime, cstime] = [11, 12, 13, 14].map((i) => Number(fields[i]));
        ticks[name] += (utime ?? 0) + (stime ?? 0) + (cutime ?? 0) + (cstime ?? 0);
      } catch {
        // The process ended between pgrep and the read.
      }
    }
  }
  return ticks;
}

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 32);
const baseUrl = (process.env.BENCH_URL || 'http://127.0.0.1:8080').replace(/\/+$/, '');
const recallNamespace = process.argv[4];
const { apiKey } = await resolveApiKey();
const corpus = new TextCorpus();
const cues = {
  zipf: () => corpus.cue(),
  question: () => corpus.questionCue(),
  rare: () => corpus.rareCue(),
  common: () => corpus.commonCue(),
};
const cueSet = (process.argv[5] ?? 'zipf') as keyof typeof cues;
if (!(cueSet in cues)) throw new Error(`cue set must be one of ${Object.keys(cues).join(', ')}`);
const run = `cpu-${randomBytes(3).toString('hex')}`;
const what = recallNamespace ? 'recall' : 'write';
const requests = (suffix: string) =>
  recallNamespace
    ? recallRequests(apiKey, recallNamespace, corpus, cues[cueSet])
    : writeRequests(apiKey, run, corpus, `${run}-${suffix}`);

await runLoad(requests('warm'), { baseUrl, connections, duration: 3 });
const before = cpuTicks();
const result = await runLoad(requests(String(Date.now())), { baseUrl, connections, duration: seconds });
const after = cpuTicks();

console.log(
  `${result.ok} ${what}s in ${result.seconds.toFixed(1)} s: ${result.rps.toFixed(0)} ${what}s/s, p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms`,
);
let total = 0;
for (const name of Object.keys(PROCESSES)) {
  const us = (((after[name] ?? 0) - (before[name] ?? 0)) / CLOCK_TICKS_PER_SECOND / result.ok) * 1e6;
  total += us;
  console.log(`${name.padEnd(12)} ${us.toFixed(0).padStart(6)} us CPU per ${what}`);
}
console.log(
  `${'total'.padEnd(12)} ${total.toFixed(0).padStart(6)} us CPU per ${what} (the load client not counted)`,
);
if (!recallNamespace) await deleteNamespace(baseUrl, apiKey, run);
