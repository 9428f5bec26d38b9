/**
 * Start-up of each service in both runtimes: TypeScript through tsx (`npm start`) and the
 * compiled dist/ with plain node (`npm run start:prod`). For each, the wall time from spawn to its
 * ready line and the CPU it spent until then (user + system, from /proc, Linux only); the median
 * of the rounds, the runtimes taking turns so drift in the machine's load hits both alike.
 *
 *   npm run build && node --import tsx tests/load/startup-time.ts [rounds=3]
 *
 * Runs against the databases and NATS the launcher would use (*_DATABASE_URL, NATS_URL, PG*), which
 * must be migrated (`npm start` once); the gateway listens on a free port, so a running stack is fine
 * as long as it is on another NATS (the services' durable consumers have fixed names).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readDevSettings } from '../../infra/dev/dev-settings.js';
import { nodeArgs, type Runtime } from '../../infra/dev/service-command.js';

const CLOCK_TICKS_PER_SECOND = 100;
const READY = /"msg":"(\w+ service ready|gateway listening)"/;

const settings = readDevSettings();
const env: NodeJS.ProcessEnv = {
  ...process.env,
  NATS_URL: settings.nats.url,
  GATEWAY_PORT: '0',
  GATEWAY_SECRET_KEY: process.env.GATEWAY_SECRET_KEY ?? 'startup-time-only-0123456789abcdefghijklmnopqrstuvw',
  ...Object.fromEntries(settings.services.map((s) => [s.databaseVar, s.databaseUrl])),
};

function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return ((Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND) * 1000;
}

/** Spawn, wait for the ready line, read the clock and the CPU, then stop it and wait for its exit. */
function startOnce(runtime: Runtime, service: string): Promise<{ wallMs: number; cpuMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, nodeArgs(runtime, service, 'start.ts'), {
      cwd: settings.root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let measured: { wallMs: number; cpuMs: number } | undefined;
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (measured || !READY.test(output) || !child.pid) return;
      measured = { wallMs: performance.now() - started, cpuMs: cpuMs(child.pid) };
      child.kill('SIGTERM');
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('exit', (code) =>
      measured
        ? resolve(measured)
        : reject(new Error(`${service} (${runtime}) exited with ${code} before ready:\n${output}`)),
    );
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const rounds = Number(process.argv[2] ?? 3);
const runtimes: Runtime[] = ['tsx', 'compiled'];
const samples = new Map<string, { wallMs: number[]; cpuMs: number[] }>();
for (let round = 1; round <= rounds; round++) {
  for (const service of settings.services.map((s) => s.name)) {
    for (const runtime of round % 2 ? runtimes : [...runtimes].reverse()) {
      const { wallMs, cpuMs } = await startOnce(runtime, service);
      const key = `${service} ${runtime}`;
      const sample = samples.get(key) ?? { wallMs: [], cpuMs: [] };
      sample.wallMs.push(wallMs);
      sample.cpuMs.push(cpuMs);
      samples.set(key, sample);
      console.error(`round ${round}: ${key} ready in ${wallMs.toFixed(0)} ms, ${cpuMs.toFixed(0)} ms CPU`);
    }
  }
}

console.log(`| service | tsx: ready / CPU (ms) | compiled: ready / CPU (ms) | ready, compiled vs tsx |`);
console.log('|---|---|---|---|');
for (const service of settings.services.map((s) => s.name)) {
  const [tsx, compiled] = runtimes.map((runtime) => samples.get(`${service} ${runtime}`));
  if (!tsx || !compiled) continue;
  const cell = (s: { wallMs: number[]; cpuMs: number[] }) =>
    `${median(s.wallMs).toFixed(0)} / ${median(s.cpuMs).toFixed(0)}`;
  const ratio = median(compiled.wallMs) / median(tsx.wallMs);
  console.log(`| ${service} | ${cell(tsx)} | ${cell(compiled)} | ${(ratio * 100).toFixed(0)} % |`);
}
console.log(`(median of ${rounds} rounds; node ${process.version})`);
