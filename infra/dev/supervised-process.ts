import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { pipePrefixed, printLine } from './prefixed-output.js';

export interface SupervisedProcess {
  name: string;
  /** Resolves with the exit code (128 + signal number when killed) once the process and its output end. */
  exited: Promise<number>;
  /** The stop signal, then SIGKILL to its whole process group if it is still running after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<ChildProcess>();

// Last resort if the launcher itself exits without stopping its children (a crash, an uncaught error).
process.once('exit', () => {
  for (const child of running) killGroup(child, 'SIGKILL');
});

export interface SupervisedOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Run as another user (PostgreSQL refuses root). */
  uid?: number;
  gid?: number;
  /** What asks this program to stop gracefully; SIGTERM unless it means something else to it. */
  stopSignal?: NodeJS.Signals;
}

/** Start a long-running child with prefixed, line-buffered output. */
export function startSupervised(
  name: string,
  command: string,
  args: string[],
  { stopSignal = 'SIGTERM', ...options }: SupervisedOptions,
): SupervisedProcess {
  // A process group of its own: a terminal Ctrl+C reaches only the launcher, which stops the children
  // in order, and each child gets exactly one stop signal (a second one cuts a graceful shutdown short).
  const child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  pipePrefixed(child.stdout, name, process.stdout);
  pipePrefixed(child.stderr, name, process.stderr);
  const exited = new Promise<number>((resolve) => {
    child.once('error', (err) => {
      printLine(name, `cannot run ${command}: ${err.message}`, process.stderr);
      running.delete(child);
      resolve(127);
    });
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve(code ?? 128 + (signal ? constants.signals[signal] : 0));
    });
  });

  const stop = async (graceMs = 10_000) => {
    if (!running.has(child)) return;
    child.kill(stopSignal);
    const timer = setTimeout(() => {
      printLine(
        name,
        `still running ${graceMs / 1000} s after ${stopSignal}; sending SIGKILL`,
        process.stderr,
      );
      killGroup(child, 'SIGKILL');
    }, graceMs);
    await exited;
    clearTimeout(timer);
  };
  return { name, exited, stop };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}
