import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';

/** A child with its output in a log file and a process group of its own, so a kill reaches all of it. */
export class LoggedProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;

  constructor(
    command: string,
    args: string[],
    logFile: string,
    options: { uid?: number; gid?: number; env: NodeJS.ProcessEnv },
  ) {
    const log = openSync(logFile, 'a');
    this.child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', log, log] });
    closeSync(log);
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.running || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // gone meanwhile
    }
  }

  /** The signal, then SIGKILL to the group if it is still running after `graceMs`. */
  async stop(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    this.signal(signal);
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}
