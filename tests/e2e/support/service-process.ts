import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { logDestination } from './log-capture.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export interface ServiceProcess {
  pid: number;
  /** Send a signal and return (SIGSTOP: the process freezes, holding whatever it had received). */
  signal: (signal: NodeJS.Signals) => void;
  /** Send a signal (SIGKILL: a crash, no shutdown step runs) and wait for the process to be gone. */
  kill: (signal: NodeJS.Signals) => Promise<void>;
  /** Every line it has written so far (stdout and stderr). */
  lines: string[];
  /** Resolves with how it ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Its ready line, parsed (the gateway's carries its `port`). */
  ready: { port?: number };
}

/** The line each process logs once it serves. */
const READY_MESSAGE = {
  memory: 'memory service ready',
  billing: 'billing service ready',
  telemetry: 'telemetry service ready',
  template: 'template service ready',
  webhooks: 'webhooks service ready',
  gateway: 'gateway listening',
};

/**
 * A service as its own OS process, started the way the dev launcher starts it (node with tsx's
 * loader on `services/<name>/src/start.ts`), for tests that must kill an instance outright: an
 * in-process instance cannot be SIGKILLed without the test. Its log lines go to the run's log file
 * (the credential leak check reads them too). Resolves once it logs `<name> service ready` (the
 * gateway: `gateway listening`, with its port).
 */
export async function startServiceProcess(
  name: keyof typeof READY_MESSAGE,
  env: Record<string, string>,
  readyWithinMs = 30_000,
): Promise<ServiceProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', `services/${name}/src/start.ts`], {
    cwd: root,
    // Metrics on any free port: tests run several instances of a service at once.
    env: {
      PATH: process.env.PATH ?? '',
      LOG_LEVEL: 'debug',
      [`${name.toUpperCase()}_METRICS_PORT`]: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const log = logDestination();
  const lines: string[] = [];
  const ready = new Promise<{ port?: number }>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within ${readyWithinMs} ms`)),
      readyWithinMs,
    );
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready`));
    });
    for (const stream of [child.stdout, child.stderr]) {
      if (!stream) continue;
      createInterface({ input: stream }).on('line', (line) => {
        log.write(`${line}\n`);
        lines.push(line);
        if (line.includes(`"${READY_MESSAGE[name]}"`)) {
          clearTimeout(timer);
          resolve(JSON.parse(line) as { port?: number });
        }
      });
    }
  });
  const kill = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    await exited;
  };
  try {
    const readyLine = await ready;
    return {
      pid: child.pid ?? 0,
      signal: (signal) => void child.kill(signal),
      kill,
      lines,
      exited,
      ready: readyLine,
    };
  } catch (err) {
    await kill('SIGKILL');
    throw err;
  }
}
