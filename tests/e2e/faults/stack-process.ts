import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

export const PROCESSES = ['memory', 'billing', 'telemetry', 'template', 'webhooks', 'gateway'] as const;
export type ProcessName = (typeof PROCESSES)[number];

/** The line each process logs once it takes work. */
const READY: Record<ProcessName, string> = {
  memory: '"memory service ready"',
  billing: '"billing service ready"',
  telemetry: '"telemetry service ready"',
  template: '"template service ready"',
  webhooks: '"webhooks service ready"',
  gateway: '"gateway listening"',
};

const alive = new Set<ChildProcess>();
// If the suite dies without stopping its stack, take the stack with it.
process.once('exit', () => {
  for (const child of alive) child.kill('SIGKILL');
});

/**
 * One service (or the gateway) as its own OS process, started as the launcher starts it (node with
 * tsx's loader on services/<name>/src/start.ts), so a fault can SIGKILL, SIGTERM or SIGSTOP it and the
 * suite can start it again, as a supervisor would. Its log lines are appended to one file per run.
 */
export class StackProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<number | null> = Promise.resolve(null);

  constructor(
    readonly name: ProcessName,
    private readonly env: NodeJS.ProcessEnv,
    private readonly log: WriteStream,
  ) {}

  static logTo(file: string): WriteStream {
    return createWriteStream(file, { flags: 'a' });
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  async start(readyWithinMs = 90_000): Promise<void> {
    if (this.child) return;
    const child = spawn(process.execPath, ['--import', 'tsx', `services/${this.name}/src/start.ts`], {
      cwd: root,
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    alive.add(child);
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        alive.delete(child);
        if (this.child === child) this.child = undefined;
        resolve(code);
      }),
    );
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${this.name} was not ready within ${readyWithinMs} ms`)),
        readyWithinMs,
      );
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${this.name} exited with ${code} before it was ready`));
      });
      for (const stream of [child.stdout, child.stderr]) {
        if (!stream) continue;
        createInterface({ input: stream }).on('line', (line) => {
          this.log.write(`${this.name} ${line}\n`);
          if (line.includes(READY[this.name])) {
            clearTimeout(timer);
            resolve();
          }
        });
      }
    }).catch(async (err: unknown) => {
      await this.kill('SIGKILL');
      throw err;
    });
  }

  /** Send a signal and return at once (SIGSTOP freezes it with whatever it holds; SIGCONT thaws it). */
  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  /**
   * Send a signal and wait for the process to be gone. After `graceMs` a SIGKILL follows; resolves
   * whether that was needed (a graceful stop that hangs is a finding, not a stuck suite).
   */
  async kill(signal: NodeJS.Signals, graceMs = 20_000): Promise<{ forced: boolean; code: number | null }> {
    const child = this.child;
    if (!child) return { forced: false, code: null };
    let forced = false;
    const timer = setTimeout(() => {
      forced = true;
      child.kill('SIGKILL');
    }, graceMs);
    child.kill(signal);
    const code = await this.exited;
    clearTimeout(timer);
    return { forced, code };
  }
}
