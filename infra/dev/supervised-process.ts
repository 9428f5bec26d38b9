import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { pipePrefixed, printLine } from './prefixed-output.js';

export interface ExitStatus {
  /** The exit code, or 128 + the signal's number when a signal ended it (the shell's convention). */
  code: number;
  signal: NodeJS.Signals | null;
}

export interface SupervisedProcess {
  name: string;
  pid: number | undefined;
  /** Resolves once the process and its output end. */
  exited: Promise<ExitStatus>;
  /** The stop signal, then SIGKILL to its whole process group if it is still running after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * How long a child has between its stop signal and SIGKILL. Above the services' own deadline (their
 * drain, `DRAIN_TIMEOUT_MS`, 5 s by default, plus 5 s to close the rest: libs/kit's runMain), so a
 * service that drains within its bound is never killed; the same as compose's stop_grace_period.
 */
export const STOP_GRACE_MS = 15_000;

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
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('error', (err) => {
      printLine(name, `cannot run ${command}: ${err.message}`, process.stderr);
      running.delete(child);
      resolve({ code: 127, signal: null });
    });
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code: code ?? 128 + (signal ? constants.signals[signal] : 0), signal });
    });
  });

  const stop = async (graceMs = STOP_GRACE_MS) => {
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
  return { name, pid: child.pid, exited, stop };
}

/** `was killed by SIGKILL (exit 137)`, `exited with code 1`: how a child ended, for the launcher's output. */
export function describeExit({ code, signal }: ExitStatus): string {
  return signal ? `was killed by ${signal} (exit ${code})` : `exited with code ${code}`;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // The group is already gone.
  }
}
